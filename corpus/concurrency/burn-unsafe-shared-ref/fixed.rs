// repository: https://github.com/tracel-ai/burn
// fix commit: 5b3bd6c252058fcda11a600957b1ce666c22672e
// files: crates/burn-ndarray/src/sharing.rs, crates/burn-ndarray/src/ops/maxpool.rs (and the other run_par! callers)
// lint: alias_race
// release with the bug: burn-ndarray 0.21.0 (also 0.22.0-pre.1, 0.22.0-pre.2)
// first fixed release: burn-ndarray 0.22.0-pre.3 (stable: 0.22.0)
//
// Fixed shape: the wrapper keeps a raw view of the array and each `get` builds a
// fresh `ArrayViewMut` from it, so parallel iterations never hold a `&mut` to the
// whole array; each iteration still writes only its own (batch, channel) plane.
use core::marker::PhantomData;
use ndarray::{Array4, ArrayViewMut4, RawArrayViewMut, Ix4};
use rayon::prelude::*;

struct SharedOut<'a> {
    raw: RawArrayViewMut<f32, Ix4>,
    _borrow: PhantomData<&'a mut f32>,
}

unsafe impl Sync for SharedOut<'_> {}

impl<'a> SharedOut<'a> {
    fn new(target: &'a mut Array4<f32>) -> Self {
        SharedOut { raw: target.raw_view_mut(), _borrow: PhantomData }
    }

    /// Safety: views handed out concurrently must touch disjoint elements.
    unsafe fn get(&self) -> ArrayViewMut4<'a, f32> {
        unsafe { self.raw.clone().deref_into_view_mut() }
    }
}

fn pool_2x2(input: &Array4<f32>) -> Array4<f32> {
    let (batch, chans, h, w) = input.dim();
    let (oh, ow) = (h / 2, w / 2);
    let mut out = Array4::from_elem((batch, chans, oh, ow), f32::NEG_INFINITY);
    let shared = SharedOut::new(&mut out);

    (0..batch * chans).into_par_iter().for_each(|plane| unsafe {
        let b = plane / chans;
        let c = plane % chans;
        let mut out = shared.get();
        for y in 0..oh {
            for x in 0..ow {
                let mut best = f32::NEG_INFINITY;
                for dy in 0..2 {
                    for dx in 0..2 {
                        best = best.max(input[[b, c, 2 * y + dy, 2 * x + dx]]);
                    }
                }
                out[[b, c, y, x]] = best;
            }
        }
    });
    out
}

fn main() {
    let x = Array4::from_shape_fn((2, 3, 4, 4), |(b, c, y, x)| (b + c + y * x) as f32);
    println!("{:?}", pool_2x2(&x).dim());
}
