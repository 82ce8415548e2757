// repository: https://github.com/AtheMathmo/rulinalg
// fix commit: adf399f7da236e4b2c05bf1c5c43162fda0fdcc6
// files: src/matrix/slice.rs
// lint: unsafe_inplace
// release with the bug: rulinalg 0.3.7
// first fixed release: rulinalg 0.4.0
//
// Swapping two rows of a row-major matrix (or of a strided sub-matrix view) built two
// mutable slices from the matrix's raw pointer, one at `row_stride * a` and one at
// `row_stride * b`, and swapped them element by element. Both indices are only checked
// against the row count. When `a == b` (which LU pivoting produces whenever the pivot is
// already in place) the two `&mut [T]` cover the same memory, so two live mutable
// slices alias and each `mem::swap` gets two `&mut` to one element: undefined
// behaviour. The fix makes the swap a no-op when the indices are equal.

use std::mem;
use std::slice;

pub trait RowMajorMut<T> {
    fn rows(&self) -> usize;
    fn cols(&self) -> usize;
    fn row_stride(&self) -> usize;
    fn as_mut_ptr(&mut self) -> *mut T;

    fn swap_rows(&mut self, a: usize, b: usize) {
        assert!(a < self.rows(), "row index out of range");
        assert!(b < self.rows(), "row index out of range");
        let stride = self.row_stride();
        let n = self.cols();
        unsafe {
            let row_a = slice::from_raw_parts_mut(self.as_mut_ptr().add(stride * a), n);
            let row_b = slice::from_raw_parts_mut(self.as_mut_ptr().add(stride * b), n); //~ unsafe_inplace
            for (x, y) in row_a.iter_mut().zip(row_b.iter_mut()) {
                mem::swap(x, y);
            }
        }
    }
}

pub struct DenseMatrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl RowMajorMut<f64> for DenseMatrix {
    fn rows(&self) -> usize {
        self.rows
    }
    fn cols(&self) -> usize {
        self.cols
    }
    fn row_stride(&self) -> usize {
        self.cols
    }
    fn as_mut_ptr(&mut self) -> *mut f64 {
        self.data.as_mut_ptr()
    }
}

/// Partial pivoting: the largest entry may already be on the diagonal.
pub fn pivot(u: &mut DenseMatrix, col: usize) {
    let mut best = col;
    for r in col..u.rows {
        if u.data[r * u.cols + col].abs() > u.data[best * u.cols + col].abs() {
            best = r;
        }
    }
    u.swap_rows(col, best);
}
