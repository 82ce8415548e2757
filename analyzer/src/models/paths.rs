//! The model table of the compiler front end: library functions by the path the
//! compiler resolves a call to, each with its [`Sem`].
//!
//! A row names an item as a user of the library writes it (`std::vec::Vec::as_mut_ptr`,
//! `rayon::join`, `ndarray::ArrayBase::slice_mut`): the front end resolves the path
//! through the library's modules and re-exports, once per crate, to the items it
//! reaches, and a call matches a row when the compiler resolved it to one of them. A
//! call through a trait, a macro, a re-export or an alias is the same item, so it
//! matches like a direct call; a method of another type with the same name does not.
//!
//! Paths:
//! - `krate::module::function`, `krate::module::Type::method` (inherent methods),
//!   `krate::module::Trait::method` (the trait's method, whatever impl runs);
//! - `[T]::method` for the methods of slices, `*mut T::method` and `*const T::method`
//!   for those of raw pointers, `usize::method` (and the other integers) for those of
//!   integers;
//! - `{A,B}` for alternatives: `ndarray::{ArrayBase,ArrayRef}::fill` names the `fill` of
//!   either type (a row resolves when any alternative does).
//!
//! [`PATHS`] says what a call does to memory ([`Sem`]); [`ROLES`] names what the front
//! end follows of an item itself ([`Role`]): `core`'s protocols and the items the
//! crate-wide passes look for.
//!
//! Rows for crates the checked crate does not depend on resolve to nothing, and cost
//! nothing. `tests/model_paths.rs` resolves every row of both tables with the compiler,
//! on a file that loads each library they name, so a row that stops resolving (a
//! library moved an item) is a failing test, not a silent gap.

use super::{
    Adapter, AtomicOp, Ctor, ForEach, LayoutCtor, LeakKind, Meta, ParKind, ReleaseHow, Role, Sem,
    ViewKind, WrapKind,
};

/// Every row: a path and what a call to it does.
pub const PATHS: &[(&str, Sem)] = &[
    // std::alloc: raw allocation, released by `dealloc`
    ("std::alloc::alloc", Sem::RawAlloc),
    ("std::alloc::alloc_zeroed", Sem::RawAlloc),
    ("std::alloc::realloc", Sem::Realloc),
    ("std::alloc::dealloc", Sem::Release(ReleaseHow::Dealloc, 0)),
    ("std::alloc::Layout::array", Sem::Layout(LayoutCtor::Array)),
    ("std::alloc::Layout::new", Sem::Layout(LayoutCtor::One)),
    (
        "std::alloc::Layout::from_size_align",
        Sem::Layout(LayoutCtor::SizeAlign),
    ),
    (
        "std::alloc::Layout::from_size_align_unchecked",
        Sem::Layout(LayoutCtor::SizeAlign),
    ),
    // Box
    ("std::boxed::Box::new", Sem::Wrap(WrapKind::Heap)),
    ("std::boxed::Box::into_raw", Sem::Leak(LeakKind::IntoRaw, 0)),
    ("std::boxed::Box::leak", Sem::Leak(LeakKind::Leak, 0)),
    (
        "std::boxed::Box::from_raw",
        Sem::Release(ReleaseHow::BoxFromRaw, 0),
    ),
    // Vec
    ("std::vec::Vec::new", Sem::Alloc(Ctor::Empty)),
    ("std::vec::Vec::with_capacity", Sem::Alloc(Ctor::Len(0))),
    ("std::vec::from_elem", Sem::Alloc(Ctor::Len(1))),
    ("std::vec::Vec::as_ptr", Sem::RawPtr),
    ("std::vec::Vec::as_mut_ptr", Sem::RawPtr),
    ("std::vec::Vec::as_slice", Sem::View(ViewKind::Whole)),
    ("std::vec::Vec::as_mut_slice", Sem::View(ViewKind::Whole)),
    ("std::vec::Vec::len", Sem::Metadata(Meta::Count)),
    ("std::vec::Vec::push", Sem::StoreArg(1)),
    ("std::vec::Vec::set_len", Sem::SetLen),
    ("std::vec::Vec::leak", Sem::Leak(LeakKind::Leak, 0)),
    (
        "std::vec::Vec::into_raw_parts",
        Sem::Leak(LeakKind::IntoRaw, 0),
    ),
    (
        "std::vec::Vec::from_raw_parts",
        Sem::Release(ReleaseHow::BoxFromRaw, 0),
    ),
    ("std::vec::Vec::into_boxed_slice", Sem::Transparent),
    ("[T]::into_vec", Sem::Transparent),
    // `vec![a, b, c]`: the box of the elements becomes the vector's buffer
    (
        "std::boxed::box_assume_init_into_vec_unsafe",
        Sem::Transparent,
    ),
    ("[T]::to_vec", Sem::Alloc(Ctor::Like(0))),
    // slices
    ("[T]::as_ptr", Sem::RawPtr),
    ("[T]::as_mut_ptr", Sem::RawPtr),
    ("[T]::len", Sem::Metadata(Meta::Count)),
    ("[T]::split_at", Sem::View(ViewKind::SplitAt)),
    ("[T]::split_at_mut", Sem::View(ViewKind::SplitAt)),
    ("[T]::chunks", Sem::View(ViewKind::Chunks)),
    ("[T]::chunks_mut", Sem::View(ViewKind::Chunks)),
    ("[T]::chunks_exact", Sem::View(ViewKind::Chunks)),
    ("[T]::chunks_exact_mut", Sem::View(ViewKind::Chunks)),
    ("[T]::iter", Sem::View(ViewKind::AxisIter)),
    ("[T]::iter_mut", Sem::View(ViewKind::AxisIter)),
    ("[T]::fill", Sem::Overwrite(0)),
    ("[T]::copy_from_slice", Sem::Overwrite(0)),
    ("[T]::clone_from_slice", Sem::Overwrite(0)),
    ("std::slice::from_raw_parts", Sem::FromRawParts),
    ("std::slice::from_raw_parts_mut", Sem::FromRawParts),
    // raw pointers
    ("*mut T::add", Sem::PtrStep(1)),
    ("*mut T::offset", Sem::PtrStep(1)),
    ("*mut T::wrapping_add", Sem::PtrStep(1)),
    ("*mut T::sub", Sem::PtrStep(-1)),
    ("*mut T::cast", Sem::View(ViewKind::Whole)),
    ("*mut T::cast_const", Sem::View(ViewKind::Whole)),
    ("*mut T::read", Sem::PtrRead),
    ("*mut T::is_null", Sem::NullTest),
    ("*const T::is_null", Sem::NullTest),
    ("*mut T::write", Sem::PtrWrite),
    ("*const T::add", Sem::PtrStep(1)),
    ("*const T::offset", Sem::PtrStep(1)),
    ("*const T::wrapping_add", Sem::PtrStep(1)),
    ("*const T::sub", Sem::PtrStep(-1)),
    ("*const T::cast", Sem::View(ViewKind::Whole)),
    ("*const T::cast_mut", Sem::View(ViewKind::Whole)),
    ("*const T::read", Sem::PtrRead),
    ("std::ptr::null", Sem::NullPointer),
    ("std::ptr::null_mut", Sem::NullPointer),
    ("std::ptr::read", Sem::PtrRead),
    ("std::ptr::read_unaligned", Sem::PtrRead),
    ("std::ptr::write", Sem::PtrWrite),
    ("std::ptr::write_unaligned", Sem::PtrWrite),
    (
        "std::ptr::drop_in_place",
        Sem::Release(ReleaseHow::DropInPlace, 0),
    ),
    ("std::ptr::NonNull::as_ptr", Sem::View(ViewKind::Whole)),
    ("std::ptr::NonNull::cast", Sem::View(ViewKind::Whole)),
    ("std::ptr::NonNull::new", Sem::Transparent),
    ("std::ptr::NonNull::as_ref", Sem::View(ViewKind::Whole)),
    ("std::ptr::NonNull::as_mut", Sem::View(ViewKind::Whole)),
    // what an `Option` or `Result` holds, taken out
    ("std::option::Option::unwrap", Sem::Transparent),
    ("std::option::Option::expect", Sem::Transparent),
    ("std::option::Option::unwrap_unchecked", Sem::Transparent),
    ("std::result::Result::unwrap", Sem::Transparent),
    ("std::result::Result::expect", Sem::Transparent),
    ("std::result::Result::unwrap_or_else", Sem::Transparent),
    ("std::result::Result::unwrap_or", Sem::Transparent),
    ("std::result::Result::unwrap_or_default", Sem::Transparent),
    ("std::option::Option::unwrap_or_else", Sem::Transparent),
    ("std::option::Option::unwrap_or", Sem::Transparent),
    ("std::option::Option::unwrap_or_default", Sem::Transparent),
    (
        "std::ptr::NonNull::new_unchecked",
        Sem::View(ViewKind::Whole),
    ),
    // what a `MaybeUninit` holds: a pointer to it is one to the value it will hold
    ("std::mem::MaybeUninit::as_mut_ptr", Sem::Transparent),
    ("std::mem::MaybeUninit::as_ptr", Sem::Transparent),
    ("std::mem::MaybeUninit::assume_init", Sem::Transparent),
    ("std::mem::MaybeUninit::assume_init_read", Sem::Transparent),
    ("std::mem::MaybeUninit::assume_init_mut", Sem::View(ViewKind::Whole)),
    ("std::mem::MaybeUninit::assume_init_ref", Sem::View(ViewKind::Whole)),
    // a box of memory not initialised yet, and the box it becomes
    ("std::boxed::Box::new_uninit", Sem::Alloc(Ctor::Unknown)),
    ("std::boxed::Box::new_uninit_slice", Sem::Alloc(Ctor::Len(0))),
    ("std::boxed::Box::assume_init", Sem::Transparent),
    // ownership given up or handed over
    ("std::mem::forget", Sem::Leak(LeakKind::Forget, 0)),
    ("std::mem::drop", Sem::Release(ReleaseHow::Drop, 0)),
    ("std::mem::take", Sem::TakeOut),
    ("std::mem::replace", Sem::TakeOut),
    ("std::mem::swap", Sem::SwapPlaces),
    ("std::mem::transmute_copy", Sem::BitCopy(0)),
    (
        "std::mem::ManuallyDrop::new",
        Sem::Wrap(WrapKind::ManuallyDrop),
    ),
    // threads
    ("std::thread::scope", Sem::Scope),
    ("std::thread::Scope::spawn", Sem::Spawn),
    ("std::thread::spawn", Sem::ThreadSpawn),
    ("std::thread::Builder::spawn", Sem::ThreadSpawn),
    ("std::thread::Builder::spawn_scoped", Sem::Spawn),
    // rayon
    ("rayon::join", Sem::Join),
    ("tch::no_grad", Sem::NoGrad),
    ("tch::IndexOp::i", Sem::View(ViewKind::TchIndex)),
    // faer's and nalgebra's matrix views of raw memory, with strides
    ("faer::MatMut::from_raw_parts_mut", Sem::FromStrided),
    ("faer::MatRef::from_raw_parts", Sem::FromStrided),
    ("nalgebra::Matrix::from_slice_with_strides_mut", Sem::FromStrided),
    ("nalgebra::Matrix::from_slice_with_strides", Sem::FromStrided),
    // C strings: a borrowed view of the bytes a pointer reaches
    ("std::ffi::CStr::from_ptr", Sem::ViewOfArg(0)),
    ("std::ffi::CStr::as_ptr", Sem::RawPtr),
    // C strings owned: a buffer of their own, given up by `into_raw`, taken back by
    // `from_raw`
    ("std::ffi::CString::new", Sem::Alloc(Ctor::Unknown)),
    ("std::ffi::CString::into_raw", Sem::Leak(LeakKind::IntoRaw, 0)),
    (
        "std::ffi::CString::from_raw",
        Sem::Release(ReleaseHow::BoxFromRaw, 0),
    ),
    ("std::ffi::CString::as_bytes", Sem::View(ViewKind::Whole)),
    (
        "std::ffi::CString::as_bytes_with_nul",
        Sem::View(ViewKind::Whole),
    ),
    ("std::ffi::CString::as_c_str", Sem::View(ViewKind::Whole)),
    (
        "std::string::String::from_raw_parts",
        Sem::Release(ReleaseHow::BoxFromRaw, 0),
    ),
    ("str::as_ptr", Sem::RawPtr),
    // ndarray's `Zip` and parallel array loops
    ("ndarray::Zip::from", Sem::ZipFrom),
    ("ndarray::Zip::indexed", Sem::ZipFrom),
    ("ndarray::Zip::and", Sem::ZipFrom),
    (
        "ndarray::Zip::par_for_each",
        Sem::Par(ParKind::ArrayForEach(ForEach::Items)),
    ),
    ("rayon::scope", Sem::Scope),
    ("rayon::Scope::spawn", Sem::Spawn),
    // crossbeam's scoped threads (`crossbeam::scope` re-exports them)
    ("crossbeam_utils::thread::scope", Sem::Scope),
    ("crossbeam_utils::thread::Scope::spawn", Sem::Spawn),
    // Thread pools: every closure handed to one runs alongside the others and the
    // caller until the pool is joined.
    ("rayon::spawn", Sem::ThreadSpawn),
    ("rayon::spawn_fifo", Sem::ThreadSpawn),
    ("rayon::ThreadPool::spawn", Sem::ThreadSpawn),
    ("rayon::ThreadPool::spawn_fifo", Sem::ThreadSpawn),
    ("threadpool::ThreadPool::execute", Sem::ThreadSpawn),
    (
        "rayon::slice::ParallelSliceMut::par_chunks_mut",
        Sem::Par(ParKind::Chunks),
    ),
    (
        "rayon::slice::ParallelSliceMut::par_chunks_exact_mut",
        Sem::Par(ParKind::Chunks),
    ),
    (
        "rayon::slice::ParallelSlice::par_chunks",
        Sem::Par(ParKind::Chunks),
    ),
    (
        "rayon::iter::IntoParallelRefMutIterator::par_iter_mut",
        Sem::Par(ParKind::Elements),
    ),
    (
        "rayon::iter::IntoParallelRefIterator::par_iter",
        Sem::Par(ParKind::Elements),
    ),
    (
        "rayon::iter::IntoParallelIterator::into_par_iter",
        Sem::Par(ParKind::Elements),
    ),
    (
        "rayon::iter::IndexedParallelIterator::enumerate",
        Sem::Par(ParKind::Adapter(Adapter::Enumerate)),
    ),
    (
        "rayon::iter::ParallelIterator::for_each",
        Sem::Par(ParKind::Consume),
    ),
    // iterators consumed whole: every item read
    // Serial adapters over the same items (or some of them): the iterator they wrap,
    // so that what it walks is not taken for memory handed to unknown code.
    (
        "std::iter::Iterator::enumerate",
        Sem::Par(ParKind::Adapter(Adapter::Enumerate)),
    ),
    ("std::iter::Iterator::zip", Sem::Par(ParKind::Adapter(Adapter::Zip))),
    ("std::iter::Iterator::rev", Sem::Par(ParKind::Adapter(Adapter::Keep))),
    ("std::iter::Iterator::skip", Sem::Par(ParKind::Adapter(Adapter::Keep))),
    ("std::iter::Iterator::take", Sem::Par(ParKind::Adapter(Adapter::Keep))),
    ("std::iter::Iterator::step_by", Sem::Par(ParKind::Adapter(Adapter::Keep))),
    ("std::iter::Iterator::sum", Sem::Read),
    ("std::iter::Iterator::product", Sem::Read),
    ("std::iter::Iterator::max", Sem::Read),
    ("std::iter::Iterator::min", Sem::Read),
    ("std::iter::Iterator::fold", Sem::Read),
    ("std::iter::Iterator::count", Sem::Read),
    ("std::iter::Iterator::collect", Sem::Read),
    // locks: taking one (also a shared one) writes its lock word, as an atomic
    // read-modify-write does
    ("std::sync::Mutex::lock", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("std::sync::Mutex::try_lock", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("std::sync::RwLock::read", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("std::sync::RwLock::write", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("std::sync::RwLock::try_read", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    ("std::sync::RwLock::try_write", Sem::Atomic(AtomicOp::ReadModifyWrite)),
    // atomics: synchronised, but a write to their cache line (all but `load`)
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::load",
        Sem::Atomic(AtomicOp::Load),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::store",
        Sem::Atomic(AtomicOp::Store),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::swap",
        Sem::Atomic(AtomicOp::Swap),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::compare_exchange",
        Sem::Atomic(AtomicOp::CompareExchange),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::compare_exchange_weak",
        Sem::Atomic(AtomicOp::CompareExchange),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::compare_and_swap",
        Sem::Atomic(AtomicOp::CompareExchange),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::fetch_add",
        Sem::Atomic(AtomicOp::ReadModifyWrite),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::fetch_sub",
        Sem::Atomic(AtomicOp::ReadModifyWrite),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::fetch_max",
        Sem::Atomic(AtomicOp::ReadModifyWrite),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::fetch_min",
        Sem::Atomic(AtomicOp::ReadModifyWrite),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::fetch_or",
        Sem::Atomic(AtomicOp::ReadModifyWrite),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::fetch_and",
        Sem::Atomic(AtomicOp::ReadModifyWrite),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::fetch_xor",
        Sem::Atomic(AtomicOp::ReadModifyWrite),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::fetch_nand",
        Sem::Atomic(AtomicOp::ReadModifyWrite),
    ),
    (
        "std::sync::atomic::{AtomicBool,AtomicI8,AtomicI16,AtomicI32,AtomicI64,AtomicIsize,AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicUsize,AtomicPtr}::fetch_update",
        Sem::Atomic(AtomicOp::ReadModifyWrite),
    ),
    // compound assignment: the left side is updated in place from its old value (an
    // element of a slice, or a whole array)
    ("std::ops::AddAssign::add_assign", Sem::InPlace(0)),
    ("std::ops::SubAssign::sub_assign", Sem::InPlace(0)),
    ("std::ops::MulAssign::mul_assign", Sem::InPlace(0)),
    ("std::ops::DivAssign::div_assign", Sem::InPlace(0)),
    ("std::ops::RemAssign::rem_assign", Sem::InPlace(0)),
    ("std::ops::BitAndAssign::bitand_assign", Sem::InPlace(0)),
    ("std::ops::BitOrAssign::bitor_assign", Sem::InPlace(0)),
    ("std::ops::BitXorAssign::bitxor_assign", Sem::InPlace(0)),
    // operators that hand out the same memory
    ("std::ops::Deref::deref", Sem::View(ViewKind::Whole)),
    ("std::ops::DerefMut::deref_mut", Sem::View(ViewKind::Whole)),
    // ndarray constructors
    ("ndarray::ArrayBase::zeros", Sem::Alloc(Ctor::Shape(0))),
    ("ndarray::ArrayBase::ones", Sem::Alloc(Ctor::Shape(0))),
    ("ndarray::ArrayBase::from_elem", Sem::Alloc(Ctor::Shape(0))),
    ("ndarray::ArrayBase::from_shape_ptr", Sem::FromShapePtr),
    ("ndarray::ShapeBuilder::strides", Sem::ShapeStrides),
    // ndarray's methods: the types that hold them differ between releases (`ArrayBase`
    // alone before 0.17; `ArrayRef`, `LayoutRef` and `RawRef`, which arrays dereference
    // to, since), so each row names them all.
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::view",
        Sem::View(ViewKind::Whole),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::view_mut",
        Sem::View(ViewKind::Whole),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::as_ptr",
        Sem::RawPtr,
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::as_mut_ptr",
        Sem::RawPtr,
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::fill",
        Sem::Overwrite(0),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::assign",
        Sem::Overwrite(0),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::mapv_inplace",
        Sem::InPlace(0),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::map_inplace",
        Sem::InPlace(0),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::len",
        Sem::Metadata(Meta::Count),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::nrows",
        Sem::Metadata(Meta::Rows),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::ncols",
        Sem::Metadata(Meta::Cols),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::raw_dim",
        Sem::Metadata(Meta::Shape),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::shape",
        Sem::Metadata(Meta::Shape),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::dim",
        Sem::Metadata(Meta::Dim),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::to_owned",
        Sem::Alloc(Ctor::Like(0)),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::t",
        Sem::View(ViewKind::Transpose),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::reversed_axes",
        Sem::View(ViewKind::Transpose),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::split_at",
        Sem::View(ViewKind::SplitAt),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::index_axis",
        Sem::View(ViewKind::IndexAxis(None)),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::index_axis_mut",
        Sem::View(ViewKind::IndexAxis(None)),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::index_axis_move",
        Sem::View(ViewKind::IndexAxis(None)),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::row",
        Sem::View(ViewKind::IndexAxis(Some(0))),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::row_mut",
        Sem::View(ViewKind::IndexAxis(Some(0))),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::column",
        Sem::View(ViewKind::IndexAxis(Some(1))),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::column_mut",
        Sem::View(ViewKind::IndexAxis(Some(1))),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::broadcast",
        Sem::View(ViewKind::Broadcast),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::axis_iter",
        Sem::View(ViewKind::AxisIter),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::axis_iter_mut",
        Sem::View(ViewKind::AxisIter),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::outer_iter",
        Sem::View(ViewKind::AxisIter),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::outer_iter_mut",
        Sem::View(ViewKind::AxisIter),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::rows",
        Sem::View(ViewKind::AxisIter),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::rows_mut",
        Sem::View(ViewKind::AxisIter),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::axis_chunks_iter",
        Sem::View(ViewKind::Chunks),
    ),
    (
        "ndarray::{ArrayBase,ArrayRef,LayoutRef,RawRef}::axis_chunks_iter_mut",
        Sem::View(ViewKind::Chunks),
    ),
];

/// The atomics of `std::sync::atomic`, as alternatives of one path.
macro_rules! atomics {
    ($method:literal) => {
        concat!(
            "std::sync::atomic::{AtomicPtr,AtomicBool,AtomicUsize,AtomicIsize,",
            "AtomicU8,AtomicU16,AtomicU32,AtomicU64,AtomicI8,AtomicI16,AtomicI32,AtomicI64}::",
            $method
        )
    };
}

/// Every row of the front end's own protocols and of the items the crate-wide passes
/// look for: a path, as in [`PATHS`], and its [`Role`].
pub const ROLES: &[(&str, Role)] = &[
    // bitwise reads and writes
    ("std::ptr::read", Role::BitwiseRead),
    ("std::ptr::read_unaligned", Role::BitwiseRead),
    ("*const T::read", Role::BitwiseRead),
    ("*const T::read_unaligned", Role::BitwiseRead),
    ("*mut T::read", Role::BitwiseRead),
    ("*mut T::read_unaligned", Role::BitwiseRead),
    ("std::ptr::NonNull::read", Role::BitwiseRead),
    ("std::ptr::NonNull::read_unaligned", Role::BitwiseRead),
    ("std::ptr::write", Role::BitwiseWrite),
    ("std::ptr::write_unaligned", Role::BitwiseWrite),
    ("*mut T::write", Role::BitwiseWrite),
    ("*mut T::write_unaligned", Role::BitwiseWrite),
    ("std::ptr::NonNull::write", Role::BitwiseWrite),
    ("std::ptr::NonNull::write_unaligned", Role::BitwiseWrite),
    ("std::mem::MaybeUninit::write", Role::BitwiseWrite),
    ("std::ptr::copy", Role::Copy { from: 0, to: 1 }),
    ("std::ptr::copy_nonoverlapping", Role::Copy { from: 0, to: 1 }),
    ("*const T::copy_to", Role::Copy { from: 0, to: 1 }),
    ("*const T::copy_to_nonoverlapping", Role::Copy { from: 0, to: 1 }),
    ("*mut T::copy_to", Role::Copy { from: 0, to: 1 }),
    ("*mut T::copy_to_nonoverlapping", Role::Copy { from: 0, to: 1 }),
    ("*mut T::copy_from", Role::Copy { from: 1, to: 0 }),
    ("*mut T::copy_from_nonoverlapping", Role::Copy { from: 1, to: 0 }),
    ("std::ptr::NonNull::copy_to", Role::Copy { from: 0, to: 1 }),
    ("std::ptr::NonNull::copy_to_nonoverlapping", Role::Copy { from: 0, to: 1 }),
    ("std::ptr::NonNull::copy_from", Role::Copy { from: 1, to: 0 }),
    ("std::ptr::NonNull::copy_from_nonoverlapping", Role::Copy { from: 1, to: 0 }),
    ("std::ptr::swap", Role::Swap),
    ("std::mem::swap", Role::Swap),
    ("*mut T::swap", Role::Swap),
    ("[T]::swap", Role::Swap),
    ("std::mem::replace", Role::Replace),
    ("std::ptr::replace", Role::Replace),
    ("*mut T::replace", Role::Replace),
    ("std::mem::forget", Role::Forget),
    ("std::ptr::drop_in_place", Role::DropInPlace),
    ("*mut T::drop_in_place", Role::DropInPlace),
    ("std::ptr::NonNull::drop_in_place", Role::DropInPlace),
    ("std::mem::uninitialized", Role::Uninit),
    ("std::mem::zeroed", Role::Uninit),
    // owners made from raw pointers
    ("std::boxed::Box::from_raw", Role::BoxFromRaw),
    ("std::boxed::Box::from_raw_in", Role::OwnerFromRaw),
    ("std::vec::Vec::from_raw_parts", Role::OwnerFromRaw),
    ("std::vec::Vec::from_raw_parts_in", Role::OwnerFromRaw),
    ("std::string::String::from_raw_parts", Role::OwnerFromRaw),
    ("std::ffi::CString::from_raw", Role::OwnerFromRaw),
    // deferred destruction
    ("crossbeam_epoch::Guard::defer", Role::Defer),
    ("crossbeam_epoch::Guard::defer_unchecked", Role::Defer),
    ("crossbeam_epoch::Guard::defer_destroy", Role::DeferDestroy),
    ("crossbeam_epoch::Shared::into_owned", Role::IntoOwned),
    // what wrappers, cells and atomics hold
    ("std::ops::Deref::deref", Role::Deref),
    ("std::ops::DerefMut::deref_mut", Role::Deref),
    ("std::cell::{Cell,RefCell,UnsafeCell}::get_mut", Role::CellGetMut),
    ("std::sync::Mutex::get_mut", Role::CellGetMut),
    (atomics!("get_mut"), Role::CellGetMut),
    (atomics!("load"), Role::AtomicLoad),
    (
        atomics!("{compare_exchange,compare_exchange_weak,store,swap}"),
        Role::AtomicMove,
    ),
    ("crossbeam_epoch::Atomic::load", Role::AtomicLoad),
    (
        "crossbeam_epoch::Atomic::{compare_and_set,compare_and_set_weak,compare_exchange,compare_exchange_weak,store,swap}",
        Role::AtomicMove,
    ),
    // core's protocols
    ("std::option::Option::ok_or", Role::OkOr),
    ("std::option::Option::ok_or_else", Role::OkOr),
    ("std::cmp::min", Role::Min),
    ("std::cmp::Ord::min", Role::Min),
    ("std::cmp::max", Role::Max),
    ("std::cmp::Ord::max", Role::Max),
    ("{usize,u64,u32,u16,u8}::div_ceil", Role::DivCeil),
    ("std::ops::RangeInclusive::new", Role::InclusiveRange),
    ("std::sync::Arc::new", Role::SharedNew),
    ("std::rc::Rc::new", Role::SharedNew),
    ("std::option::Option::map", Role::PayloadMap),
    ("std::result::Result::map", Role::PayloadMap),
    ("std::option::Option::{map_or,map_or_else}", Role::PayloadMapOr),
    ("std::result::Result::{map_or,map_or_else}", Role::PayloadMapOr),
    ("std::iter::IntoIterator::into_iter", Role::IntoIter),
    ("std::iter::Iterator::next", Role::IterNext),
    ("std::iter::Iterator::for_each", Role::IterForEach),
    ("std::iter::Iterator::collect", Role::IterCollect),
    ("std::iter::Iterator::map", Role::IterMap),
    ("std::iter::Iterator::enumerate", Role::IterOnePerItem),
    ("std::iter::Iterator::rev", Role::IterOnePerItem),
    ("std::iter::Iterator::cloned", Role::IterOnePerItem),
    ("std::iter::Iterator::copied", Role::IterOnePerItem),
    ("std::iter::Iterator::inspect", Role::IterOnePerItem),
    // rayon's plumbing, implemented by a crate's own producers
    ("rayon::iter::plumbing::Folder::consume_iter", Role::FolderTakes(true)),
    ("rayon::iter::plumbing::Folder::consume", Role::FolderTakes(false)),
    ("rayon::iter::plumbing::Producer::fold_with", Role::ProducerFold),
    ("rayon::iter::plumbing::UnindexedProducer::fold_with", Role::ProducerFold),
    ("rayon::iter::plumbing::Producer::split_at", Role::ProducerSplit),
    ("rayon::iter::plumbing::UnindexedProducer::split", Role::ProducerSplit),
    // tensors that share storage
    ("candle_core::Tensor::storage_and_layout", Role::StorageOf),
    ("std::ptr::eq", Role::PointerEq),
    ("std::sync::Arc::ptr_eq", Role::PointerEq),
    ("std::rc::Rc::ptr_eq", Role::PointerEq),
    // ndarray's `s![..]`
    ("ndarray::Slice::step_by", Role::SliceStepBy),
    ("ndarray::SliceInfo::new_unchecked", Role::SliceInfoNew),
];

/// How a message names the item of row `path`: as a user writes it without a `use`
/// (`Box::into_raw` for the types of the prelude, the whole path otherwise).
pub fn display_name(path: &str) -> String {
    const PRELUDE: &[(&str, &str)] = &[
        ("std::boxed::Box::", "Box::"),
        ("std::vec::Vec::", "Vec::"),
        ("std::string::String::", "String::"),
        ("[T]::", ""),
        ("str::", ""),
        ("*mut T::", ""),
        ("*const T::", ""),
    ];
    for (prefix, shown) in PRELUDE {
        if let Some(rest) = path.strip_prefix(prefix) {
            return format!("{shown}{rest}");
        }
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_is_written_once() {
        let mut seen = std::collections::BTreeSet::new();
        for path in PATHS.iter().map(|r| r.0) {
            assert!(seen.insert(path), "{path} has two rows");
            assert!(
                path.split("::").all(|s| !s.is_empty()),
                "{path} has an empty segment"
            );
        }
        let mut roles = std::collections::BTreeSet::new();
        for (path, _) in ROLES {
            assert!(roles.insert(*path), "{path} has two roles");
            assert!(
                path.split("::").all(|s| !s.is_empty()),
                "{path} has an empty segment"
            );
        }
        assert_eq!(display_name("std::boxed::Box::into_raw"), "Box::into_raw");
        assert_eq!(display_name("std::mem::forget"), "std::mem::forget");
    }
}
