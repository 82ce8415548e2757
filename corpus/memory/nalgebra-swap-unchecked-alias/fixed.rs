// repository: https://github.com/dimforge/nalgebra
// fix commit: c5f240cc281120b987a76bef213ba1007138a89c
// files: src/base/storage.rs
// lint: unsafe_inplace
// release with the bug: nalgebra 0.27.1
// first fixed release: nalgebra 0.28.0
//
// The storage trait swaps two elements given their linear indices: it asks the storage
// for the raw address of each element and then exchanged them with
// `mem::swap(&mut *a, &mut *b)`. The safe matrix methods built on it (`swap`, and the
// row and column swaps used by pivoting in the decompositions) only check that the
// indices are in bounds, not that they differ, and pivoting routinely swaps a row with
// itself. With equal indices the two `&mut` references point at the same element at the
// same time, which is undefined behaviour under Rust's aliasing rules (the optimiser may
// assume the two writes do not interact). The fix swaps through the raw pointers with
// `ptr::swap`, which is defined for equal and overlapping locations.

use std::ptr;

pub unsafe trait StorageMut<T> {
    fn ptr_mut(&mut self) -> *mut T;
    fn len(&self) -> usize;

    unsafe fn address_linear_mut(&mut self, i: usize) -> *mut T {
        self.ptr_mut().add(i)
    }

    unsafe fn swap_linear_unchecked(&mut self, i1: usize, i2: usize) {
        let a = self.address_linear_mut(i1);
        let b = self.address_linear_mut(i2);
        // Defined even when `a == b`: no references are formed.
        ptr::swap(a, b);
    }
}

pub struct DenseStorage<T> {
    data: Vec<T>,
}

unsafe impl<T> StorageMut<T> for DenseStorage<T> {
    fn ptr_mut(&mut self) -> *mut T {
        self.data.as_mut_ptr()
    }
    fn len(&self) -> usize {
        self.data.len()
    }
}

pub struct Mat<T> {
    rows: usize,
    cols: usize,
    storage: DenseStorage<T>,
}

impl<T> Mat<T> {
    /// Column-major: element (r, c) is at r + c * rows.
    pub fn swap(&mut self, a: (usize, usize), b: (usize, usize)) {
        assert!(a.0 < self.rows && a.1 < self.cols && b.0 < self.rows && b.1 < self.cols, "index out of bounds");
        let ia = a.0 + a.1 * self.rows;
        let ib = b.0 + b.1 * self.rows;
        unsafe { self.storage.swap_linear_unchecked(ia, ib) }
    }

    /// Used by partial pivoting: `pivot` may equal `row`.
    pub fn swap_rows(&mut self, row: usize, pivot: usize) {
        for c in 0..self.cols {
            self.swap((row, c), (pivot, c));
        }
    }
}
