// repository: https://github.com/coreylowman/cudarc
// fix commit: ef0a8ae1383f3b231df6bb2d78a29b21341bd3ca
// files: src/cublaslt/safe.rs (src/cublaslt/result.rs holds the create/destroy wrappers)
// lint: leak
// release with the bug: cudarc 0.9.15
// first fixed release: cudarc 0.10.0
//
// The cuBLASLt matmul builds, on every call, one layout descriptor per operand, an
// operation descriptor and a heuristic-preference object, each through a thin
// `create_*` wrapper over the C API that returns the raw handle. The matching
// `destroy_*` wrappers existed but were never called: not at the end of the call, and
// not on the many `?` exits taken when setting an attribute fails. A training loop that
// calls the matmul millions of times leaked host memory inside the library on each
// call. The fix wraps each handle in a small owner type whose `Drop` calls the matching
// `destroy_*`, so every exit releases them.

use std::os::raw::c_void;

pub type LayoutHandle = *mut c_void;
pub type OpDescHandle = *mut c_void;

#[derive(Debug)]
pub struct LtError(pub i32);

mod ffi {
    use std::os::raw::{c_int, c_void};
    extern "C" {
        pub fn ltLayoutCreate(out: *mut *mut c_void, rows: u64, cols: u64, ld: i64) -> c_int;
        pub fn ltLayoutDestroy(h: *mut c_void) -> c_int;
        pub fn ltLayoutSetAttr(h: *mut c_void, attr: c_int, buf: *const c_void, size: usize) -> c_int;
        pub fn ltOpDescCreate(out: *mut *mut c_void, compute: c_int) -> c_int;
        pub fn ltOpDescDestroy(h: *mut c_void) -> c_int;
        pub fn ltOpDescSetAttr(h: *mut c_void, attr: c_int, buf: *const c_void, size: usize) -> c_int;
        pub fn ltMatmul(ctx: *mut c_void, op: *mut c_void, a: *const f32, la: *mut c_void, b: *const f32, lb: *mut c_void, c: *mut f32, lc: *mut c_void) -> c_int;
    }
}

// --- thin result layer: raw handles in, status codes turned into `Result` ---

pub fn create_layout(rows: u64, cols: u64, ld: i64) -> Result<LayoutHandle, LtError> {
    let mut h = std::ptr::null_mut();
    match unsafe { ffi::ltLayoutCreate(&mut h, rows, cols, ld) } {
        0 => Ok(h),
        e => Err(LtError(e)),
    }
}

pub unsafe fn destroy_layout(h: LayoutHandle) -> Result<(), LtError> {
    match ffi::ltLayoutDestroy(h) {
        0 => Ok(()),
        e => Err(LtError(e)),
    }
}

pub unsafe fn set_batch(h: LayoutHandle, count: i32) -> Result<(), LtError> {
    match ffi::ltLayoutSetAttr(h, 1, &count as *const i32 as *const c_void, 4) {
        0 => Ok(()),
        e => Err(LtError(e)),
    }
}

pub fn create_op_desc() -> Result<OpDescHandle, LtError> {
    let mut h = std::ptr::null_mut();
    match unsafe { ffi::ltOpDescCreate(&mut h, 68) } {
        0 => Ok(h),
        e => Err(LtError(e)),
    }
}

pub unsafe fn destroy_op_desc(h: OpDescHandle) -> Result<(), LtError> {
    match ffi::ltOpDescDestroy(h) {
        0 => Ok(()),
        e => Err(LtError(e)),
    }
}

pub unsafe fn set_transpose(h: OpDescHandle, t: bool) -> Result<(), LtError> {
    let t = t as i32;
    match ffi::ltOpDescSetAttr(h, 3, &t as *const i32 as *const c_void, 4) {
        0 => Ok(()),
        e => Err(LtError(e)),
    }
}

// --- the safe layer ---

pub struct LtContext {
    handle: *mut c_void,
}

impl LtContext {
    pub unsafe fn gemm(&self, m: u64, n: u64, k: u64, batch: Option<i32>, a: *const f32, b: *const f32, c: *mut f32) -> Result<(), LtError> {
        let a_layout = create_layout(m, k, m as i64)?; //~ leak
        if let Some(count) = batch {
            set_batch(a_layout, count)?;
        }
        let b_layout = create_layout(k, n, k as i64)?; //~ leak
        let c_layout = create_layout(m, n, m as i64)?; //~ leak
        let op = create_op_desc()?; //~ leak
        set_transpose(op, false)?;
        match ffi::ltMatmul(self.handle, op, a, a_layout, b, b_layout, c, c_layout) {
            0 => Ok(()),
            e => Err(LtError(e)),
        }
    }
}
