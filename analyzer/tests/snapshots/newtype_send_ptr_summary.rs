#[derive(Clone, Copy)]
struct SendPtr(*mut f32);
unsafe impl Send for SendPtr {}

impl SendPtr {
    fn get(&self) -> *mut f32 {
        self.0
    }
}

fn fill(out: &mut [f32]) {
    let p = SendPtr(out.as_mut_ptr());
    let raw = p.get();
    unsafe { *raw.add(1) = 0.0 };
}
