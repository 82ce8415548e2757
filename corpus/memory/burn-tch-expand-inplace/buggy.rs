// repository: https://github.com/tracel-ai/burn
// fix commit: 6b61ad5a614049d164c38883bb16ea2dd4b785d9
// files: crates/burn-tch/src/ops/base.rs, crates/burn-tch/src/tensor.rs
// lint: unsafe_inplace
// release with the bug: burn-tch 0.13.2
// first fixed release: burn-tch 0.14.0
//
// The LibTorch backend of burn decides at run time whether an element-wise op may
// overwrite its input: each wrapper tensor carries a reference-counted token for its
// buffer, and when the count is one the op calls the in-place LibTorch kernel (`add_`)
// instead of allocating. `expand` returned a broadcast view (stride 0 along the new
// axis) of the parent's buffer, but wrapped it with a fresh token as if it were a new
// buffer. A following `tensor + 1` therefore saw a sole owner and ran the in-place add
// on the broadcast view, where many indices name one element: the element is written
// once per index and LibTorch rejects it ("more than one element of the written-to
// tensor refers to a single memory location"). The fix shares the parent's token with
// the expanded view and also refuses the in-place path for any view with a zero stride.

use std::sync::Arc;

/// Stand-in for `tch::Tensor`: a handle to LibTorch storage with strides.
pub mod tch {
    pub struct Tensor {
        _handle: *mut u8,
    }
    impl Tensor {
        pub fn data_ptr(&self) -> usize {
            unimplemented!()
        }
        pub fn stride(&self) -> Vec<i64> {
            unimplemented!()
        }
        pub fn broadcast_to(&self, _shape: &[i64]) -> Tensor {
            unimplemented!("a stride-0 view of the same storage")
        }
        pub fn f_add_scalar_(&mut self, _v: i64) -> Result<Tensor, String> {
            unimplemented!("in place: writes every element of `self`")
        }
        pub fn f_add_scalar(&self, _v: i64) -> Result<Tensor, String> {
            unimplemented!("out of place")
        }
    }
}

pub struct TorchTensor {
    pub tensor: tch::Tensor,
    /// One token per buffer; clones of the wrapper share it.
    pub buffer: Arc<usize>,
}

impl TorchTensor {
    pub fn new(tensor: tch::Tensor) -> TorchTensor {
        let buffer = Arc::new(tensor.data_ptr());
        TorchTensor { tensor, buffer }
    }

    /// A result that may share its parent's buffer keeps the parent's token.
    pub fn from_parent(tensor: tch::Tensor, parent: Arc<usize>) -> TorchTensor {
        if tensor.data_ptr() == *parent {
            TorchTensor { tensor, buffer: parent }
        } else {
            TorchTensor::new(tensor)
        }
    }

    pub fn can_mut(&self) -> bool {
        Arc::strong_count(&self.buffer) == 1
    }

    pub fn unary_op<FOwn, FRef>(self, own: FOwn, by_ref: FRef) -> TorchTensor
    where
        FOwn: Fn(tch::Tensor) -> tch::Tensor,
        FRef: Fn(&tch::Tensor) -> tch::Tensor,
    {
        if !self.can_mut() {
            return TorchTensor::from_parent(by_ref(&self.tensor), self.buffer);
        }
        TorchTensor::from_parent(own(self.tensor), self.buffer)
    }
}

pub fn expand(t: TorchTensor, shape: &[i64]) -> TorchTensor {
    let view = t.tensor.broadcast_to(shape);
    TorchTensor::new(view)
}

pub fn add_scalar(lhs: TorchTensor, v: i64) -> TorchTensor {
    lhs.unary_op(
        |mut t| t.f_add_scalar_(v).unwrap(), //~ unsafe_inplace
        |t| t.f_add_scalar(v).unwrap(),
    )
}

/// `[1, 2, 3]` expanded to 2 x 3, plus one.
pub fn expanded_plus_one(row: TorchTensor) -> TorchTensor {
    let grid = expand(row, &[2, 3]);
    add_scalar(grid, 1)
}
