// repository: https://github.com/PyO3/pyo3
// fix commit: f86e6d392326f0e4dc25eeec8b26af36f2b0fbc8
// files: src/instance.rs
// lint: double_free
// release with the bug: pyo3 0.12.3
// first fixed release: pyo3 0.12.4
//
// An owned Python reference is a tuple struct around a non-null object pointer and a
// marker; its `Drop` gives the reference back (decrements the count). Converting a typed
// reference into the untyped one was written as a destructuring pattern that copies the
// pointer field out and builds the new owner from it. Because the pointer is `Copy` and
// the marker is matched with `_`, the pattern moves nothing: the source owner is still
// whole and is dropped at the end of the conversion, decrementing the count, while the
// returned owner will decrement it again. Every conversion therefore released one
// reference too many; the object could be freed while still in use (RUSTSEC-2020-0074).
// The fix transfers ownership explicitly: it takes the pointer out of the source with a
// method that forgets the source, and builds the new owner from that pointer.

use std::marker::PhantomData;
use std::mem;
use std::ptr::NonNull;

#[repr(C)]
pub struct RawObject {
    refcnt: isize,
}

extern "C" {
    fn obj_decref(o: *mut RawObject);
    fn obj_new_dict() -> *mut RawObject;
}

pub struct AnyObj;
pub struct DictObj;

pub struct Owned<T>(NonNull<RawObject>, PhantomData<T>);

pub type AnyOwned = Owned<AnyObj>;

impl<T> Owned<T> {
    pub unsafe fn from_owned_ptr(p: *mut RawObject) -> Owned<T> {
        Owned(NonNull::new(p).expect("null object"), PhantomData)
    }

    /// Hands the reference to the caller without giving it back.
    pub fn into_non_null(self) -> NonNull<RawObject> {
        let p = self.0;
        mem::forget(self);
        p
    }
}

impl<T> Drop for Owned<T> {
    fn drop(&mut self) {
        unsafe { obj_decref(self.0.as_ptr()) };
    }
}

impl From<Owned<DictObj>> for AnyOwned {
    fn from(other: Owned<DictObj>) -> AnyOwned {
        // Take the reference out of `other` (which is forgotten, not dropped).
        Owned(other.into_non_null(), PhantomData)
    }
}

pub fn new_dict_as_any() -> AnyOwned {
    let d: Owned<DictObj> = unsafe { Owned::from_owned_ptr(obj_new_dict()) };
    d.into()
}
