fn apply(a: &mut [f32], scale: f32) {
    let mut bump = |i: usize| a[i] *= scale;
    bump(0);
    let total: f32 = a.iter().map(|x| x * 2.0).sum();
    let _ = total;
}
