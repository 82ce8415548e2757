struct Pool;

impl Pool {
    #[tensor_lint::alloc]
    fn checkout(&mut self, n: usize) -> *mut f32 {
        let _ = n;
        std::ptr::null_mut()
    }

    #[tensor_lint::free(p)]
    fn checkin(&mut self, p: *mut f32) {
        let _ = p;
    }
}

#[tensor_lint::kernel(assume(n >= 1, n % 16 == 0))]
fn hot(pool: &mut Pool, n: usize) {
    let p = pool.checkout(n);
    pool.checkin(p);
}

#[tensor_lint::inplace(dst)]
fn opaque_update(dst: &mut [f32]) {
    let _ = dst;
}

#[tensor_lint::view(of = missing)]
fn bad(a: &[f32]) -> &[f32] {
    a
}

#[tensor_lint::kernel(assume(n))]
fn bad_assume(n: usize) {}
