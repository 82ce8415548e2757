// repository: https://github.com/pola-rs/polars
// fix commit: 7a519e8c827d4e6137cde57cf9eecd589a1db27d
// files: polars/polars-lazy/src/physical_plan/expressions/window.rs (set_by_groups / set_numeric), polars/polars-arrow/src/bit_util.rs (unset_bit_raw), polars/polars-core/src/utils/mod.rs (_split_offsets)
// lint: alias_race
// release with the bug: polars-lazy 0.27.2
// first fixed release: polars-lazy 0.28.0
//
// The window-expression fast path broadcasts each group's aggregate back to
// the group's rows: the groups are cut into per-thread runs with
// `_split_offsets`, and each rayon task writes the value of every row of its
// groups through a `SyncPtr` to the output values, and for a null aggregate
// clears the row's bit in a packed validity bitmap with `unset_bit_raw`
// (`*data.add(i >> 3) ^= mask`). Values are disjoint per row, but eight rows
// share one bitmap byte, so two tasks whose rows meet inside a byte both do a
// non-atomic read-modify-write of that byte; one thread's cleared bit can be
// overwritten by the other's stale byte (the commit says "bits will have
// race conditions"). The fix writes one `bool` per row into a `Vec<bool>`
// (disjoint bytes) and packs it into a bitmap after the parallel loop.
use rayon::prelude::*;

struct SyncPtr<T>(*mut T);
unsafe impl<T> Send for SyncPtr<T> {}
unsafe impl<T> Sync for SyncPtr<T> {}
impl<T> SyncPtr<T> {
    fn get(&self) -> *mut T {
        self.0
    }
}

/// Clears bit `i` of a packed bitmap.
unsafe fn unset_bit_raw(data: *mut u8, i: usize) {
    unsafe { *data.add(i >> 3) &= !(1u8 << (i & 7)) };
}

/// `n` contiguous (offset, len) parts covering `0..len`.
fn split_offsets(len: usize, n: usize) -> Vec<(usize, usize)> {
    let chunk = len / n;
    (0..n)
        .map(|p| {
            let off = p * chunk;
            (off, if p == n - 1 { len - off } else { chunk })
        })
        .collect()
}

/// Scatters one aggregate per group (`[start, len]` row ranges) to its rows.
fn set_by_groups(aggs: &[Option<f64>], groups: &[[usize; 2]], rows: usize) -> (Vec<f64>, Vec<u8>) {
    let mut values = vec![0.0f64; rows];
    let mut validity = vec![0xFFu8; rows.div_ceil(8)];
    let values_ptr = SyncPtr(values.as_mut_ptr());
    let validity_ptr = SyncPtr(validity.as_mut_ptr());

    let parts = split_offsets(groups.len(), rayon::current_num_threads());
    parts.par_iter().for_each(|&(offset, len)| {
        for g in offset..offset + len {
            let [start, g_len] = groups[g];
            for row in start..start + g_len {
                unsafe {
                    match aggs[g] {
                        Some(v) => *values_ptr.get().add(row) = v,
                        None => {
                            *values_ptr.get().add(row) = 0.0;
                            unset_bit_raw(validity_ptr.get(), row) //~ alias_race
                        }
                    }
                }
            }
        }
    });
    (values, validity)
}

fn main() {
    let groups: Vec<[usize; 2]> = (0..1000).map(|g| [g * 3, 3]).collect();
    let aggs: Vec<Option<f64>> = (0..1000).map(|g| (g % 2 == 0).then_some(g as f64)).collect();
    let (v, bits) = set_by_groups(&aggs, &groups, 3000);
    println!("{} {:08b}", v[3], bits[0]);
}
