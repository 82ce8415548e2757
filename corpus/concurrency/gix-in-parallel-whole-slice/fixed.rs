// repository: https://github.com/GitoxideLabs/gitoxide
// fix commit: 1383b0df14134b0e0f1a2fbfccb4526130c84a03
// files: gix-features/src/parallel/in_parallel.rs
// lint: alias_race
// release with the bug: gix-features 0.36.0
// first fixed release: gix-features 0.36.1
//
// Fixed shape: the newtype carries the element pointer `*mut I`, and each
// thread forms a `&mut` to exactly the one item its counter value selects.
use std::sync::atomic::{AtomicUsize, Ordering};

struct Input<I>(*mut I);
unsafe impl<I: Send> Send for Input<I> {}

fn in_parallel_with_slice<I: Send>(
    items: &mut [I],
    threads: usize,
    consume: impl Fn(&mut I) + Send + Clone,
) {
    let next = &AtomicUsize::new(0);
    let len = items.len();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let input = Input(items.as_mut_ptr());
            let consume = consume.clone();
            s.spawn(move || {
                let input = input;
                while let Ok(i) = next.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |x| {
                    (x < len).then_some(x + 1)
                }) {
                    let item = unsafe { &mut *input.0.add(i) };
                    consume(item);
                }
            });
        }
    });
}

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
