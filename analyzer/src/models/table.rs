//! The built-in model tables: method names and path suffixes of ndarray, std, alloc,
//! rayon, crossbeam, threads and PyTorch-style tensors, each mapped to its [`Sem`], and
//! the names of library types, macros and methods that are not memory effects.
//!
//! Adding a library is adding rows here; a user's `[[models]]` in `tensor-lint.toml`
//! become rows of the same table ([`super::Models`]).

use super::{
    Adapter, AtomicOp, Ctor, ForEach, LayoutCtor, LeakKind, Meta, ParKind, ReleaseHow, Sem,
    TypeSize, ViewKind, WrapKind,
};
use crate::ir::TyClass;

/// A name in a table: written out, or a prefix shared by a family (`fetch_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Name {
    Exact(&'static str),
    Prefix(&'static str),
}

impl Name {
    pub fn matches(self, name: &str) -> bool {
        match self {
            Name::Exact(n) => n == name,
            Name::Prefix(p) => name.starts_with(p),
        }
    }
}

/// Methods of ndarray arrays, std slices and vectors, raw pointers and rayon iterators.
pub const METHODS: &[(&str, Sem)] = &[
    // new memory
    ("to_owned", Sem::Alloc(Ctor::Like(0))),
    ("to_vec", Sem::Alloc(Ctor::Like(0))),
    ("into_owned", Sem::Alloc(Ctor::Like(0))),
    ("mapv", Sem::Alloc(Ctor::Like(0))),
    ("map", Sem::Par(ParKind::Adapter(Adapter::Map))),
    ("clone", Sem::Clone),
    // views of the receiver
    ("view", Sem::View(ViewKind::Whole)),
    ("view_mut", Sem::View(ViewKind::Whole)),
    ("as_slice", Sem::View(ViewKind::Whole)),
    ("as_slice_mut", Sem::View(ViewKind::Whole)),
    ("as_mut_slice", Sem::View(ViewKind::Whole)),
    ("as_slice_memory_order", Sem::View(ViewKind::Whole)),
    ("as_slice_memory_order_mut", Sem::View(ViewKind::Whole)),
    ("as_ref", Sem::View(ViewKind::Whole)),
    ("as_mut", Sem::View(ViewKind::Whole)),
    ("borrow", Sem::View(ViewKind::Whole)),
    ("borrow_mut", Sem::View(ViewKind::Whole)),
    ("deref", Sem::View(ViewKind::Whole)),
    ("deref_mut", Sem::View(ViewKind::Whole)),
    ("raw_view", Sem::View(ViewKind::Whole)),
    ("raw_view_mut", Sem::View(ViewKind::Whole)),
    ("cell_view", Sem::View(ViewKind::Whole)),
    ("reborrow", Sem::View(ViewKind::Whole)),
    ("into_slice", Sem::View(ViewKind::Whole)),
    ("slice", Sem::View(ViewKind::SliceMacro)),
    ("slice_mut", Sem::View(ViewKind::SliceMacro)),
    ("slice_move", Sem::View(ViewKind::SliceMacro)),
    ("slice_collapse", Sem::View(ViewKind::SliceMacro)),
    ("t", Sem::View(ViewKind::Transpose)),
    ("reversed_axes", Sem::View(ViewKind::Transpose)),
    ("swap_axes", Sem::View(ViewKind::TransposeDims)),
    ("permuted_axes", Sem::View(ViewKind::Permute)),
    ("broadcast", Sem::View(ViewKind::Broadcast)),
    ("into_shape", Sem::View(ViewKind::Reshape)),
    ("into_shape_with_order", Sem::View(ViewKind::Reshape)),
    ("into_shape_clone", Sem::Alloc(Ctor::Like(0))),
    ("to_shape", Sem::View(ViewKind::Reshape)),
    ("diag", Sem::View(ViewKind::Diag)),
    ("diag_mut", Sem::View(ViewKind::Diag)),
    ("index_axis", Sem::View(ViewKind::IndexAxis(None))),
    ("index_axis_mut", Sem::View(ViewKind::IndexAxis(None))),
    ("index_axis_move", Sem::View(ViewKind::IndexAxis(None))),
    ("row", Sem::View(ViewKind::IndexAxis(Some(0)))),
    ("row_mut", Sem::View(ViewKind::IndexAxis(Some(0)))),
    ("column", Sem::View(ViewKind::IndexAxis(Some(1)))),
    ("column_mut", Sem::View(ViewKind::IndexAxis(Some(1)))),
    ("split_at", Sem::View(ViewKind::SplitAt)),
    ("split_at_mut", Sem::View(ViewKind::SplitAt)),
    ("chunks", Sem::View(ViewKind::Chunks)),
    ("chunks_mut", Sem::View(ViewKind::Chunks)),
    ("chunks_exact", Sem::View(ViewKind::Chunks)),
    ("chunks_exact_mut", Sem::View(ViewKind::Chunks)),
    ("axis_chunks_iter", Sem::View(ViewKind::Chunks)),
    ("axis_chunks_iter_mut", Sem::View(ViewKind::Chunks)),
    ("exact_chunks", Sem::View(ViewKind::Chunks)),
    ("exact_chunks_mut", Sem::View(ViewKind::Chunks)),
    ("axis_iter", Sem::View(ViewKind::AxisIter)),
    ("axis_iter_mut", Sem::View(ViewKind::AxisIter)),
    ("outer_iter", Sem::View(ViewKind::AxisIter)),
    ("outer_iter_mut", Sem::View(ViewKind::AxisIter)),
    ("rows", Sem::View(ViewKind::AxisIter)),
    ("rows_mut", Sem::View(ViewKind::AxisIter)),
    ("iter", Sem::View(ViewKind::AxisIter)),
    ("iter_mut", Sem::View(ViewKind::AxisIter)),
    ("windows", Sem::View(ViewKind::Other)),
    ("lanes", Sem::View(ViewKind::Other)),
    ("lanes_mut", Sem::View(ViewKind::Other)),
    ("columns", Sem::View(ViewKind::Other)),
    ("columns_mut", Sem::View(ViewKind::Other)),
    // raw pointers
    ("as_ptr", Sem::RawPtr),
    ("as_mut_ptr", Sem::RawPtr),
    ("as_mut_ptr_range", Sem::RawPtr),
    ("as_ptr_range", Sem::RawPtr),
    ("cast", Sem::View(ViewKind::Whole)),
    ("cast_mut", Sem::View(ViewKind::Whole)),
    ("cast_const", Sem::View(ViewKind::Whole)),
    ("add", Sem::PtrStep(1)),
    ("offset", Sem::PtrStep(1)),
    ("wrapping_add", Sem::PtrStep(1)),
    ("wrapping_offset", Sem::PtrStep(1)),
    ("sub", Sem::PtrStep(-1)),
    ("wrapping_sub", Sem::PtrStep(-1)),
    ("read", Sem::PtrRead),
    ("read_unaligned", Sem::PtrRead),
    ("read_volatile", Sem::PtrRead),
    ("write", Sem::PtrWrite),
    ("write_unaligned", Sem::PtrWrite),
    ("write_volatile", Sem::PtrWrite),
    // in-place writes
    ("mapv_inplace", Sem::InPlace(0)),
    ("map_inplace", Sem::InPlace(0)),
    ("zip_mut_with", Sem::InPlace(0)),
    ("scaled_add", Sem::InPlace(0)),
    ("sort", Sem::InPlace(0)),
    ("sort_unstable", Sem::InPlace(0)),
    ("sort_by", Sem::InPlace(0)),
    ("reverse", Sem::InPlace(0)),
    ("rotate_left", Sem::InPlace(0)),
    ("fill", Sem::Overwrite(0)),
    ("assign", Sem::Overwrite(0)),
    ("copy_from_slice", Sem::Overwrite(0)),
    ("clone_from_slice", Sem::Overwrite(0)),
    // atomics: `swap` on a slice or array is in `BUFFER_METHODS`
    ("store", Sem::Atomic(AtomicOp::Store)),
    ("swap", Sem::Atomic(AtomicOp::Swap)),
    ("compare_exchange", Sem::Atomic(AtomicOp::CompareExchange)),
    (
        "compare_exchange_weak",
        Sem::Atomic(AtomicOp::CompareExchange),
    ),
    ("fetch_add", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("fetch_sub", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("fetch_max", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("fetch_min", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("fetch_or", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("fetch_and", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("fetch_xor", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("fetch_nand", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("fetch_update", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("push", Sem::StoreArg(1)),
    ("insert", Sem::StoreArg(2)),
    ("extend_from_slice", Sem::InPlace(0)),
    // ownership
    ("into_raw", Sem::Leak(LeakKind::IntoRaw, 0)),
    ("into_raw_parts", Sem::Leak(LeakKind::IntoRaw, 0)),
    ("leak", Sem::Leak(LeakKind::Leak, 0)),
    ("into_boxed_slice", Sem::View(ViewKind::Whole)),
    // parallel iteration
    ("par_iter", Sem::Par(ParKind::Elements)),
    ("par_iter_mut", Sem::Par(ParKind::Elements)),
    ("into_par_iter", Sem::Par(ParKind::Elements)),
    ("par_bridge", Sem::Par(ParKind::Elements)),
    ("par_chunks", Sem::Par(ParKind::Chunks)),
    ("par_chunks_mut", Sem::Par(ParKind::Chunks)),
    ("par_chunks_exact", Sem::Par(ParKind::Chunks)),
    ("par_chunks_exact_mut", Sem::Par(ParKind::Chunks)),
    ("par_rchunks_mut", Sem::Par(ParKind::Chunks)),
    ("enumerate", Sem::Par(ParKind::Adapter(Adapter::Enumerate))),
    ("zip", Sem::Par(ParKind::Adapter(Adapter::Zip))),
    ("with_min_len", Sem::Par(ParKind::Adapter(Adapter::Keep))),
    ("with_max_len", Sem::Par(ParKind::Adapter(Adapter::Keep))),
    ("step_by", Sem::Par(ParKind::Adapter(Adapter::Keep))),
    ("filter", Sem::Par(ParKind::Adapter(Adapter::Keep))),
    ("rev", Sem::Par(ParKind::Adapter(Adapter::Keep))),
    ("take", Sem::Par(ParKind::Adapter(Adapter::Keep))),
    ("skip", Sem::Par(ParKind::Adapter(Adapter::Keep))),
    ("for_each", Sem::Par(ParKind::Consume)),
    ("for_each_with", Sem::Par(ParKind::Consume)),
    ("for_each_init", Sem::Par(ParKind::Consume)),
    ("try_for_each", Sem::Par(ParKind::Consume)),
    (
        "par_for_each",
        Sem::Par(ParKind::ArrayForEach(ForEach::Items)),
    ),
    (
        "par_map_inplace",
        Sem::Par(ParKind::ArrayForEach(ForEach::MapInPlace)),
    ),
    (
        "par_mapv_inplace",
        Sem::Par(ParKind::ArrayForEach(ForEach::MapvInPlace)),
    ),
    ("par_apply", Sem::Par(ParKind::ArrayForEach(ForEach::Items))),
    ("and", Sem::ZipFrom),
    ("spawn", Sem::Spawn),
    // reads that return something new or a scalar
    ("sum", Sem::Read),
    ("mean", Sem::Read),
    ("dot", Sem::Read),
    ("len", Sem::Metadata(Meta::Count)),
    ("nrows", Sem::Metadata(Meta::Rows)),
    ("ncols", Sem::Metadata(Meta::Cols)),
    ("is_empty", Sem::Metadata(Meta::Other)),
    ("shape", Sem::Metadata(Meta::Shape)),
    ("dim", Sem::Metadata(Meta::Dim)),
    ("raw_dim", Sem::Metadata(Meta::Shape)),
    ("ndim", Sem::Metadata(Meta::Other)),
    ("load", Sem::Atomic(AtomicOp::Load)),
    ("get", Sem::Read),
    ("first", Sem::Read),
    ("last", Sem::Read),
    ("fold", Sem::Read),
    ("contains", Sem::Read),
    // shapes for `from_shape_ptr`
    ("strides", Sem::ShapeStrides),
    ("f", Sem::ShapeStrides),
    // results that are the receiver as far as memory is concerned
    ("unwrap", Sem::Transparent),
    ("expect", Sem::Transparent),
    ("unwrap_unchecked", Sem::Transparent),
    ("assume_init", Sem::Transparent),
    ("into_iter", Sem::Transparent),
    ("copied", Sem::Transparent),
    ("cloned", Sem::Transparent),
    ("by_ref", Sem::Transparent),
    ("as_deref", Sem::Transparent),
    ("as_deref_mut", Sem::Transparent),
    // raw pointers tested for null
    ("is_null", Sem::NullTest),
];

/// Methods of the matrix views of faer and nalgebra, consulted first for arrays and
/// array views (a raw pointer's `copy_from` is a `memmove`, not an overwrite).
pub const MATRIX_METHODS: &[(&str, Sem)] = &[
    ("copy_from", Sem::Overwrite(0)),
    ("split_at_row", Sem::View(ViewKind::SplitOn(0))),
    ("split_at_row_mut", Sem::View(ViewKind::SplitOn(0))),
    ("split_at_col", Sem::View(ViewKind::SplitOn(1))),
    ("split_at_col_mut", Sem::View(ViewKind::SplitOn(1))),
    ("submatrix", Sem::View(ViewKind::Block)),
    ("submatrix_mut", Sem::View(ViewKind::Block)),
    ("view_range", Sem::View(ViewKind::Ranges)),
    ("view_range_mut", Sem::View(ViewKind::Ranges)),
    ("columns_range_pair_mut", Sem::View(ViewKind::RangePair(1))),
    ("rows_range_pair_mut", Sem::View(ViewKind::RangePair(0))),
    ("par_col_chunks_mut", Sem::Par(ParKind::ColumnChunks)),
];

/// Matrix types of faer and nalgebra: two-dimensional arrays (owned) and views.
pub const MATRIX_TYPES: &[&str] = &[
    "MatMut",
    "MatRef",
    "DMatrix",
    "DMatrixView",
    "DMatrixViewMut",
    "MatrixView",
    "MatrixViewMut",
];

/// Methods that mean something else on a slice, array or vector than on the atomics that
/// share their names, consulted first for those receivers.
pub const BUFFER_METHODS: &[(&str, Sem)] = &[("swap", Sem::InPlace(0))];

/// Methods of PyTorch-style tensors (tch naming), consulted first for `Tensor`s.
pub const TCH_METHODS: &[(&str, Sem)] = &[
    ("shallow_clone", Sem::Share),
    ("copy", Sem::Alloc(Ctor::Like(0))),
    ("deep_clone", Sem::Alloc(Ctor::Like(0))),
    ("detach", Sem::Share),
    ("detach_copy", Sem::Alloc(Ctor::Like(0))),
    ("contiguous", Sem::Alloc(Ctor::Like(0))),
    ("expand", Sem::View(ViewKind::Broadcast)),
    ("expand_as", Sem::View(ViewKind::Broadcast)),
    ("broadcast_to", Sem::View(ViewKind::Broadcast)),
    ("narrow", Sem::View(ViewKind::Narrow)),
    ("slice", Sem::View(ViewKind::TchSlice)),
    ("tr", Sem::View(ViewKind::Transpose)),
    ("t_", Sem::InPlace(0)),
    ("transpose", Sem::View(ViewKind::TransposeDims)),
    ("permute", Sem::View(ViewKind::Permute)),
    ("view", Sem::View(ViewKind::Reshape)),
    ("view_", Sem::View(ViewKind::Reshape)),
    ("reshape", Sem::View(ViewKind::Reshape)),
    ("flatten", Sem::View(ViewKind::Reshape)),
    ("squeeze", Sem::View(ViewKind::Other)),
    ("unsqueeze", Sem::View(ViewKind::Other)),
    ("select", Sem::View(ViewKind::IndexAxis(None))),
    ("get", Sem::View(ViewKind::IndexAxis(Some(0)))),
    ("i", Sem::View(ViewKind::TchIndex)),
    ("diagonal", Sem::View(ViewKind::Diag)),
    ("chunk", Sem::View(ViewKind::Chunks)),
    ("split", Sem::View(ViewKind::Chunks)),
    ("unbind", Sem::View(ViewKind::AxisIter)),
    ("set_requires_grad", Sem::RequiresGrad),
    ("requires_grad_", Sem::RequiresGrad),
    ("copy_", Sem::Overwrite(0)),
    // candle: views, and the few ops that write a tensor's storage in place
    ("broadcast_as", Sem::View(ViewKind::Broadcast)),
    ("to_vec1", Sem::Alloc(Ctor::Like(0))),
    ("to_vec2", Sem::Alloc(Ctor::Like(0))),
    ("to_vec3", Sem::Alloc(Ctor::Like(0))),
    ("slice_set", Sem::SliceSet),
    ("inplace_op1", Sem::InPlace(0)),
    ("inplace_op2", Sem::InPlace(0)),
    ("inplace_op3", Sem::InPlace(0)),
    ("same_storage", Sem::SameStorage),
    ("fill_", Sem::Overwrite(0)),
    ("zero_", Sem::Overwrite(0)),
    ("backward", Sem::Read),
    ("size", Sem::Metadata(Meta::Shape)),
    ("numel", Sem::Metadata(Meta::Count)),
    ("double_value", Sem::Read),
    ("int64_value", Sem::Read),
    ("relu", Sem::Alloc(Ctor::Like(0))),
    ("sigmoid", Sem::Alloc(Ctor::Like(0))),
    ("tanh", Sem::Alloc(Ctor::Like(0))),
    ("exp", Sem::Alloc(Ctor::Like(0))),
    ("neg", Sem::Alloc(Ctor::Like(0))),
    ("matmul", Sem::Alloc(Ctor::Unknown)),
    ("mm", Sem::Alloc(Ctor::Unknown)),
    ("softmax", Sem::Alloc(Ctor::Like(0))),
    ("to_kind", Sem::Alloc(Ctor::Like(0))),
    ("to_device", Sem::Alloc(Ctor::Like(0))),
];

/// Out-of-place ops and the in-place form that reuses the input's buffer (for ndarray
/// arrays and PyTorch-style tensors alike; operators map to compound assignment).
/// `mapv` maps to `mapv_into_any`, not `mapv_into`: it returns what `mapv` returns
/// whatever the closure's element type, and reuses the buffer when that type is the
/// input's.
pub const INPLACE_FORMS: &[(&str, &str)] = &[
    ("mapv", "mapv_into_any"),
    ("+", "+="),
    ("-", "-="),
    ("*", "*="),
    ("/", "/="),
    ("%", "%="),
    ("relu", "relu_"),
    ("sigmoid", "sigmoid_"),
    ("tanh", "tanh_"),
    ("exp", "exp_"),
    ("neg", "neg_"),
    ("abs", "abs_"),
    ("sqrt", "sqrt_"),
    ("rsqrt", "rsqrt_"),
    ("log", "log_"),
    ("clamp", "clamp_"),
    ("add", "add_"),
    ("sub", "sub_"),
    ("mul", "mul_"),
    ("div", "div_"),
    ("pow_tensor_scalar", "pow_"),
    // tch spells the tensor-tensor arithmetic `g_add`, `g_add_`, ...
    ("g_add", "g_add_"),
    ("g_sub", "g_sub_"),
    ("g_mul", "g_mul_"),
    ("g_div", "g_div_"),
    ("g_add_scalar", "g_add_scalar_"),
    ("g_sub_scalar", "g_sub_scalar_"),
    ("g_mul_scalar", "g_mul_scalar_"),
    ("g_div_scalar", "g_div_scalar_"),
];

/// PyTorch ops whose backward pass reads their own output, so autograd saves it
/// (PyTorch's `derivatives.yaml` uses `result` for them): an in-place op on such an
/// output makes `backward` fail or compute a wrong gradient.
pub const SAVES_OUTPUT: &[&str] = &[
    "exp",
    "exp2",
    "expm1",
    "sigmoid",
    "tanh",
    "relu",
    "elu",
    "selu",
    "celu",
    "softmax",
    "log_softmax",
    "sqrt",
    "rsqrt",
    "reciprocal",
];

/// Methods of PyTorch-style tensors that share a name with float methods (`x.sqrt()`
/// on an `f32`): consulted only for receivers known to be tensors.
pub const TENSOR_ONLY_METHODS: &[(&str, Sem)] = &[
    ("log_softmax", Sem::Alloc(Ctor::Like(0))),
    ("abs", Sem::Alloc(Ctor::Like(0))),
    ("sqrt", Sem::Alloc(Ctor::Like(0))),
    ("rsqrt", Sem::Alloc(Ctor::Like(0))),
    ("log", Sem::Alloc(Ctor::Like(0))),
    ("clamp", Sem::Alloc(Ctor::Like(0))),
    ("elu", Sem::Alloc(Ctor::Like(0))),
    ("selu", Sem::Alloc(Ctor::Like(0))),
    ("celu", Sem::Alloc(Ctor::Like(0))),
    ("reciprocal", Sem::Alloc(Ctor::Like(0))),
    ("exp2", Sem::Alloc(Ctor::Like(0))),
    ("expm1", Sem::Alloc(Ctor::Like(0))),
    ("add", Sem::Alloc(Ctor::Like(0))),
    ("sub", Sem::Alloc(Ctor::Like(0))),
    ("mul", Sem::Alloc(Ctor::Like(0))),
    ("div", Sem::Alloc(Ctor::Like(0))),
    ("g_add", Sem::Alloc(Ctor::Like(0))),
    ("g_sub", Sem::Alloc(Ctor::Like(0))),
    ("g_mul", Sem::Alloc(Ctor::Like(0))),
    ("g_div", Sem::Alloc(Ctor::Like(0))),
    ("g_add_scalar", Sem::Alloc(Ctor::Like(0))),
    ("g_sub_scalar", Sem::Alloc(Ctor::Like(0))),
    ("g_mul_scalar", Sem::Alloc(Ctor::Like(0))),
    ("g_div_scalar", Sem::Alloc(Ctor::Like(0))),
];

/// Path calls, matched by their trailing segments (the longest match wins).
pub const PATHS: &[(&str, Sem)] = &[
    ("zeros", Sem::Alloc(Ctor::Shape(0))),
    ("ones", Sem::Alloc(Ctor::Shape(0))),
    ("from_elem", Sem::Alloc(Ctor::Shape(0))),
    ("uninit", Sem::Alloc(Ctor::Shape(0))),
    ("default", Sem::Alloc(Ctor::Shape(0))),
    ("from_shape_fn", Sem::Alloc(Ctor::Shape(0))),
    ("from_shape_vec", Sem::Alloc(Ctor::Shape(0))),
    ("from_shape_simple_fn", Sem::Alloc(Ctor::Shape(0))),
    ("from_vec", Sem::Alloc(Ctor::Like(0))),
    ("from_iter", Sem::Alloc(Ctor::Unknown)),
    ("linspace", Sem::Alloc(Ctor::Unknown)),
    ("range", Sem::Alloc(Ctor::Unknown)),
    ("eye", Sem::Alloc(Ctor::Unknown)),
    ("arr0", Sem::Alloc(Ctor::Unknown)),
    ("arr1", Sem::Alloc(Ctor::Literal(0))),
    ("arr2", Sem::Alloc(Ctor::Unknown)),
    ("arr3", Sem::Alloc(Ctor::Unknown)),
    ("Vec::new", Sem::Alloc(Ctor::Empty)),
    ("VecDeque::new", Sem::Alloc(Ctor::Empty)),
    ("Vec::with_capacity", Sem::Alloc(Ctor::Len(0))),
    ("Box::new", Sem::Wrap(WrapKind::Heap)),
    ("Arc::new", Sem::Wrap(WrapKind::Heap)),
    ("Rc::new", Sem::Wrap(WrapKind::Heap)),
    ("Pin::new", Sem::Wrap(WrapKind::Pin)),
    ("Tensor::zeros", Sem::Alloc(Ctor::Shape(0))),
    ("Tensor::ones", Sem::Alloc(Ctor::Shape(0))),
    ("Tensor::empty", Sem::Alloc(Ctor::Shape(0))),
    ("Tensor::randn", Sem::Alloc(Ctor::Shape(0))),
    ("Tensor::rand", Sem::Alloc(Ctor::Shape(0))),
    ("Tensor::full", Sem::Alloc(Ctor::Shape(0))),
    ("Tensor::arange", Sem::Alloc(Ctor::Unknown)),
    ("Tensor::from_slice", Sem::Alloc(Ctor::Like(0))),
    ("Tensor::of_slice", Sem::Alloc(Ctor::Like(0))),
    ("Tensor::zeros_like", Sem::Alloc(Ctor::Like(0))),
    ("Tensor::ones_like", Sem::Alloc(Ctor::Like(0))),
    ("Tensor::new", Sem::Alloc(Ctor::Unknown)),
    ("alloc::alloc", Sem::RawAlloc),
    ("alloc::alloc_zeroed", Sem::RawAlloc),
    ("alloc::realloc", Sem::Realloc),
    ("alloc::dealloc", Sem::Release(ReleaseHow::Dealloc, 0)),
    ("alloc", Sem::RawAlloc),
    ("alloc_zeroed", Sem::RawAlloc),
    ("realloc", Sem::Realloc),
    ("dealloc", Sem::Release(ReleaseHow::Dealloc, 0)),
    ("Box::from_raw", Sem::Release(ReleaseHow::BoxFromRaw, 0)),
    (
        "Vec::from_raw_parts",
        Sem::Release(ReleaseHow::BoxFromRaw, 0),
    ),
    ("Box::leak", Sem::Leak(LeakKind::Leak, 0)),
    ("Box::into_raw", Sem::Leak(LeakKind::IntoRaw, 0)),
    ("Vec::leak", Sem::Leak(LeakKind::Leak, 0)),
    ("mem::forget", Sem::Leak(LeakKind::Forget, 0)),
    ("forget", Sem::Leak(LeakKind::Forget, 0)),
    ("ManuallyDrop::new", Sem::Wrap(WrapKind::ManuallyDrop)),
    ("drop", Sem::Release(ReleaseHow::Drop, 0)),
    ("mem::drop", Sem::Release(ReleaseHow::Drop, 0)),
    ("ManuallyDrop::drop", Sem::Release(ReleaseHow::Drop, 0)),
    (
        "ptr::drop_in_place",
        Sem::Release(ReleaseHow::DropInPlace, 0),
    ),
    ("Arc::clone", Sem::Share),
    ("Rc::clone", Sem::Share),
    ("Clone::clone", Sem::Clone),
    ("from_raw_parts", Sem::FromRawParts),
    ("from_raw_parts_mut", Sem::FromRawParts),
    ("from_shape_ptr", Sem::FromShapePtr),
    // faer and nalgebra matrix views with explicit strides
    ("MatMut::from_raw_parts_mut", Sem::FromStrided),
    ("MatRef::from_raw_parts", Sem::FromStrided),
    ("mat::from_raw_parts_mut", Sem::FromStrided),
    ("mat::from_raw_parts", Sem::FromStrided),
    ("from_slice_with_strides_mut", Sem::FromStrided),
    ("from_slice_with_strides", Sem::FromStrided),
    // A C string borrowed for reading: what `to_owned`/`to_str` make of it is a copy.
    ("CStr::from_ptr", Sem::ViewOfArg(0)),
    ("NonNull::new", Sem::View(ViewKind::Whole)),
    ("NonNull::new_unchecked", Sem::View(ViewKind::Whole)),
    ("NonNull::from", Sem::RawPtr),
    ("ptr::read", Sem::PtrRead),
    ("mem::take", Sem::TakeOut),
    ("mem::replace", Sem::TakeOut),
    ("mem::swap", Sem::SwapPlaces),
    ("ptr::swap", Sem::SwapPlaces),
    ("ptr::swap_nonoverlapping", Sem::SwapPlaces),
    ("mem::transmute_copy", Sem::BitCopy(0)),
    ("transmute_copy", Sem::BitCopy(0)),
    ("ptr::write", Sem::PtrWrite),
    ("ptr::copy_nonoverlapping", Sem::WriteArg(1)),
    ("ptr::copy", Sem::WriteArg(1)),
    ("ptr::write_bytes", Sem::WriteArg(0)),
    ("rayon::join", Sem::Join),
    ("join", Sem::Join),
    ("rayon::scope", Sem::Scope),
    ("thread::scope", Sem::Scope),
    ("crossbeam::scope", Sem::Scope),
    ("crossbeam_utils::thread::scope", Sem::Scope),
    ("thread::spawn", Sem::ThreadSpawn),
    // Thread pools: every closure handed to one runs alongside the others and the
    // caller until the pool is joined.
    ("rayon::spawn", Sem::ThreadSpawn),
    ("rayon::spawn_fifo", Sem::ThreadSpawn),
    ("ThreadPool::execute", Sem::ThreadSpawn),
    ("ThreadPool::spawn", Sem::ThreadSpawn),
    ("ThreadPool::spawn_fifo", Sem::ThreadSpawn),
    ("Zip::from", Sem::ZipFrom),
    ("Zip::indexed", Sem::ZipFrom),
    ("no_grad", Sem::NoGrad),
    ("tch::no_grad", Sem::NoGrad),
    ("Layout::array", Sem::Layout(LayoutCtor::Array)),
    ("Layout::new", Sem::Layout(LayoutCtor::One)),
    (
        "Layout::from_size_align",
        Sem::Layout(LayoutCtor::SizeAlign),
    ),
    (
        "Layout::from_size_align_unchecked",
        Sem::Layout(LayoutCtor::SizeAlign),
    ),
    ("Axis", Sem::Transparent),
];

/// Type names whose class is known without a type checker.
pub const TYPE_CLASSES: &[(&str, TyClass)] = &[
    ("Array", TyClass::Array),
    ("Array0", TyClass::Array),
    ("Array1", TyClass::Array),
    ("Array2", TyClass::Array),
    ("Array3", TyClass::Array),
    ("Array4", TyClass::Array),
    ("Array5", TyClass::Array),
    ("Array6", TyClass::Array),
    ("ArrayD", TyClass::Array),
    ("ArcArray", TyClass::Array),
    ("ArcArray1", TyClass::Array),
    ("ArcArray2", TyClass::Array),
    ("ArrayBase", TyClass::Array),
    ("ArrayView", TyClass::ArrayView),
    ("ArrayView0", TyClass::ArrayView),
    ("ArrayView1", TyClass::ArrayView),
    ("ArrayView2", TyClass::ArrayView),
    ("ArrayView3", TyClass::ArrayView),
    ("ArrayView4", TyClass::ArrayView),
    ("ArrayViewD", TyClass::ArrayView),
    ("ArrayViewMut", TyClass::ArrayView),
    ("ArrayViewMut0", TyClass::ArrayView),
    ("ArrayViewMut1", TyClass::ArrayView),
    ("ArrayViewMut2", TyClass::ArrayView),
    ("ArrayViewMut3", TyClass::ArrayView),
    ("ArrayViewMut4", TyClass::ArrayView),
    ("ArrayViewMutD", TyClass::ArrayView),
    ("RawArrayView", TyClass::ArrayView),
    ("RawArrayViewMut", TyClass::ArrayView),
    ("MatMut", TyClass::ArrayView),
    ("MatRef", TyClass::ArrayView),
    ("DMatrix", TyClass::Array),
    ("DMatrixView", TyClass::ArrayView),
    ("DMatrixViewMut", TyClass::ArrayView),
    ("MatrixView", TyClass::ArrayView),
    ("MatrixViewMut", TyClass::ArrayView),
    ("Tensor", TyClass::Tensor),
    ("Vec", TyClass::Vec),
    ("VecDeque", TyClass::Vec),
    ("Box", TyClass::Vec),
    ("Arc", TyClass::Shared),
    ("Rc", TyClass::Shared),
    ("NonNull", TyClass::RawPtr),
    ("CachePadded", TyClass::Unknown),
];

/// Types whose values synchronise their own accesses.
pub const SYNCHRONISED_TYPES: &[Name] = &[
    Name::Prefix("Atomic"),
    Name::Exact("Mutex"),
    Name::Exact("RwLock"),
    Name::Exact("OnceLock"),
    Name::Exact("OnceCell"),
];

/// Iterator methods that gather the items into a new collection.
pub const COLLECTING_METHODS: &[&str] = &["collect", "collect_vec"];

/// Tensor libraries whose tensors have no in-place ops but for custom ones: an
/// out-of-place op there has no in-place form to suggest.
pub const IMMUTABLE_TENSOR_CRATES: &[&str] = &["candle_core", "candle"];

/// Atomic loads, stores and read-modify-writes.
pub const ATOMIC_METHODS: &[Name] = &[
    Name::Prefix("fetch_"),
    Name::Prefix("compare_exchange"),
    Name::Exact("store"),
    Name::Exact("swap"),
    Name::Exact("load"),
    Name::Exact("fetch_update"),
];

/// Bytes of the primitive scalar types and their atomics.
pub const SCALAR_BYTES: &[(&str, u32)] = &[
    ("u8", 1),
    ("i8", 1),
    ("bool", 1),
    ("AtomicU8", 1),
    ("AtomicI8", 1),
    ("AtomicBool", 1),
    ("u16", 2),
    ("i16", 2),
    ("f16", 2),
    ("bf16", 2),
    ("AtomicU16", 2),
    ("u32", 4),
    ("i32", 4),
    ("f32", 4),
    ("char", 4),
    ("AtomicU32", 4),
    ("AtomicI32", 4),
    ("u64", 8),
    ("i64", 8),
    ("f64", 8),
    ("usize", 8),
    ("isize", 8),
    ("AtomicU64", 8),
    ("AtomicI64", 8),
    ("AtomicUsize", 8),
    ("AtomicIsize", 8),
    ("u128", 16),
    ("i128", 16),
];

/// Element containers that point to one object (unless it is a slice): inside a buffer
/// such a pointer is the element, and its object is elsewhere.
pub const OBJECT_POINTERS: &[&str] = &["Box", "Rc", "Arc", "NonNull"];

/// Containers that are one-dimensional buffers.
pub const RANK_ONE_CONTAINERS: &[&str] = &["Vec", "Box"];

/// Array types whose name ends with their number of dimensions (`ArrayView2`).
pub const RANK_SUFFIXED_TYPES: &[Name] = &[Name::Prefix("Arr"), Name::Prefix("RawArr")];

/// Sizes of library types on a 64-bit target.
pub const TYPE_SIZES: &[(&str, TypeSize)] = &[
    ("Vec", TypeSize::Bytes(24)),
    ("String", TypeSize::Bytes(24)),
    ("VecDeque", TypeSize::Bytes(24)),
    ("Box", TypeSize::Bytes(8)),
    ("Arc", TypeSize::Bytes(8)),
    ("Rc", TypeSize::Bytes(8)),
    ("NonNull", TypeSize::Bytes(8)),
    ("AtomicPtr", TypeSize::Bytes(8)),
    // crossbeam pads to 128 bytes on x86_64 and aarch64.
    ("CachePadded", TypeSize::PaddedArg(128)),
    ("ManuallyDrop", TypeSize::OfArg),
    ("UnsafeCell", TypeSize::OfArg),
    ("Cell", TypeSize::OfArg),
    ("Wrapping", TypeSize::OfArg),
    // std's futex locks on Linux: a state word and a poison flag (and a writer
    // notification word for `RwLock`) before the data.
    ("Mutex", TypeSize::HeaderArg(8)),
    ("RwLock", TypeSize::HeaderArg(16)),
];

/// Element types padded to a whole cache line.
pub const PADDED_TYPES: &[&str] = &["CachePadded"];

/// Finds `name` in a table.
pub fn lookup<T: Copy>(table: &[(&str, T)], name: &str) -> Option<T> {
    table.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// Methods after which the threads spawned before have finished: a `JoinHandle`'s
/// `join`, a pool's `join` or `wait`. Threads spawned on either side of one do not run
/// together.
pub const THREAD_JOINS: &[&str] = &["join", "join_all", "wait", "wait_all"];

/// Calls (path suffixes and method names) that return the number of worker threads.
pub const THREAD_COUNT_CALLS: &[&str] = &[
    "rayon::current_num_threads",
    "current_num_threads",
    "num_cpus::get",
    "num_cpus::get_physical",
];

/// Words that name a foreign function making a handle (`ltLayoutCreate`, `TF_NewTensor`,
/// `cuMemAlloc`), paired by the rest of the name with one of
/// [`FOREIGN_RELEASE_VERBS`] (see [`super::foreign`]).
pub const FOREIGN_CREATE_VERBS: &[&str] = &["create", "new", "alloc", "allocate", "malloc"];

/// Words that name a foreign function finding a handle that something else owns
/// (`graph_get_node`, `ctx_current_stream`): its result is borrowed.
pub const FOREIGN_LOOKUP_WORDS: &[&str] = &[
    "get", "borrow", "peek", "view", "find", "lookup", "current", "default", "global",
];

/// Words that name a foreign function releasing a handle.
pub const FOREIGN_RELEASE_VERBS: &[&str] = &[
    "destroy",
    "free",
    "delete",
    "release",
    "dealloc",
    "deallocate",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saved_outputs_and_inplace_forms_are_modelled_ops() {
        for op in SAVES_OUTPUT {
            assert!(
                lookup(TCH_METHODS, op).is_some() || lookup(TENSOR_ONLY_METHODS, op).is_some(),
                "`{op}` saves its output but is not a modelled tensor op"
            );
        }
        let mut names: Vec<&str> = INPLACE_FORMS.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(
            names.len(),
            INPLACE_FORMS.len(),
            "an op has two in-place forms"
        );
    }

    #[test]
    fn tables_have_no_duplicate_names() {
        for table in [
            METHODS,
            MATRIX_METHODS,
            TCH_METHODS,
            TENSOR_ONLY_METHODS,
            PATHS,
        ] {
            let mut names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            names.sort_unstable();
            let before = names.len();
            names.dedup();
            assert_eq!(before, names.len(), "a table lists a name twice");
        }
    }
}
