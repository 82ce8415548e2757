// repository: https://github.com/pola-rs/polars
// fix commit: 7a519e8c827d4e6137cde57cf9eecd589a1db27d
// files: polars/polars-lazy/src/physical_plan/expressions/window.rs (set_by_groups / set_numeric), polars/polars-arrow/src/bit_util.rs (unset_bit_raw), polars/polars-core/src/utils/mod.rs (_split_offsets)
// lint: alias_race
// release with the bug: polars-lazy 0.27.2
// first fixed release: polars-lazy 0.28.0
//
// Fixed shape: one `bool` per row, written like the values (disjoint bytes
// per row), packed into a bitmap only after the parallel loop.
use rayon::prelude::*;

struct SyncPtr<T>(*mut T);
unsafe impl<T> Send for SyncPtr<T> {}
unsafe impl<T> Sync for SyncPtr<T> {}
impl<T> SyncPtr<T> {
    fn get(&self) -> *mut T {
        self.0
    }
}

fn split_offsets(len: usize, n: usize) -> Vec<(usize, usize)> {
    let chunk = len / n;
    (0..n)
        .map(|p| {
            let off = p * chunk;
            (off, if p == n - 1 { len - off } else { chunk })
        })
        .collect()
}

fn pack_bits(flags: &[bool]) -> Vec<u8> {
    flags
        .chunks(8)
        .map(|c| c.iter().enumerate().fold(0u8, |b, (i, &f)| b | ((f as u8) << i)))
        .collect()
}

fn set_by_groups(aggs: &[Option<f64>], groups: &[[usize; 2]], rows: usize) -> (Vec<f64>, Vec<u8>) {
    let mut values = vec![0.0f64; rows];
    let mut validity = vec![true; rows];
    let values_ptr = SyncPtr(values.as_mut_ptr());
    let validity_ptr = SyncPtr(validity.as_mut_ptr());

    let parts = split_offsets(groups.len(), rayon::current_num_threads());
    parts.par_iter().for_each(|&(offset, len)| {
        for g in offset..offset + len {
            let [start, g_len] = groups[g];
            for row in start..start + g_len {
                unsafe {
                    match aggs[g] {
                        Some(v) => {
                            *values_ptr.get().add(row) = v;
                            *validity_ptr.get().add(row) = true;
                        }
                        None => {
                            *values_ptr.get().add(row) = 0.0;
                            *validity_ptr.get().add(row) = false;
                        }
                    }
                }
            }
        }
    });
    (values, pack_bits(&validity))
}

fn main() {
    let groups: Vec<[usize; 2]> = (0..1000).map(|g| [g * 3, 3]).collect();
    let aggs: Vec<Option<f64>> = (0..1000).map(|g| (g % 2 == 0).then_some(g as f64)).collect();
    let (v, bits) = set_by_groups(&aggs, &groups, 3000);
    println!("{} {:08b}", v[3], bits[0]);
}
