// repository: https://github.com/tensorflow/rust
// fix commit: 7936d9e62ea6fc8c2d0f80ac37e9653848f7ea94
// files: src/lib.rs
// lint: double_free
// release with the bug: tensorflow 0.0.4
// first fixed release: tensorflow 0.1.0
//
// A run description keeps one raw output-tensor slot per requested output; the C
// library fills the slots during a run and the caller takes tensors out of them. A
// helper deletes whatever tensors are still in the slots. It is called at the start of
// every run (in case a previous run's outputs were never taken) and again from the
// description's `Drop`. The helper deleted each tensor but left the pointer in its slot.
// If the run that follows does not overwrite the slots (it fails, or the description is
// dropped without another run), the same tensors are deleted a second time. The fix
// writes a null pointer into each slot after deleting it, so a later pass skips it.

use std::os::raw::c_int;

#[repr(C)]
pub struct RawTensor {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct RawSession {
    _opaque: [u8; 0],
}

extern "C" {
    fn tensor_delete(t: *mut RawTensor);
    fn session_run(s: *mut RawSession, outputs: *mut *mut RawTensor, n: c_int) -> c_int;
}

pub struct RunArgs {
    outputs: Vec<*mut RawTensor>,
}

impl RunArgs {
    pub fn new() -> RunArgs {
        RunArgs { outputs: Vec::new() }
    }

    pub fn request_output(&mut self) -> usize {
        self.outputs.push(std::ptr::null_mut());
        self.outputs.len() - 1
    }

    fn release_outputs(&mut self) {
        for &t in &self.outputs {
            if !t.is_null() {
                unsafe { tensor_delete(t) }; //~ double_free
            }
        }
    }
}

impl Drop for RunArgs {
    fn drop(&mut self) {
        self.release_outputs();
    }
}

pub struct Session {
    raw: *mut RawSession,
}

impl Session {
    pub fn run(&mut self, args: &mut RunArgs) -> Result<(), c_int> {
        // Outputs of an earlier run that nobody took are released first.
        args.release_outputs();
        let code = unsafe { session_run(self.raw, args.outputs.as_mut_ptr(), args.outputs.len() as c_int) };
        if code != 0 {
            return Err(code);
        }
        Ok(())
    }
}
