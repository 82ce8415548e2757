// repository: https://github.com/tensorflow/rust
// fix commit: 844cd7ad456a30f3b8f06eab43c1637039fa0e94
// files: src/graph.rs
// lint: use_after_free
// release with the bug: none on crates.io (introduced by bf218fd66e598b637f7a62dd398dd14ee925bf43 after 0.18.0, fixed before 0.19.0)
// first fixed release: tensorflow 0.19.0
//
// Turning a graph into a function passes the optional output names to C as an array of
// `char *`. The wrapper builds an `Option<Vec<CString>>` and then an
// `Option<Vec<*const c_char>>` of their pointers. A lint clean-up rewrote the second step
// from a `match` on a reference into `Option::map`, which takes the option by value: the
// vector of `CString`s moves into the closure and is dropped when the closure returns,
// so the pointer array handed to the C call points into freed memory. (A comment right
// above the line warned against exactly this.) The fix maps over `as_ref()`, so the
// strings stay owned by the enclosing function until after the call.

use std::ffi::{CString, NulError};
use std::os::raw::{c_char, c_int};
use std::ptr;

#[repr(C)]
pub struct RawGraph {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct RawFunction {
    _opaque: [u8; 0],
}

extern "C" {
    fn graph_to_function(g: *const RawGraph, name: *const c_char, n_outputs: c_int, output_names: *const *const c_char) -> *mut RawFunction;
}

pub struct Function {
    raw: *mut RawFunction,
}

pub struct Graph {
    raw: *mut RawGraph,
}

impl Graph {
    pub fn to_function<S: AsRef<str>>(&self, name: &str, output_names: Option<&[S]>) -> Result<Function, NulError> {
        let name_c = CString::new(name)?;
        let names_c: Option<Result<Vec<CString>, NulError>> =
            output_names.map(|names| names.iter().map(|n| CString::new(n.as_ref())).collect());
        let names_c: Option<Vec<CString>> = match names_c {
            None => None,
            Some(r) => Some(r?),
        };
        let count = names_c.as_ref().map_or(0, |v| v.len()) as c_int;
        let names_ptrs: Option<Vec<*const c_char>> = names_c.as_ref().map(|v| v.iter().map(|s| s.as_ptr()).collect());
        let names_arg = match &names_ptrs {
            None => ptr::null(),
            Some(p) => p.as_ptr(),
        };
        let raw = unsafe { graph_to_function(self.raw, name_c.as_ptr(), count, names_arg) };
        Ok(Function { raw })
    }
}
