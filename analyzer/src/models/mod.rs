//! Library models: what calls into ndarray, std, rayon, crossbeam, threads and
//! PyTorch-style tensor crates do to memory, with the user's own models from
//! `tensor-lint.toml`.
//!
//! This module owns every library name the analysis knows. A model maps a method name
//! (for receivers of a class) or a path suffix to a [`Sem`]antics; the rows are data in
//! [`table`], and a user's models ([`ApiModel`]) are rows of the same table, consulted
//! first ([`Models`]). Names that are not calls (types, macros, atomics, integer
//! methods) have tables of their own, asked through the functions below. What needs code
//! (view geometry, `s![]`, parallel regions) is done by the lowering from the [`Sem`] it
//! finds here; the lowering itself tests no library name.

pub mod foreign;
pub mod paths;
pub mod table;
mod user;

pub use user::{ApiModel, Effect};

pub use crate::ir::LeakKind;
use crate::ir::TyClass;
use table::Name;

/// How an allocation's shape is found in the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ctor {
    /// Argument `n` is a shape (`zeros((n, m))`, `zeros(&[n, m])`, `zeros(n)`).
    Shape(usize),
    /// The length is argument `n` (`with_capacity(n)`).
    Len(usize),
    /// Same shape as argument `n` (`to_owned`, `copy`, `zeros_like`).
    Like(usize),
    /// A literal's element count (`arr1(&[..])`).
    Literal(usize),
    /// No elements, and no heap block until something is added (`Vec::new()`).
    Empty,
    Unknown,
}

/// Geometry-changing view methods whose semantics the lowering computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// Same memory: `view`, `view_mut`, `as_slice`, `iter`, `shallow_clone`, `borrow`.
    Whole,
    /// ndarray `slice*(s![..])`.
    SliceMacro,
    /// tch `narrow(dim, start, len)`.
    Narrow,
    /// tch `slice(dim, start, end, step)`.
    TchSlice,
    /// ndarray `t()`, tch `tr()`/`t_()` shape.
    Transpose,
    /// tch `transpose(d0, d1)`, ndarray `swap_axes` as a view.
    TransposeDims,
    Permute,
    Broadcast,
    Reshape,
    Diag,
    /// `index_axis(Axis(k), i)`, `row(i)`, `column(j)`, tch `select(dim, i)`.
    IndexAxis(Option<usize>),
    /// `split_at(Axis(k), i)` / `split_at_mut(i)`: a pair.
    SplitAt,
    /// A pair split at `i` on a fixed axis (faer's `split_at_row_mut(i)`,
    /// `split_at_col_mut(j)`).
    SplitOn(usize),
    /// A block `(row, col, rows, cols)` of a matrix (faer's `submatrix_mut`).
    Block,
    /// A block given as one range (or index) per axis (nalgebra's `view_range_mut`).
    Ranges,
    /// tch's `i(..)`: one range, or a tuple of ranges and indices, one per leading axis.
    TchIndex,
    /// Two blocks of a matrix given as two ranges on one axis (nalgebra's
    /// `columns_range_pair_mut`): a pair.
    RangePair(usize),
    /// `chunks(k)` / `chunks_mut(k)` / `axis_chunks_iter*(Axis, k)`: items are chunks.
    Chunks,
    /// `axis_iter*(Axis(k))`, `outer_iter*`, `rows`, `iter_mut`: items are sub-views.
    AxisIter,
    /// Anything else that aliases (`windows`, `lanes`, `reversed_axes`).
    Other,
}

/// Parallel iterator sources and consumers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParKind {
    /// `par_iter`, `par_iter_mut`, `into_par_iter` on a collection: one item per element.
    Elements,
    /// `par_chunks(_mut)(k)` / `par_chunks_exact(_mut)`: one item per chunk.
    Chunks,
    /// faer's `par_col_chunks_mut(k)`: one item per `k` columns of a matrix.
    ColumnChunks,
    /// A parallel iterator adapter that keeps the items.
    Adapter(Adapter),
    /// A consumer that runs its closure per item (`for_each`, `map` + `sum`, ...).
    Consume,
    /// A parallel loop over the elements of an array or a `Zip`.
    ArrayForEach(ForEach),
}

/// What an iterator adapter does to the items it passes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Adapter {
    /// `enumerate`: pairs each item with its index.
    Enumerate,
    /// `zip(other)`: pairs each item with one of `other`.
    Zip,
    /// `map(f)`: on an iterator, maps the items; on an ndarray array, a new array of the
    /// same shape.
    Map,
    /// Keeps the items as they are (`with_min_len`, `step_by`, `filter`, `rev`, ...).
    Keep,
}

/// How a parallel array loop hands its closure the elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForEach {
    /// `par_for_each`, `par_apply`: the closure gets the elements (of every zipped array).
    Items,
    /// `par_map_inplace`: the closure gets `&mut` to each element and rewrites it.
    MapInPlace,
    /// `par_mapv_inplace`: the closure gets each element by value and returns the new one.
    MapvInPlace,
}

/// How a modelled release frees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReleaseHow {
    Drop,
    /// `ptr::drop_in_place(p)`: runs the pointee's destructor. Through a pointer or a
    /// borrowed slice it drops the elements and frees no buffer.
    DropInPlace,
    Dealloc,
    BoxFromRaw,
    Function,
}

/// Wrappers whose constructor moves an owner behind a pointer or a guard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WrapKind {
    /// `Box::new`, `Arc::new`, `Rc::new`: of a buffer's owner, the same buffer; of
    /// anything else, a new heap block dropped with the wrapper.
    Heap,
    /// `ManuallyDrop::new`: the owner is kept and never dropped by its scope.
    ManuallyDrop,
    /// `Pin::new`: the owner, pinned.
    Pin,
}

/// `std::alloc::Layout` constructors: how many elements of what size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutCtor {
    /// `Layout::array::<T>(n)`: `n` elements of `T`.
    Array,
    /// `Layout::new::<T>()`: one `T`.
    One,
    /// `Layout::from_size_align(bytes, align)`: `bytes` bytes.
    SizeAlign,
}

/// Which metadata a call returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Meta {
    /// The number of elements (`len`, `numel`).
    Count,
    /// The first length of a matrix (`nrows`).
    Rows,
    /// The second length of a matrix (`ncols`).
    Cols,
    /// Every length, as a tuple (`shape`, `size`, `raw_dim`).
    Shape,
    /// Every length, and the length itself for one dimension (ndarray's `dim`).
    Dim,
    /// Something else (`is_empty`, `ndim`, `strides`).
    Other,
}

/// How big a value of a library type is, for struct layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeSize {
    Bytes(u64),
    /// As big as its type argument (`ManuallyDrop<T>`, `UnsafeCell<T>`).
    OfArg,
    /// Its type argument rounded up to this many bytes (`CachePadded<T>`).
    PaddedArg(u64),
    /// A header of this many bytes before its type argument, rounded up to 8 bytes
    /// (`Mutex<T>`: the lock word and poison flag).
    HeaderArg(u64),
}

/// What the front end follows of a library item beyond what a call does to memory
/// ([`Sem`]): the protocols of `core` it reads values through (an `Option`'s payload,
/// an iterator's items, integers it computes), and the items the crate-wide passes
/// look for (bitwise reads and writes, destruction, deferred destruction). Rows are
/// in [`paths::ROLES`], keyed by path like the model table's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `ptr::read(p)`, `p.read()`: a bitwise copy of what `p` points to.
    BitwiseRead,
    /// `ptr::write(p, v)`, `p.write(v)`, `slot.write(v)`: a store that drops nothing.
    BitwiseWrite,
    /// `ptr::copy(src, dst, n)` and the copy methods of pointers: the operands that
    /// are read from and written to.
    Copy { from: u8, to: u8 },
    /// `mem::swap`, `ptr::swap`, `slice.swap(a, b)`.
    Swap,
    /// `mem::replace(place, value)`, `ptr::replace(p, value)`.
    Replace,
    /// `mem::forget(v)`.
    Forget,
    /// `ptr::drop_in_place(p)`: the values `p` points to dropped where they are.
    DropInPlace,
    /// `mem::uninitialized()`, `mem::zeroed()`: a value of bytes nobody wrote.
    Uninit,
    /// `Box::from_raw(p)`: the box owns the value again, and drops it.
    BoxFromRaw,
    /// The `from_raw` of another owner (`Vec::from_raw_parts`, `CString::from_raw`),
    /// whose drop frees the memory.
    OwnerFromRaw,
    /// crossbeam-epoch's `guard.defer(f)`: runs `f` once no thread can see what it
    /// frees.
    Defer,
    /// crossbeam-epoch's `guard.defer_destroy(p)`: destroys the node later.
    DeferDestroy,
    /// crossbeam-epoch's `p.into_owned()`: the node owned again, destroyed with it.
    IntoOwned,
    /// `Deref::deref`, `DerefMut::deref_mut`: what a wrapper holds, borrowed.
    Deref,
    /// The `get_mut` of a cell or an atomic: its value, borrowed.
    CellGetMut,
    /// The `load` of an atomic.
    AtomicLoad,
    /// What moves an atomic pointer on: `store`, `swap`, a compare-and-swap.
    AtomicMove,
    /// `opt.ok_or(e)`, `opt.ok_or_else(f)`.
    OkOr,
    /// `Ord::min`, `cmp::min`.
    Min,
    /// `Ord::max`, `cmp::max`.
    Max,
    /// `a.div_ceil(b)` of unsigned integers.
    DivCeil,
    /// `RangeInclusive::new(lo, hi)`, which `lo..=hi` calls.
    InclusiveRange,
    /// `Arc::new(v)`, `Rc::new(v)`.
    SharedNew,
    /// `opt.map(f)` of an `Option` or a `Result`.
    PayloadMap,
    /// `opt.map_or(default, f)`, `map_or_else`.
    PayloadMapOr,
    /// `IntoIterator::into_iter`.
    IntoIter,
    /// `Iterator::next`.
    IterNext,
    /// `Iterator::for_each`.
    IterForEach,
    /// `Iterator::collect`.
    IterCollect,
    /// `Iterator::map`.
    IterMap,
    /// The adapters that give one item per item (`enumerate`, `rev`, `cloned`).
    IterOnePerItem,
    /// A rayon folder's method that takes every item of an iterator (`true`,
    /// `consume_iter`) or one item (`false`, `consume`).
    FolderTakes(bool),
    /// A rayon producer's `fold_with`, which hands its items to a folder.
    ProducerFold,
    /// A rayon producer's `split_at` / `split`, which makes two pieces of one.
    ProducerSplit,
    /// candle's `t.storage_and_layout()`: the storage a tensor is a view of.
    StorageOf,
    /// `ptr::eq(a, b)`, `Arc::ptr_eq(a, b)`: whether two pointers are one.
    PointerEq,
    /// ndarray's `Slice::step_by`.
    SliceStepBy,
    /// ndarray's `SliceInfo::new_unchecked`, which `s![..]` calls.
    SliceInfoNew,
}

/// What a modelled API does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sem {
    /// Returns new memory; `Ctor` finds its size.
    Alloc(Ctor),
    /// New memory that must be released by a modelled or annotated release (a user's
    /// `effect = "alloc"` model: pools, arenas).
    OwedAlloc,
    /// The same, stored through out-parameter `n` (`create(&mut handle, ..)`, an
    /// `effect = "alloc"` model with an `arg`); held on the paths that use it.
    OwedAllocInto(usize),
    /// `std::alloc::alloc(layout)`: new memory released by `dealloc`.
    RawAlloc,
    /// `realloc(p, layout, size)`: releases `p`, returns new memory.
    Realloc,
    /// Returns a view of the receiver.
    View(ViewKind),
    /// Returns a view of argument `n`.
    ViewOfArg(usize),
    /// Returns a shared handle to the receiver's memory (`shallow_clone`, `Arc::clone`).
    Share,
    /// `as_ptr`, `as_mut_ptr`, `as_mut_ptr_range`, `NonNull::from`.
    RawPtr,
    /// `p.add(n)`, `p.offset(n)`, `p.sub(n)` (sign is -1 for `sub`).
    PtrStep(i8),
    /// `slice::from_raw_parts(_mut)(p, len)`.
    FromRawParts,
    /// `ArrayView*::from_shape_ptr(shape, p)`.
    FromShapePtr,
    /// `*p` read through a method (`p.read()`, `ptr::read(p)`); of an owner
    /// (`ptr::read(&v)`) it is a bitwise copy, as [`Sem::BitCopy`].
    PtrRead,
    /// `mem::transmute_copy(&x)`: a bitwise copy of argument `n`. Of an owner, the copy
    /// owns the same memory (the original is then forgotten, or both drop it).
    BitCopy(usize),
    /// `p.write(v)`, `ptr::write(p, v)`.
    PtrWrite,
    /// Overwrites argument `n` in place from its old value (receiver = 0).
    InPlace(usize),
    /// Overwrites argument `n` without reading it (`fill`, `assign`, `copy_from_slice`).
    Overwrite(usize),
    /// A matrix view of memory with explicit sizes and strides: `(memory, rows, cols,
    /// row_stride, col_stride)` (faer's `from_raw_parts_mut`, nalgebra's
    /// `from_slice_with_strides_mut`).
    FromStrided,
    /// candle's `a.same_storage(&b)`: a test of whether two tensors share storage.
    SameStorage,
    /// candle's `dst.slice_set(&src, dim, offset)`: copies `src` into the part of the
    /// receiver that starts at `offset` along `dim` and is as long as `src` there.
    SliceSet,
    ReadArg(usize),
    WriteArg(usize),
    /// Releases argument `n`.
    Release(ReleaseHow, usize),
    /// Gives up the owner in argument `n` without releasing it.
    Leak(LeakKind, usize),
    /// Moves an owner into a wrapper (`Box::new(v)`, `ManuallyDrop::new(v)`).
    Wrap(WrapKind),
    /// Builds a `Layout` whose size `alloc` then allocates.
    Layout(LayoutCtor),
    /// `Vec::push(x)`, `insert`: the argument is stored into the receiver.
    StoreArg(usize),
    /// `v.set_len(n)`: the vector's length changes, none of its elements: what it
    /// counts as elements from then on may hold no value yet.
    SetLen,
    Par(ParKind),
    /// `rayon::join(a, b)`.
    Join,
    /// `rayon::scope(|s| ..)` / `std::thread::scope(|s| ..)` / `crossbeam::scope`.
    Scope,
    /// `s.spawn(closure)` on a scope handle, `thread::Builder::spawn_scoped(s, closure)`.
    Spawn,
    /// `std::thread::spawn(closure)`.
    ThreadSpawn,
    /// `Zip::from(&mut a)` / `.and(&b)`: builds a lock-step iteration over arrays.
    ZipFrom,
    /// `set_requires_grad(b)` / `requires_grad_(b)`.
    RequiresGrad,
    /// `tch::no_grad(|| ..)`: runs the closure with autograd off.
    NoGrad,
    /// Reads the receiver and returns a scalar or new value (`sum`, `dot`).
    Read,
    /// Reads the receiver's metadata, not its elements (`len`, `shape`, `dim`), known
    /// from its geometry.
    Metadata(Meta),
    /// `clone()`: of an owner, new memory of the same shape; of a view or a shared
    /// handle (`Arc`, `Rc`), the same memory.
    Clone,
    /// The result is the receiver (or the first argument of a path call) as far as
    /// memory is concerned (`unwrap`, `into_iter`, `Axis(k)`).
    Transparent,
    /// `p.is_null()`: which branch the pointer is null on.
    NullTest,
    /// `ptr::null_mut()`: a pointer to nothing; stored over a pointer (after its
    /// release), the pointer holds no allocation any more.
    NullPointer,
    /// `(n, m).strides((s0, s1))`, `.f()`: a shape with strides for `from_shape_ptr`.
    ShapeStrides,
    /// `mem::take(&mut x)`, `mem::replace(&mut x, y)`: the old value moves out of the
    /// place into a new owner; what stays behind is another value.
    TakeOut,
    /// `mem::swap(a, b)`, `ptr::swap(p, q)`: both places are written.
    SwapPlaces,
    /// A method of an atomic (or of a buffer, for `swap` on a slice: see
    /// [`table::BUFFER_METHODS`]).
    Atomic(AtomicOp),
}

/// What an atomic method does; the value it returns is a copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Load,
    /// `store(v, ..)`: `v` is kept by the atomic.
    Store,
    /// `swap(v, ..)`: `v` is kept, the old value comes back.
    Swap,
    /// `compare_exchange(current, new, ..)`: `new` is kept when it succeeds.
    CompareExchange,
    /// `fetch_add`, `fetch_update`, ...: a read and a write.
    ReadModifyWrite,
}

/// The model table one analysis consults: the rows the user configured, then the
/// built-in rows.
#[derive(Clone, Debug, Default)]
pub struct Models {
    /// Valid user rows, last written first (a later row overrides an earlier one).
    user: Vec<ApiModel>,
}

impl Models {
    /// The built-in rows with `user`'s rows before them; invalid user rows (which the
    /// configuration reports) are left out.
    pub fn new(user: &[ApiModel]) -> Models {
        Models {
            user: user
                .iter()
                .rev()
                .filter(|m| m.validate().is_ok())
                .cloned()
                .collect(),
        }
    }

    /// Whether the user configured any rows.
    pub fn has_user_rows(&self) -> bool {
        !self.user.is_empty()
    }

    /// The model of `method` called on a receiver of class `recv`.
    pub fn method(&self, recv: TyClass, method: &str) -> Option<Sem> {
        if let Some(m) = self
            .user
            .iter()
            .find(|m| m.method.as_deref() == Some(method))
        {
            return Some(m.sem());
        }
        if recv == TyClass::Tensor {
            if let Some(sem) = table::lookup(table::TCH_METHODS, method)
                .or_else(|| table::lookup(table::TENSOR_ONLY_METHODS, method))
            {
                return Some(sem);
            }
            // tch naming: a trailing `_` means in place, returning an alias of the receiver.
            if method.ends_with('_') && method.len() > 1 {
                return Some(Sem::InPlace(0));
            }
        }
        if matches!(recv, TyClass::Array | TyClass::ArrayView) {
            if let Some(sem) = table::lookup(table::MATRIX_METHODS, method) {
                return Some(sem);
            }
        }
        if matches!(
            recv,
            TyClass::Array | TyClass::ArrayView | TyClass::Slice | TyClass::Vec
        ) {
            if let Some(sem) = table::lookup(table::BUFFER_METHODS, method) {
                return Some(sem);
            }
        }
        if let Some(sem) = table::lookup(table::METHODS, method) {
            return Some(sem);
        }
        if recv == TyClass::Unknown {
            if let Some(sem) = table::lookup(table::TCH_METHODS, method) {
                return Some(sem);
            }
            if method.ends_with('_') && method.len() > 1 && !method.starts_with('_') {
                return Some(Sem::InPlace(0));
            }
        }
        None
    }

    /// The model of a path call (`Array2::zeros`, `std::alloc::alloc`), matching the
    /// trailing segments of `path`.
    pub fn path(&self, path: &[String]) -> Option<Sem> {
        let user = self.user.iter().find(|m| {
            m.path
                .as_deref()
                .is_some_and(|p| ends_with(path, &p.split("::").collect::<Vec<_>>()))
        });
        if let Some(m) = user {
            return Some(m.sem());
        }
        // A one-word row (`alloc`, `zeros`, `default`) names a function of a module or
        // a constructor of a modelled type, not any type's method of that name
        // (`Default::default()`, an arena's `Alloc::alloc`).
        let owner_fits = match path {
            [.., owner, _] => {
                owner.starts_with(|c: char| c.is_ascii_lowercase())
                    || class_of_type_name(owner) != TyClass::Unknown
            }
            _ => true,
        };
        table::PATHS
            .iter()
            .filter(|(suffix, _)| {
                let want: Vec<&str> = suffix.split("::").collect();
                ends_with(path, &want) && (want.len() > 1 || owner_fits)
            })
            .max_by_key(|(suffix, _)| suffix.matches("::").count())
            .map(|(_, sem)| *sem)
    }
}

fn ends_with(path: &[String], want: &[&str]) -> bool {
    want.len() <= path.len()
        && path[path.len() - want.len()..]
            .iter()
            .zip(want)
            .all(|(a, b)| a == b)
}

fn any_matches(names: &[Name], name: &str) -> bool {
    names.iter().any(|n| n.matches(name))
}

/// The symbol the lowering gives the result of a thread-count call
/// (`rayon::current_num_threads()`, `num_cpus::get()`): sizes that mention it are
/// per-thread, such as `vec![0u64; rayon::current_num_threads()]`. No binding can be
/// named like it.
pub const THREAD_COUNT: &str = "current_num_threads()";

/// Whether a call of `name` (a path such as `rayon::current_num_threads`, or a method
/// name) returns the number of worker threads.
pub fn is_thread_count_call(name: &str) -> bool {
    let path: Vec<String> = name.split("::").map(str::to_string).collect();
    table::THREAD_COUNT_CALLS.iter().any(|suffix| {
        let want: Vec<&str> = suffix.split("::").collect();
        ends_with(&path, &want)
    })
}

/// Whether a call of `name` waits for the threads spawned before it (`handle.join()`).
pub fn is_thread_join(name: &str) -> bool {
    let last = name.rsplit("::").next().unwrap_or(name);
    table::THREAD_JOINS.contains(&last)
}

/// The in-place form of an out-of-place op or operator (`mapv` -> `mapv_into`,
/// `-` -> `-=`), when there is one.
pub fn inplace_form(op: &str) -> Option<&'static str> {
    table::lookup(table::INPLACE_FORMS, op)
}

/// Whether autograd saves the output of tensor op `op` for its backward pass.
pub fn saves_output(op: &str) -> bool {
    table::SAVES_OUTPUT.contains(&op)
}

/// Class of a type name seen in a path (`Array2` in `Array2::zeros`).
pub fn class_of_type_name(name: &str) -> TyClass {
    table::lookup(table::TYPE_CLASSES, name).unwrap_or(TyClass::Unknown)
}

/// Whether values of type `name` synchronise their own accesses (atomics, locks).
pub fn is_synchronised_type(name: &str) -> bool {
    any_matches(table::SYNCHRONISED_TYPES, name)
}

/// Whether `method` is an atomic read-modify-write, load or store: synchronised, never
/// a race.
pub fn is_atomic_method(method: &str) -> bool {
    any_matches(table::ATOMIC_METHODS, method)
}

/// Bytes of a scalar type (primitive numbers and their atomics).
pub fn scalar_bytes(name: &str) -> Option<u32> {
    table::lookup(table::SCALAR_BYTES, name)
}

/// Whether `name` is a plain number type (not an atomic).
pub fn is_number_type(name: &str) -> bool {
    scalar_bytes(name).is_some() && !is_synchronised_type(name)
}

/// Whether a type named `name` points to one object (`Arc<T>`, `Box<T>`).
pub fn is_object_pointer(name: &str) -> bool {
    table::OBJECT_POINTERS.contains(&name)
}

/// Number of dimensions a buffer type named `name` has, when the name says it
/// (`Vec` → 1, `ArrayView2` → 2).
pub fn rank_of_type_name(name: &str) -> Option<usize> {
    if table::RANK_ONE_CONTAINERS.contains(&name) {
        return Some(1);
    }
    if table::MATRIX_TYPES.contains(&name) {
        return Some(2);
    }
    if !any_matches(table::RANK_SUFFIXED_TYPES, name) {
        return None;
    }
    let digits = name.trim_start_matches(|c: char| !c.is_ascii_digit());
    if digits.is_empty() {
        return None;
    }
    digits.parse().ok()
}

/// How big a value of library type `name` is, when it is a modelled one.
pub fn type_size(name: &str) -> Option<TypeSize> {
    if let Some(b) = scalar_bytes(name) {
        return Some(TypeSize::Bytes(u64::from(b)));
    }
    table::lookup(table::TYPE_SIZES, name)
}

/// Whether iterator method `name` gathers the items into a collection (`collect`).
pub fn collects(name: &str) -> bool {
    table::COLLECTING_METHODS.contains(&name)
}

/// The symbol for the element count of the tensor parameter `name` of unknown rank.
pub fn tensor_size_symbol(name: &str) -> String {
    format!("{name}.numel")
}

/// Whether `symbol` is a [`tensor_size_symbol`].
pub fn is_tensor_size_symbol(symbol: &str) -> bool {
    symbol.ends_with(".numel")
}

/// The base name of the symbols for indices into `static` tables computed at run
/// time: one entry each time the code runs.
pub const RUN_TIME_INDEX: &str = "entry";

/// Whether `symbol` is an index computed at run time (see [`RUN_TIME_INDEX`]).
pub fn is_run_time_index(symbol: &str) -> bool {
    symbol
        .strip_prefix(RUN_TIME_INDEX)
        .is_some_and(|rest| rest.starts_with('#'))
}

/// Whether the crate named `krate` is a tensor library whose tensors have no in-place
/// ops (candle).
pub fn has_immutable_tensors(krate: &str) -> bool {
    table::IMMUTABLE_TENSOR_CRATES.contains(&krate)
}

pub fn is_padded_type(name: &str) -> bool {
    table::PADDED_TYPES.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_count_calls_match_by_path_suffix() {
        assert!(is_thread_count_call("rayon::current_num_threads"));
        assert!(is_thread_count_call("current_num_threads"));
        assert!(is_thread_count_call("num_cpus::get"));
        assert!(!is_thread_count_call("get"));
        assert!(!is_thread_count_call("rayon::join"));
    }

    #[test]
    fn trailing_underscore_on_a_tensor_is_in_place() {
        let models = Models::default();
        assert_eq!(
            models.method(TyClass::Tensor, "relu_"),
            Some(Sem::InPlace(0))
        );
        assert_eq!(
            models.method(TyClass::Tensor, "relu"),
            Some(Sem::Alloc(Ctor::Like(0)))
        );
    }

    #[test]
    fn path_models_match_the_longest_suffix() {
        let models = Models::default();
        let p = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
        assert_eq!(
            models.path(&p("std::alloc::dealloc")),
            Some(Sem::Release(ReleaseHow::Dealloc, 0))
        );
        assert_eq!(
            models.path(&p("ndarray::Array2::zeros")),
            Some(Sem::Alloc(Ctor::Shape(0)))
        );
        assert_eq!(
            models.path(&p("Box::from_raw")),
            Some(Sem::Release(ReleaseHow::BoxFromRaw, 0))
        );
        assert_eq!(models.path(&p("frobnicate")), None);
    }

    #[test]
    fn user_rows_override_the_builtin_ones_and_later_rows_earlier_ones() {
        let row = |arg| ApiModel {
            path: None,
            method: Some("checkin".into()),
            effect: Effect::Free,
            arg: Some(arg),
        };
        let models = Models::new(&[row(1), row(2)]);
        assert_eq!(
            models.method(TyClass::Unknown, "checkin"),
            Some(Sem::Release(ReleaseHow::Function, 2))
        );
        let fill = ApiModel {
            path: None,
            method: Some("fill".into()),
            effect: Effect::Read,
            arg: Some(0),
        };
        assert_eq!(
            Models::new(&[fill]).method(TyClass::Array, "fill"),
            Some(Sem::ReadArg(0))
        );
    }

    #[test]
    fn model_without_required_argument_is_invalid() {
        let m = ApiModel {
            path: Some("a::free".into()),
            method: None,
            effect: Effect::Free,
            arg: None,
        };
        assert!(m.validate().is_err());
        assert_eq!(Models::new(&[m]).path(&["a".into(), "free".into()]), None);
    }

    #[test]
    fn type_names_say_their_rank_and_size() {
        assert_eq!(rank_of_type_name("ArrayView2"), Some(2));
        assert_eq!(rank_of_type_name("RawArrayViewMut3"), Some(3));
        assert_eq!(rank_of_type_name("Vec"), Some(1));
        assert_eq!(rank_of_type_name("ArcArray2"), None);
        assert_eq!(type_size("AtomicU64"), Some(TypeSize::Bytes(8)));
        assert!(is_synchronised_type("AtomicU64") && !is_number_type("AtomicU64"));
        assert!(is_number_type("f32"));
    }
}
