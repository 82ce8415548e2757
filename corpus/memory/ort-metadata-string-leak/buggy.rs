// repository: https://github.com/pykeio/ort
// fix commit: 449d9b3e514d3f6edf38a24157b5d2056aa748a6
// files: src/metadata.rs, src/execution_providers/mod.rs
// lint: leak
// release with the bug: ort 1.16.3
// first fixed release: ort 2.0.0-alpha.1
//
// Reading a string attribute of an ONNX model goes through an out-parameter: the C API
// allocates the string with the session's allocator and the caller must hand it back to
// that same allocator's `Free` callback. The Rust wrapper converted the C string into a
// Rust `String` with a helper that fails on invalid UTF-8, and applied `?` to that
// conversion before the free; a model whose description or producer name was not UTF-8
// therefore leaked the allocator block on every query. The fix matches on the
// conversion result and frees the C string on the error arm too before returning.

use std::ffi::CStr;
use std::os::raw::{c_char, c_void};

#[repr(C)]
pub struct Allocator {
    pub version: u32,
    pub alloc: Option<unsafe extern "C" fn(this: *mut Allocator, size: usize) -> *mut c_void>,
    pub free: Option<unsafe extern "C" fn(this: *mut Allocator, p: *mut c_void)>,
}

#[repr(C)]
pub struct RawMetadata {
    _opaque: [u8; 0],
}

extern "C" {
    /// Writes into `out` a string allocated with `alloc`; the caller frees it with `alloc`.
    fn meta_get_description(m: *const RawMetadata, alloc: *mut Allocator, out: *mut *mut c_char) -> i32;
    fn meta_get_producer(m: *const RawMetadata, alloc: *mut Allocator, out: *mut *mut c_char) -> i32;
}

macro_rules! allocator_free {
    ($alloc:expr, $p:expr) => {
        unsafe { ((*$alloc).free.unwrap())($alloc, $p as *mut c_void) }
    };
}

#[derive(Debug)]
pub enum MetaError {
    Status(i32),
    NotUtf8,
}

fn c_to_string(raw: *const c_char) -> Result<String, MetaError> {
    let owned = unsafe { CStr::from_ptr(raw) }.to_owned();
    owned.into_string().map_err(|_| MetaError::NotUtf8)
}

pub struct ModelMetadata {
    raw: *const RawMetadata,
    alloc: *mut Allocator,
}

impl ModelMetadata {
    pub fn description(&self) -> Result<String, MetaError> {
        let mut text: *mut c_char = std::ptr::null_mut();
        let status = unsafe { meta_get_description(self.raw, self.alloc, &mut text) }; //~ leak
        if status != 0 {
            return Err(MetaError::Status(status));
        }
        let value = c_to_string(text)?;
        allocator_free!(self.alloc, text);
        Ok(value)
    }

    pub fn producer(&self) -> Result<String, MetaError> {
        let mut text: *mut c_char = std::ptr::null_mut();
        let status = unsafe { meta_get_producer(self.raw, self.alloc, &mut text) }; //~ leak
        if status != 0 {
            return Err(MetaError::Status(status));
        }
        let value = c_to_string(text)?;
        allocator_free!(self.alloc, text);
        Ok(value)
    }
}
