// repository: https://github.com/GitoxideLabs/gitoxide
// fix commit: 1383b0df14134b0e0f1a2fbfccb4526130c84a03
// files: gix-features/src/parallel/in_parallel.rs
// lint: alias_race
// release with the bug: gix-features 0.36.0
// first fixed release: gix-features 0.36.1
//
// `in_parallel_with_slice` lets N scoped threads pull work items from one
// `&mut [I]`: an atomic counter hands out indices, each index exactly once.
// The slice crossed into the threads as a `Send` newtype around `*mut [I]`,
// and every thread turned it back into `&mut *input.0` -- a `&mut` to the
// *whole* slice -- just to index one element. With several threads doing
// that at once, several live `&mut [I]` cover the same items (UB even though
// each thread then writes a different element). The fix stores `*mut I`
// (the start pointer) instead and forms `&mut *input.0.add(index)`, a
// reference to the one item only.
use std::sync::atomic::{AtomicUsize, Ordering};

struct Input<I>(*mut [I]);
unsafe impl<I: Send> Send for Input<I> {}

/// Runs `consume` on every item of `items`, spread over `threads` threads.
fn in_parallel_with_slice<I: Send>(
    items: &mut [I],
    threads: usize,
    consume: impl Fn(&mut I) + Send + Clone,
) {
    let next = &AtomicUsize::new(0);
    let len = items.len();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let input = Input(items as *mut [I]);
            let consume = consume.clone();
            s.spawn(move || {
                let input = input;
                while let Ok(i) = next.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |x| {
                    (x < len).then_some(x + 1)
                }) {
                    let item = unsafe { &mut (&mut *input.0)[i] }; //~ alias_race
                    consume(item);
                }
            });
        }
    });
}

/// Caller: normalise every row of a point cloud in place.
fn normalize_rows(rows: &mut [[f32; 3]]) {
    in_parallel_with_slice(rows, 4, |p: &mut [f32; 3]| {
        let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt().max(1e-6);
        for v in p.iter_mut() {
            *v /= n;
        }
    });
}

fn main() {
    let mut rows = vec![[1.0f32, 2.0, 2.0]; 1000];
    normalize_rows(&mut rows);
    println!("{:?}", rows[0]);
}
