// repository: https://github.com/neuronika/neuronika
// fix commit: d0b66a6b9501b975bfae816a3716369c88e7db2c
// files: src/variable/node/binary/convolution/numeric/mod.rs (assign_from_cols, as_windows_mut, compute_rolling_window_shape, compute_rolling_window_strides); in the 0.1.0 release: src/nn/convolution.rs
// lint: alias_race
// release with the bug: neuronika 0.1.0
// first fixed release: neuronika 0.2.0
//
// The convolution backward pass scatters the column-form gradient back onto
// the input gradient ("col2im"). It builds a *mutable rolling-window view*
// of the destination with `ArrayViewMut::from_shape_ptr`: shape
// (batch, 1, out_h, out_w, channels, k_h, k_w) and strides that step the
// window origin by the convolution stride. When the stride is smaller than
// the kernel, neighbouring windows share input pixels, so distinct indices of
// this view reach the same element. The view was then fed to
// `Zip::from(&mut windows).and(&cols).par_for_each(|d, s| *d += *s)`, which
// splits it across rayon threads: two threads perform `+=` on one shared
// pixel at the same time and gradient contributions are lost (non-
// deterministic test failures, ndarray issue #1052). The fix parallelises
// only over the batch axis, where windows never overlap, and accumulates
// each sample sequentially.
use ndarray::{ArrayViewMut, ArrayD, Array2, IxDyn, ShapeBuilder, Zip};

/// Shape of the rolling-window view over a (batch, channels, h, w) array.
fn window_view_shape(input: &ArrayD<f32>, kernel: &[usize], stride: &[usize]) -> Vec<usize> {
    let sh = input.shape();
    let out_h = (sh[2] - kernel[2]) / stride[0] + 1;
    let out_w = (sh[3] - kernel[3]) / stride[1] + 1;
    vec![sh[0], 1, out_h, out_w, sh[1], kernel[2], kernel[3]]
}

/// Strides of the rolling-window view: origins move by `stride`, the window
/// interior moves by one pixel.
fn window_view_strides(input: &ArrayD<f32>, stride: &[usize]) -> Vec<usize> {
    let st: Vec<usize> = input.strides().iter().map(|&s| s as usize).collect();
    vec![st[0], st[1], st[2] * stride[0], st[3] * stride[1], st[1], st[2], st[3]]
}

fn windows_mut<'a>(input: &mut ArrayD<f32>, kernel: &[usize], stride: &[usize]) -> ArrayViewMut<'a, f32, IxDyn> {
    let shape = window_view_shape(input, kernel, stride);
    let strides = window_view_strides(input, stride);
    unsafe { ArrayViewMut::from_shape_ptr(shape.strides(strides), input.as_mut_ptr()) }
}

/// Adds the column-form gradient `cols` back onto `dest` (col2im).
fn add_from_cols(dest: &mut ArrayD<f32>, cols: Array2<f32>, kernel: &[usize], stride: &[usize]) {
    let mut windows = windows_mut(dest, kernel, stride);
    let cols = cols.into_shape_with_order(windows.raw_dim()).unwrap();
    Zip::from(&mut windows)
        .and(&cols)
        .par_for_each(|d, s| *d += *s); //~ alias_race
}

fn main() {
    // batch 2, 1 channel, 5x5 input, 3x3 kernel, stride 1: windows overlap.
    let mut grad = ArrayD::<f32>::zeros(IxDyn(&[2, 1, 5, 5]));
    let cols = Array2::<f32>::ones((2 * 3 * 3, 9));
    add_from_cols(&mut grad, cols, &[1, 1, 3, 3], &[1, 1]);
    println!("{}", grad[[0, 0, 2, 2]]);
}
