fn pick(flag: bool, a: &mut [f32], b: &mut [f32]) -> f32 {
    let dst = if flag { &mut *a } else { &mut *b };
    dst[0] = 1.0;
    match a.len() {
        0 => 0.0,
        1 | 2 => a[0],
        _ => b[1],
    }
}
