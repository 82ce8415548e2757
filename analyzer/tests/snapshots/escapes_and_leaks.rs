struct Holder {
    data: Vec<f32>,
}

fn escapes(h: &mut Holder, n: usize) -> Vec<f32> {
    let keep = vec![1.0f32; n];
    h.data = keep;
    let b = Box::new([0u8; 64]);
    let raw = Box::into_raw(b);
    let back = unsafe { Box::from_raw(raw) };
    let leaked = Box::leak(Box::new(3));
    std::mem::forget(back);
    let _ = leaked;
    let out = vec![0.0f32; n];
    out
}
