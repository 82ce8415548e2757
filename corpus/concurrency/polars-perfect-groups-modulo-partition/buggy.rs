// repository: https://github.com/pola-rs/polars
// fix commit: 47d2ed26c6c94dd5c40abd1172d27bd0385b83ea
// files: polars/polars-core/src/frame/groupby/perfect.rs (group_tuples_perfect), polars/polars-core/src/hashing/partition.rs (this_partition), polars/polars-core/src/utils/mod.rs (_set_partition_size)
// lint: false_sharing
// release with the bug: none on crates.io (the multithreaded path existed only between #7951 and this fix; polars-core 0.28.0 still had `todo!()` there)
// first fixed release: polars-core 0.29.0
//
// Perfect-hash group-by for categoricals: one group Vec and one `first` slot
// per category id, filled by `n_parts` rayon tasks that each scan all rows
// and keep the ids belonging to them. Ownership was decided by
// `this_partition(id, thread_no, n_parts)`, i.e. `id & (n_parts - 1) ==
// thread_no`, so task t owned ids t, t + n, t + 2n, ...: neighbouring ids --
// neighbouring 4-byte `first` slots and 24-byte Vec headers -- belong to
// different tasks, and every row rewrites both ("always write first /
// branchless"). All tasks therefore hammer the same cache lines for the whole
// scan. The fix (">2x" faster) gives each task a contiguous id range whose
// bounds are rounded to 64-byte lines, so tasks only meet at line borders.
use rayon::prelude::*;

struct SyncPtr<T>(*mut T);
unsafe impl<T> Send for SyncPtr<T> {}
unsafe impl<T> Sync for SyncPtr<T> {}
impl<T> SyncPtr<T> {
    fn get(&self) -> *mut T {
        self.0
    }
}

/// Power of two at or above the thread count.
fn partition_count() -> usize {
    rayon::current_num_threads().next_power_of_two()
}

/// Does id `h` belong to partition `part` of `n` (a power of two)?
fn this_partition(h: u64, part: u64, n: u64) -> bool {
    (h & (n - 1)) == part
}

fn perfect_groups(cats: &[u32], n_groups: usize) -> (Vec<Vec<u32>>, Vec<u32>) {
    let len = n_groups;
    let mut groups: Vec<Vec<u32>> = vec![Vec::new(); len];
    let mut first: Vec<u32> = vec![0; len];
    let groups_ptr = SyncPtr(groups.as_mut_ptr());
    let first_ptr = SyncPtr(first.as_mut_ptr());
    let n_parts = partition_count();

    (0..n_parts).into_par_iter().for_each(|part| {
        for (row, &cat) in cats.iter().enumerate() {
            if this_partition(cat as u64, part as u64, n_parts as u64) {
                let cat = cat as usize;
                unsafe {
                    let buf = &mut *groups_ptr.get().add(cat);
                    buf.push(row as u32);
                    *first_ptr.get().add(cat) = buf[0]; //~ false_sharing
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
