// repository: https://github.com/jorgecarleitao/arrow2
// fix commit: 9d4342c5ff2ff1593232373a9998c3da18c7854d
// files: src/ffi/generated.rs (on main; the 0.7.1/0.8.2/0.9.2 backports changed src/ffi/ffi.rs)
// lint: double_free
// release with the bug: arrow2 0.9.1
// first fixed release: arrow2 0.9.2 (also 0.7.1, 0.8.2 and 0.10.0)
//
// The Arrow C data interface hands arrays across FFI as a `#[repr(C)]` struct of raw
// pointers plus a `release` callback that frees the buffers, children and private data;
// the Rust struct's `Drop` calls that callback. The struct also derived `Clone`, which
// copies the raw pointers and the callback field by field. Cloning an imported array,
// from safe code, gave two owners of the same C allocations, and each one called
// `release` when dropped: a double free (RUSTSEC-2022-0012). The fix removes the
// `Clone` derive, so the duplicate can no longer be made; code that needs a second
// handle borrows the struct or goes through an owning wrapper.

use std::os::raw::c_void;

#[repr(C)]
#[derive(Debug, Clone)] //~ double_free
pub struct FfiArray {
    pub length: i64,
    pub null_count: i64,
    pub n_buffers: i64,
    pub buffers: *mut *const c_void,
    pub release: Option<unsafe extern "C" fn(arr: *mut FfiArray)>,
    pub private_data: *mut c_void,
}

impl Drop for FfiArray {
    fn drop(&mut self) {
        if let Some(release) = self.release {
            unsafe { release(self) };
        }
    }
}

/// Frees what the producer allocated and marks the struct released.
pub unsafe extern "C" fn release_exported(arr: *mut FfiArray) {
    let arr = &mut *arr;
    let buffers = Box::from_raw(arr.private_data as *mut Vec<*const c_void>);
    drop(buffers);
    arr.release = None;
}

pub fn export(values: Vec<*const c_void>) -> FfiArray {
    let len = values.len() as i64;
    let boxed = Box::new(values);
    let buffers = boxed.as_ptr() as *mut *const c_void;
    FfiArray {
        length: len,
        null_count: 0,
        n_buffers: len,
        buffers,
        release: Some(release_exported),
        private_data: Box::into_raw(boxed) as *mut c_void,
    }
}

/// A consumer that looks at a copy of the struct it was given.
pub fn exported_len(arr: &FfiArray) -> i64 {
    let copy = arr.clone();
    copy.length
}

pub fn roundtrip(values: Vec<*const c_void>) -> i64 {
    let arr = export(values);
    exported_len(&arr)
}
