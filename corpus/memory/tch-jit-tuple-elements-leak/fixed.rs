// repository: https://github.com/LaurentMazare/tch-rs
// fix commit: 5b350dae632e26d55b3aceac4f39c6243a2267cc
// files: src/wrappers/jit.rs, torch-sys/libtch/torch_api.cpp
// lint: leak
// release with the bug: tch 0.1.1
// first fixed release: tch 0.1.3
//
// Converting a Rust value tree into C++ TorchScript values is recursive: for a tuple,
// each element is converted first (every conversion allocates a new C++ value object),
// and the array of element handles is passed to the tuple constructor, which copies the
// elements into the new tuple. The element objects themselves were never freed, so
// every tuple argument leaked one C++ object per element (and the references they hold
// to tensors). An earlier attempt to free them with a recursive "deep free" after the
// forward call freed objects owned by the tuple and corrupted the heap; the fix removed
// it and instead frees each element handle right after the tuple constructor has
// copied it.

use std::os::raw::c_int;

#[repr(C)]
pub struct RawValue {
    _opaque: [u8; 0],
}

extern "C" {
    fn rv_from_int(v: i64) -> *mut RawValue;
    fn rv_from_float(v: f64) -> *mut RawValue;
    /// Copies the `n` elements into a new tuple; the element handles stay the caller's.
    fn rv_tuple(elems: *const *mut RawValue, n: c_int) -> *mut RawValue;
    fn rv_free(v: *mut RawValue);
}

#[derive(Debug)]
pub struct BindError;

pub enum Value {
    Int(i64),
    Float(f64),
    Tuple(Vec<Value>),
}

fn non_null(p: *mut RawValue) -> Result<*mut RawValue, BindError> {
    if p.is_null() {
        Err(BindError)
    } else {
        Ok(p)
    }
}

impl Value {
    /// Allocates a new C++ value for this tree; the caller owns the result.
    pub fn to_raw(&self) -> Result<*mut RawValue, BindError> {
        let raw = unsafe {
            match self {
                Value::Int(i) => rv_from_int(*i),
                Value::Float(f) => rv_from_float(*f),
                Value::Tuple(items) => {
                    let elems = items.iter().map(Value::to_raw).collect::<Result<Vec<_>, _>>()?;
                    let tuple = rv_tuple(elems.as_ptr(), elems.len() as c_int);
                    // The tuple holds copies: the element handles are still ours.
                    for e in elems {
                        rv_free(e);
                    }
                    tuple
                }
            }
        };
        non_null(raw)
    }
}
