use ndarray::{ArrayViewMut2, ShapeBuilder};

fn rebuild(buf: &mut [f32], rows: usize, cols: usize) {
    let p = buf.as_mut_ptr();
    let tail = unsafe { std::slice::from_raw_parts_mut(p.add(cols), cols) };
    tail[0] = 1.0;
    let m = unsafe { ArrayViewMut2::from_shape_ptr((rows, cols).strides((1, rows)), p) };
    let _ = m;
}
