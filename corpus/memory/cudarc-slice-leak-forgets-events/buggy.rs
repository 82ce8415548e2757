// repository: https://github.com/coreylowman/cudarc
// fix commit: 9b61103815a57c836d78e96c960ba843abbc560a
// files: src/driver/safe/core.rs
// lint: leak
// release with the bug: cudarc 0.14.0
// first fixed release: cudarc 0.15.0
//
// A device buffer owns more than its device pointer: two CUDA events that track the
// last read and the last write, and a counted reference to the stream it lives on. Its
// `leak` method is meant to hand only the device pointer to the caller (who will free it
// or rebuild a buffer from it later), so it copied the pointer out and called
// `mem::forget(self)`. Forgetting the whole owner also skipped the destructors of the
// two events (each one a driver object that is never destroyed) and of the stream
// reference (whose count never drops, so the stream and its context are kept alive for
// ever). The fix still keeps the device memory alive but runs the other fields'
// clean-up by hand before forgetting the owner.

use std::mem;
use std::os::raw::c_void;
use std::sync::Arc;

pub type DevicePtr = u64;

extern "C" {
    fn drvEventCreate(out: *mut *mut c_void, flags: u32) -> i32;
    fn drvEventDestroy(ev: *mut c_void) -> i32;
    fn drvStreamWaitEvent(stream: *mut c_void, ev: *mut c_void, flags: u32) -> i32;
    fn drvFreeAsync(ptr: DevicePtr, stream: *mut c_void) -> i32;
}

pub struct Stream {
    raw: *mut c_void,
}

pub struct Event {
    raw: *mut c_void,
}

impl Event {
    pub fn new() -> Event {
        let mut raw = std::ptr::null_mut();
        assert_eq!(unsafe { drvEventCreate(&mut raw, 2) }, 0);
        Event { raw }
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        unsafe { drvEventDestroy(self.raw) };
    }
}

pub struct DeviceBuf {
    dptr: DevicePtr,
    len: usize,
    last_read: Event,
    last_write: Event,
    stream: Arc<Stream>,
}

impl Drop for DeviceBuf {
    fn drop(&mut self) {
        unsafe {
            drvStreamWaitEvent(self.stream.raw, self.last_read.raw, 0);
            drvStreamWaitEvent(self.stream.raw, self.last_write.raw, 0);
            drvFreeAsync(self.dptr, self.stream.raw);
        }
    }
}

impl DeviceBuf {
    pub fn len(&self) -> usize {
        self.len
    }

    /// Gives the device allocation to the caller, who must free it.
    pub fn leak(self) -> DevicePtr {
        let dptr = self.dptr;
        mem::forget(self); //~ leak
        dptr
    }
}
