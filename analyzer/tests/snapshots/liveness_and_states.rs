use std::alloc::{alloc, dealloc, Layout};

fn states(flag: bool, n: usize) {
    let layout = Layout::array::<f32>(n).unwrap();
    let p = unsafe { alloc(layout) };
    if flag {
        unsafe { dealloc(p, layout) };
    }
    for _ in 0..n {
        let q = unsafe { alloc(layout) };
        unsafe { dealloc(q, layout) };
    }
}

fn null_checked(l: Layout) -> Option<*mut u8> {
    let p = unsafe { alloc(l) };
    if p.is_null() {
        return None;
    }
    Some(p)
}

fn dangling(n: usize) -> f32 {
    let p = {
        let v = vec![1.0f32; n];
        v.as_ptr()
    };
    let moved = vec![0.0f32; n];
    let kept = moved;
    unsafe { *p + kept[0] }
}
