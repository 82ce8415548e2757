// repository: https://github.com/PyO3/rust-numpy
// fix commit: c43344264d208d1da299a5de1dd5ec3bb3c8c242
// files: src/array.rs (the helper is in src/convert.rs)
// lint: use_after_free
// release with the bug: numpy 0.17.0
// first fixed release: numpy 0.17.1
//
// Reshaping or resizing a NumPy array from Rust passes the new shape to the C API as a
// small `{ pointer, length }` struct. A helper trait builds that struct from a
// dimension value by taking a raw pointer to the dimension's own index storage. The
// reshape and resize methods called it on a temporary: the dimension produced by the
// conversion from the user's argument lived only until the end of the `let` statement,
// so the struct held a dangling pointer when it was passed to the C call on the next
// line (for dynamic-rank shapes the indices are on the heap and already freed). The fix
// binds the converted dimension to a local first and builds the struct from that local,
// which lives until the end of the method.

use std::os::raw::c_int;

#[repr(C)]
pub struct RawDims {
    pub ptr: *mut isize,
    pub len: c_int,
}

#[repr(C)]
pub struct RawArray {
    _opaque: [u8; 0],
}

extern "C" {
    fn array_newshape(arr: *mut RawArray, dims: *mut RawDims, order: c_int) -> *mut RawArray;
    fn array_resize(arr: *mut RawArray, dims: *mut RawDims, refcheck: c_int) -> c_int;
}

/// A dynamic-rank shape: its indices live on the heap.
pub struct DynShape {
    idx: Vec<isize>,
}

pub trait IntoShape {
    fn into_shape(self) -> DynShape;
}

impl IntoShape for Vec<usize> {
    fn into_shape(self) -> DynShape {
        DynShape { idx: self.into_iter().map(|d| d as isize).collect() }
    }
}

impl<const N: usize> IntoShape for [usize; N] {
    fn into_shape(self) -> DynShape {
        DynShape { idx: self.iter().map(|&d| d as isize).collect() }
    }
}

pub trait ToRawDims {
    fn to_raw_dims(&self) -> RawDims;
}

impl ToRawDims for DynShape {
    fn to_raw_dims(&self) -> RawDims {
        RawDims { ptr: self.idx.as_ptr() as *mut isize, len: self.idx.len() as c_int }
    }
}

pub struct NdArray {
    raw: *mut RawArray,
}

impl NdArray {
    pub fn reshape<S: IntoShape>(&self, shape: S) -> Option<NdArray> {
        let shape = shape.into_shape();
        let mut dims = shape.to_raw_dims();
        let out = unsafe { array_newshape(self.raw, &mut dims, 0) };
        if out.is_null() {
            None
        } else {
            Some(NdArray { raw: out })
        }
    }

    pub unsafe fn resize<S: IntoShape>(&self, shape: S) -> bool {
        let shape = shape.into_shape();
        let mut dims = shape.to_raw_dims();
        array_resize(self.raw, &mut dims, 1) == 0
    }
}
