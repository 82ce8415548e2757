// repository: https://github.com/pola-rs/polars
// fix commit: 11bd08ec233c5c65729721e1d2df5fb165299d2e
// files: crates/polars-core/src/frame/group_by/perfect.rs
// lint: alias_race
// release with the bug: polars-core 0.43.1
// first fixed release: polars-core 0.44.0
//
// `group_tuples_perfect` builds one group (a Vec of row numbers) per category
// id in parallel: the id space is cut into per-thread ranges aligned to cache
// lines, and every thread scans all rows and handles only ids in its range.
// To write, each thread turned the shared `SyncPtr` back into
// `slice::from_raw_parts_mut(ptr, len)` covering the *whole* groups and
// `first` arrays, so all threads held overlapping `&mut [..]` to the same two
// buffers at once (the comment said "we don't alias"); the element writes were
// disjoint but the references were not. The fix keeps raw pointers per thread
// and forms `&mut *groups.add(cat)` for just the one element being updated.
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

/// Per-thread id ranges, each rounded up to a multiple of a 64-byte line.
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
        // every thread takes the whole of both buffers
        let groups = unsafe { std::slice::from_raw_parts_mut(groups_ptr.get(), len) }; //~ alias_race
        let first = unsafe { std::slice::from_raw_parts_mut(first_ptr.get(), len) }; //~ alias_race
        for (row, &cat) in cats.iter().enumerate() {
            if cat >= start && cat < end {
                let buf = &mut groups[cat as usize];
                buf.push(row as u32);
                if buf.len() == 1 {
                    first[cat as usize] = row as u32;
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
