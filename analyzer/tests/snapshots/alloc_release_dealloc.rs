use std::alloc::{alloc, dealloc, Layout};

fn raw_buffer(n: usize) {
    let layout = Layout::array::<f32>(n).unwrap();
    let p = unsafe { alloc(layout) };
    unsafe { *p = 1 };
    unsafe { dealloc(p, layout) };
}

fn vectors(n: usize) {
    let v = vec![0.0f32; n];
    let w = Vec::<f64>::with_capacity(n);
    drop(v);
    let _ = w;
}
