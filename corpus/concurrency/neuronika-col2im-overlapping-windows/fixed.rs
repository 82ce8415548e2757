// repository: https://github.com/neuronika/neuronika
// fix commit: d0b66a6b9501b975bfae816a3716369c88e7db2c
// files: src/variable/node/binary/convolution/numeric/mod.rs (assign_from_cols, as_windows_mut, ...)
// lint: alias_race
// release with the bug: neuronika 0.1.0
// first fixed release: neuronika 0.2.0
//
// Fixed shape: the overlapping window view is split along the batch axis
// only (`axis_iter_mut(Axis(0)).into_par_iter()`), whose sub-views are
// disjoint; the overlapping windows inside one sample are accumulated by a
// sequential `Zip::for_each`.
use ndarray::{ArrayViewMut, ArrayD, Array2, Axis, IxDyn, ShapeBuilder, Zip};
use rayon::prelude::*;

fn window_view_shape(input: &ArrayD<f32>, kernel: &[usize], stride: &[usize]) -> Vec<usize> {
    let sh = input.shape();
    let out_h = (sh[2] - kernel[2]) / stride[0] + 1;
    let out_w = (sh[3] - kernel[3]) / stride[1] + 1;
    vec![sh[0], 1, out_h, out_w, sh[1], kernel[2], kernel[3]]
}

fn window_view_strides(input: &ArrayD<f32>, stride: &[usize]) -> Vec<usize> {
    let st: Vec<usize> = input.strides().iter().map(|&s| s as usize).collect();
    vec![st[0], st[1], st[2] * stride[0], st[3] * stride[1], st[1], st[2], st[3]]
}

fn windows_mut<'a>(input: &mut ArrayD<f32>, kernel: &[usize], stride: &[usize]) -> ArrayViewMut<'a, f32, IxDyn> {
    let shape = window_view_shape(input, kernel, stride);
    let strides = window_view_strides(input, stride);
    unsafe { ArrayViewMut::from_shape_ptr(shape.strides(strides), input.as_mut_ptr()) }
}

fn add_from_cols(dest: &mut ArrayD<f32>, cols: Array2<f32>, kernel: &[usize], stride: &[usize]) {
    let mut windows = windows_mut(dest, kernel, stride);
    let cols = cols.into_shape_with_order(windows.raw_dim()).unwrap();
    windows
        .axis_iter_mut(Axis(0))
        .into_par_iter()
        .zip(cols.axis_iter(Axis(0)))
        .for_each(|(mut sample, src)| {
            Zip::from(&mut sample).and(&src).for_each(|d, s| *d += *s)
        });
}

fn main() {
    let mut grad = ArrayD::<f32>::zeros(IxDyn(&[2, 1, 5, 5]));
    let cols = Array2::<f32>::ones((2 * 3 * 3, 9));
    add_from_cols(&mut grad, cols, &[1, 1, 3, 3], &[1, 1]);
    println!("{}", grad[[0, 0, 2, 2]]);
}
