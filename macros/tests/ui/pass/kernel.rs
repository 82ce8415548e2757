//! `#[tensor_lint::kernel]` with and without assumptions, on every kind of function.

#[tensor_lint::kernel]
fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

#[tensor_lint::kernel(assume(n >= 1, n % 16 == 0))]
fn block_sums(data: &[f32], n: usize) -> Vec<f32> {
    data.chunks_exact(n)
        .map(|block| block.iter().sum())
        .collect()
}

#[tensor_lint::kernel(assume(
    rows * cols <= 1_048_576,
    (rows + 1) / 2 != 0,
    -stride < 0x40,
    BLOCK % 8 == 0,
))]
fn tiled<const BLOCK: usize>(rows: usize, cols: usize, stride: isize) -> usize {
    rows * cols * BLOCK + stride.unsigned_abs()
}

struct Conv {
    taps: Vec<f32>,
}

impl Conv {
    #[tensor_lint::kernel(assume(width >= 3))]
    fn apply(&self, input: &[f32], width: usize) -> Vec<f32> {
        input
            .windows(width.min(self.taps.len()))
            .map(|window| window.iter().zip(&self.taps).map(|(x, t)| x * t).sum())
            .collect()
    }
}

trait Kernel {
    #[tensor_lint::kernel]
    fn run(&self, out: &mut [f32]);

    #[tensor_lint::kernel(assume(len > 0))]
    fn run_len(&self, out: &mut [f32], len: usize) {
        self.run(&mut out[..len]);
    }
}

impl Kernel for Conv {
    fn run(&self, out: &mut [f32]) {
        out.iter_mut().for_each(|v| *v = self.taps.len() as f32);
    }
}

fn main() {
    let mut y = vec![1.0, 2.0];
    axpy(2.0, &[1.0, 1.0], &mut y);
    assert_eq!(y, [3.0, 4.0]);
    assert_eq!(block_sums(&[1.0; 32], 16), [16.0, 16.0]);
    assert_eq!(tiled::<8>(2, 3, -4), 52);
    let conv = Conv {
        taps: vec![1.0, -1.0, 1.0],
    };
    assert_eq!(conv.apply(&[1.0, 2.0, 3.0, 4.0], 3), [2.0, 3.0]);
    let mut out = [0.0; 4];
    conv.run_len(&mut out, 2);
    assert_eq!(out, [3.0, 3.0, 0.0, 0.0]);
}
