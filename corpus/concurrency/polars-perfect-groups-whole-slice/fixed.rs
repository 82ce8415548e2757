// repository: https://github.com/pola-rs/polars
// fix commit: 11bd08ec233c5c65729721e1d2df5fb165299d2e
// files: crates/polars-core/src/frame/group_by/perfect.rs
// lint: alias_race
// release with the bug: polars-core 0.43.1
// first fixed release: polars-core 0.44.0
//
// Fixed shape: threads keep raw pointers and form a `&mut` to one element at a
// time (`&mut *groups.add(cat)`), only for ids inside their own range.
use rayon::prelude::*;

struct SyncPtr<T>(*mut T);
impl<T> Clone for SyncPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SyncPtr<T> {}
unsafe impl<T> Send for SyncPtr<T> {}
unsafe impl<T> Sync for SyncPtr<T> {}
impl<T> SyncPtr<T> {
    fn get(self) -> *mut T {
        self.0
    }
}

fn line_aligned_bounds(len: usize, threads: usize) -> Vec<usize> {
    let per = (len / threads * 4).next_multiple_of(64) / 4;
    let mut bounds = vec![0];
    let mut at = per;
    while at <= len {
        bounds.push(at);
        at += per;
    }
    bounds.push(at);
    bounds
}

fn perfect_groups(cats: &[u32], n_groups: usize) -> (Vec<Vec<u32>>, Vec<u32>) {
    let len = n_groups;
    let mut groups: Vec<Vec<u32>> = vec![Vec::new(); len];
    let mut first: Vec<u32> = vec![0; len];
    let bounds = line_aligned_bounds(len, rayon::current_num_threads());
    let groups_ptr = SyncPtr(groups.as_mut_ptr());
    let first_ptr = SyncPtr(first.as_mut_ptr());

    (0..bounds.len() - 1).into_par_iter().for_each(|t| {
        let (start, end) = (bounds[t] as u32, bounds[t + 1] as u32);
        let groups = groups_ptr.get();
        let first = first_ptr.get();
        for (row, &cat) in cats.iter().enumerate() {
            if cat >= start && cat < end {
                let buf = unsafe { &mut *groups.add(cat as usize) };
                buf.push(row as u32);
                if buf.len() == 1 {
                    unsafe { *first.add(cat as usize) = row as u32 };
                }
            }
        }
    });
    (groups, first)
}

fn main() {
    let cats: Vec<u32> = (0..10_000u32).map(|i| i % 300).collect();
    let (g, f) = perfect_groups(&cats, 300);
    println!("{} {}", g.len(), f[7]);
}
