// repository: https://github.com/Narsil/ggblas
// fix commit: 27b815bc8d1c12103d2097ca3b360679a3f0dc3d
// files: src/raw.rs (ggml_compute_forward_mul_mat), src/ggml/mod.rs (vec_mad_f32)
// lint: alias_race
// release with the bug: ggblas 0.1.0
// first fixed release: ggblas 0.1.1
//
// Fixed shape: items are output rows (`batching * m`); the k accumulations of
// a row run inside one item, so each worker owns whole rows of C.
use threadpool::ThreadPool;

unsafe fn vec_mad(b_row: *const f32, c_row: *mut f32, v: f32, n: usize) {
    for i in 0..n {
        unsafe { *c_row.add(i) += *b_row.add(i) * v };
    }
}

unsafe fn mul_mat(
    a: &[f32],
    b: &[f32],
    c: &mut [f32],
    (m, n, k, batching): (usize, usize, usize, usize),
    pool: &ThreadPool,
) {
    let (a_skip, b_skip, c_skip) = (m * k, k * n, m * n);
    let total = batching * m;
    let workers = pool.max_count();
    let per = total / workers + 1;
    let ap = a.as_ptr() as usize;
    let bp = b.as_ptr() as usize;
    let cp = c.as_mut_ptr() as usize;

    for w in 0..workers {
        pool.execute(move || {
            for item in w * per..total.min((w + 1) * per) {
                let step = item / m;
                let i = item % m;
                for kk in 0..k {
                    unsafe {
                        let av = *(ap as *const f32).add(step * a_skip + i * k + kk);
                        let b_row = (bp as *const f32).add(step * b_skip + kk * n);
                        let c_row = (cp as *mut f32).add(step * c_skip + i * n);
                        vec_mad(b_row, c_row, av, n);
                    }
                }
            }
        });
    }
    pool.join();
}

fn main() {
    let pool = ThreadPool::new(4);
    let (m, n, k) = (3, 2, 4);
    let a: Vec<f32> = (0..m * k).map(|x| x as f32).collect();
    let b: Vec<f32> = (0..k * n).map(|x| x as f32).collect();
    let mut c = vec![0.0f32; m * n];
    unsafe { mul_mat(&a, &b, &mut c, (m, n, k, 1), &pool) };
    println!("{c:?}");
}
