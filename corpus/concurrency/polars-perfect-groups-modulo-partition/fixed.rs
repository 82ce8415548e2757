// repository: https://github.com/pola-rs/polars
// fix commit: 47d2ed26c6c94dd5c40abd1172d27bd0385b83ea
// files: polars/polars-core/src/frame/groupby/perfect.rs (group_tuples_perfect), polars/polars-core/src/hashing/partition.rs (this_partition)
// lint: false_sharing
// release with the bug: none on crates.io
// first fixed release: polars-core 0.29.0
//
// Fixed shape: each task owns a contiguous id range whose bounds are
// multiples of a 64-byte line (16 `u32` slots), and `first` is written only
// when a group receives its first row.
use rayon::prelude::*;

struct SyncPtr<T>(*mut T);
unsafe impl<T> Send for SyncPtr<T> {}
unsafe impl<T> Sync for SyncPtr<T> {}
impl<T> SyncPtr<T> {
    fn get(&self) -> *mut T {
        self.0
    }
}

/// Line-aligned id bounds: `[0, c, 2c, ..]` with `c` a multiple of 16 ids.
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
    let groups_ptr = SyncPtr(groups.as_mut_ptr());
    let first_ptr = SyncPtr(first.as_mut_ptr());
    let bounds = line_aligned_bounds(len, rayon::current_num_threads());

    (0..bounds.len() - 1).into_par_iter().for_each(|t| {
        let (start, end) = (bounds[t] as u32, bounds[t + 1] as u32);
        for (row, &cat) in cats.iter().enumerate() {
            if cat >= start && cat < end {
                let cat = cat as usize;
                unsafe {
                    let buf = &mut *groups_ptr.get().add(cat);
                    buf.push(row as u32);
                    if buf.len() == 1 {
                        *first_ptr.get().add(cat) = row as u32;
                    }
                }
            }
        }
    });
    (groups, first)
}

fn main() {
    let cats: Vec<u32> = (0..100_000u32).map(|i| (i * 7919) % 4096).collect();
    let (g, f) = perfect_groups(&cats, 4096);
    println!("{} {}", g[5].len(), f[5]);
}
