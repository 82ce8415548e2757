fn scale_in_place(v: &mut [f32], k: f32) {
    for x in v.iter_mut() {
        *x *= k;
    }
}

fn twice(v: &mut [f32]) {
    scale_in_place(v, 2.0);
}

fn first_half(v: &mut [f32]) -> &mut [f32] {
    let n = v.len() / 2;
    &mut v[..n]
}

fn even(n: usize, v: &mut [f32]) -> bool {
    if n == 0 { true } else { odd(n - 1, v) }
}

fn odd(n: usize, v: &mut [f32]) -> bool {
    v[0] = 1.0;
    if n == 0 { false } else { even(n - 1, v) }
}

fn caller(buf: &mut [f32]) {
    twice(buf);
    let h = first_half(buf);
    h[0] = 0.0;
    even(3, buf);
}
