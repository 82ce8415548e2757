// repository: https://github.com/tracel-ai/burn
// fix commit: 5b3bd6c252058fcda11a600957b1ce666c22672e
// files: crates/burn-ndarray/src/sharing.rs, crates/burn-ndarray/src/ops/maxpool.rs (and the other run_par! callers: avgpool, adaptive_avgpool, conv, interpolate, matmul, grid_sample)
// lint: alias_race
// release with the bug: burn-ndarray 0.21.0 (also 0.22.0-pre.1, 0.22.0-pre.2)
// first fixed release: burn-ndarray 0.22.0-pre.3 (stable: 0.22.0)
//
// The CPU backend hands one output array to many rayon iterations through a
// `Sync` wrapper around `UnsafeCell<&mut Array4>`. Its `get` copies the stored
// `&mut` out of the cell, so every parallel iteration holds its own live `&mut`
// to the *whole* output array at the same time and then writes its own
// (batch, channel) plane through it. The element writes are disjoint, but a
// `&mut` asserts exclusive access to everything it covers, so each new handle
// invalidates all handles already handed out (Miri: tag does not exist in the
// borrow stack) and the compiler may assume no other thread touches the array.
// The fix stores a raw view instead and manufactures an independent
// `ArrayViewMut` per call, so no `&mut` to the array as a whole ever exists.
use core::cell::UnsafeCell;
use ndarray::Array4;
use rayon::prelude::*;

/// Lets parallel tasks write "their own" part of one array.
struct SharedOut<'a, T> {
    slot: UnsafeCell<&'a mut T>,
}

unsafe impl<T> Sync for SharedOut<'_, T> {}

impl<'a, T> SharedOut<'a, T> {
    fn new(target: &'a mut T) -> Self {
        SharedOut { slot: UnsafeCell::new(target) }
    }

    /// Hands out another `&mut` to the whole target.
    unsafe fn get(&self) -> &'a mut T {
        unsafe { core::ptr::read(self.slot.get()) }
    }
}

/// Max-pooling with a 2x2 window and stride 2, one rayon iteration per plane.
fn pool_2x2(input: &Array4<f32>) -> Array4<f32> {
    let (batch, chans, h, w) = input.dim();
    let (oh, ow) = (h / 2, w / 2);
    let mut out = Array4::from_elem((batch, chans, oh, ow), f32::NEG_INFINITY);
    let shared = SharedOut::new(&mut out);

    (0..batch * chans).into_par_iter().for_each(|plane| unsafe {
        let b = plane / chans;
        let c = plane % chans;
        let out = shared.get();
        for y in 0..oh {
            for x in 0..ow {
                let mut best = f32::NEG_INFINITY;
                for dy in 0..2 {
                    for dx in 0..2 {
                        best = best.max(input[[b, c, 2 * y + dy, 2 * x + dx]]);
                    }
                }
                out[[b, c, y, x]] = best; //~ alias_race
            }
        }
    });
    out
}

fn main() {
    let x = Array4::from_shape_fn((2, 3, 4, 4), |(b, c, y, x)| (b + c + y * x) as f32);
    println!("{:?}", pool_2x2(&x).dim());
}
