// repository: https://github.com/huggingface/candle
// fix commit: c1e6756a89faefa888ea57b056394a0619925b87
// files: candle-core/src/quantized/mod.rs
// lint: use_after_free
// release with the bug: candle-core 0.10.2
// first fixed release: candle-core 0.11.0
//
// Quantized weights arrive as `Cow<[u8]>` (borrowed from a memory-mapped file, or owned
// after a copy) and are reinterpreted as a slice of the element type before being copied
// into the tensor storage. The reinterpreting helper took the `Cow` by value, built a
// typed slice with `slice::from_raw_parts` from its data pointer, and returned that
// slice. With `Cow::Borrowed` the bytes outlive the call, but with `Cow::Owned` the
// vector is the helper's own parameter and is freed when the helper returns, so the
// caller copied the weights out of freed memory. Lifetime elision tied the returned
// slice to the `Cow`'s borrow parameter, which is why it compiled. The fix makes the
// helper take `&[u8]`; callers deref their `Cow` first and keep it alive.

use std::borrow::Cow;

#[derive(Clone, Copy)]
pub enum QDType {
    F32,
    F16Bits,
}

fn bytes_as<T>(data: &[u8]) -> &[T] {
    let size = std::mem::size_of::<T>();
    assert_eq!(data.len() % size, 0, "length must be a multiple of the element size");
    let ptr = data.as_ptr();
    assert_eq!(ptr as usize % std::mem::align_of::<T>(), 0, "misaligned weights");
    unsafe { std::slice::from_raw_parts(ptr as *const T, data.len() / size) }
}

pub trait QuantBlocks {
    fn block_count(&self) -> usize;
}

impl QuantBlocks for Vec<f32> {
    fn block_count(&self) -> usize {
        self.len()
    }
}

impl QuantBlocks for Vec<u16> {
    fn block_count(&self) -> usize {
        self.len()
    }
}

impl QDType {
    pub fn load(&self, data: Cow<'_, [u8]>) -> Box<dyn QuantBlocks> {
        // The `Cow` stays owned here until the copies below are done.
        let data: &[u8] = &data;
        match self {
            QDType::F32 => Box::new(bytes_as::<f32>(data).to_vec()),
            QDType::F16Bits => Box::new(bytes_as::<u16>(data).to_vec()),
        }
    }
}

pub fn load_owned(bytes: Vec<u8>, dtype: QDType) -> usize {
    dtype.load(Cow::Owned(bytes)).block_count()
}
