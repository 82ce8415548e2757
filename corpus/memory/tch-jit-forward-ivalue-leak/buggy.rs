// repository: https://github.com/LaurentMazare/tch-rs
// fix commit: 49c926737a0e6e9df5a02893ca987fcc9ac4d5d7
// files: src/wrappers/jit.rs
// lint: leak
// release with the bug: tch 0.1.1
// first fixed release: tch 0.1.3
//
// A TorchScript module is run on a list of tagged values. Each Rust value is turned into
// a freshly allocated C++ value object by a helper that calls the FFI constructors; the
// forward pass only reads these argument objects (the C++ side copies what it needs), and
// the result comes back as a new object that the conversion back to Rust frees. Nobody
// frees the argument objects, so every forward call leaks one C++ value per input (and,
// for a tensor input, keeps the tensor's storage alive through the leaked reference).
// The fix walks the argument handles after the call and frees each one.

use std::os::raw::c_int;

#[repr(C)]
pub struct RawValue {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct RawModule {
    _opaque: [u8; 0],
}

extern "C" {
    fn rv_from_int(v: i64) -> *mut RawValue;
    fn rv_from_float(v: f64) -> *mut RawValue;
    fn rv_tag(v: *mut RawValue) -> c_int;
    fn rv_as_int(v: *mut RawValue) -> i64;
    fn rv_as_float(v: *mut RawValue) -> f64;
    fn rv_free(v: *mut RawValue);
    fn rm_forward(m: *mut RawModule, args: *const *mut RawValue, n: c_int) -> *mut RawValue;
}

#[derive(Debug)]
pub struct BindError;

pub enum Scalar {
    Int(i64),
    Float(f64),
}

impl Scalar {
    /// Allocates a new C++ value; the caller owns it.
    fn to_raw(&self) -> Result<*mut RawValue, BindError> {
        let raw = unsafe {
            match self {
                Scalar::Int(i) => rv_from_int(*i),
                Scalar::Float(f) => rv_from_float(*f),
            }
        };
        if raw.is_null() {
            return Err(BindError);
        }
        Ok(raw)
    }

    /// Consumes the C++ value and frees it.
    fn from_raw(raw: *mut RawValue) -> Result<Scalar, BindError> {
        if raw.is_null() {
            return Err(BindError);
        }
        let v = unsafe {
            match rv_tag(raw) {
                0 => Scalar::Int(rv_as_int(raw)),
                _ => Scalar::Float(rv_as_float(raw)),
            }
        };
        unsafe { rv_free(raw) };
        Ok(v)
    }
}

pub struct ScriptModule {
    raw: *mut RawModule,
}

impl ScriptModule {
    pub fn run(&self, inputs: &[Scalar]) -> Result<Scalar, BindError> {
        let args = inputs.iter().map(|x| x.to_raw()).collect::<Result<Vec<_>, _>>()?; //~ leak
        let out = unsafe { rm_forward(self.raw, args.as_ptr(), args.len() as c_int) };
        Scalar::from_raw(out)
    }
}
