//! The tensor IR: what every lint reads instead of syntax.
//!
//! Each function is lowered to a [`FnIr`]: one table of [`Value`]s shared by the function
//! body and the closures nested in it (a closure reads the outer values it captures
//! directly), one [`Body`] per body (index 0 is the function itself), and a table of
//! memory [`Root`]s. A body is a control-flow graph of [`Block`]s whose statements are
//! tensor [`Op`]s, each with the span of the source that produced it.
//!
//! Memory is described by roots and views: a root is one buffer (an allocation, a
//! parameter's memory, a static); a view value reaches a root through an alias-oracle
//! [`View`] (offset and strided dimensions in elements of the root) when the geometry is
//! known, and through the root alone when it is not. Raw pointers carry the root they
//! were derived from (their provenance) and, when known, the element they point at as a
//! zero-dimensional view.

pub mod dump;
pub mod geometry;
pub mod structs;

use crate::oracle::{Expr, View};
use crate::source::Span;

pub use crate::oracle::RootId;

/// Index of a value in [`FnIr::values`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ValueId(pub u32);

/// Index of a block in [`Body::blocks`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

/// Index of a body in [`FnIr::bodies`]; `BodyId(0)` is the function's own body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BodyId(pub u32);

/// Index of a function in [`crate::program::CrateIr`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FnId(pub u32);

/// What a value holds, as far as tensor memory is concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// Nothing the analysis can use (the result of an opaque call, a non-tensor struct).
    Unknown,
    /// A number or boolean; its integer value, when known, is in [`Value::int`].
    Scalar,
    /// Owns the buffer of a root (a `Vec`, an owned array, a tensor handle).
    Root(RootId),
    /// Borrows or shares memory of a root (a slice, an array view, a shallow clone).
    View(RootId),
    /// A raw pointer (or an address cast to `usize`) derived from a root; `None` when
    /// its provenance is not known.
    RawPtr(Option<RootId>),
    /// A closure whose code is the given nested body.
    Closure(BodyId),
    /// The handle of a `rayon::scope` / `std::thread::scope` that tasks are spawned on.
    ScopeHandle,
}

impl ValueKind {
    /// The root whose memory this value reaches, if one is known.
    pub fn root(&self) -> Option<RootId> {
        match self {
            ValueKind::Root(r) | ValueKind::View(r) | ValueKind::RawPtr(Some(r)) => Some(*r),
            _ => None,
        }
    }

    /// Whether the value reaches tensor memory at all.
    pub fn is_memory(&self) -> bool {
        matches!(
            self,
            ValueKind::Root(_) | ValueKind::View(_) | ValueKind::RawPtr(_)
        )
    }
}

/// One value: a binding, a parameter or a temporary.
#[derive(Clone, Debug)]
pub struct Value {
    /// The binding's name; `None` for temporaries.
    pub name: Option<String>,
    pub kind: ValueKind,
    /// Where this value sits in its root, when the geometry is known.
    pub view: Option<View>,
    /// The integer this scalar holds, as an expression over symbolic sizes.
    pub int: Option<Expr>,
    /// What the declared or inferred type says about the value.
    pub ty: TyClass,
    pub span: Span,
    /// A `let mut` binding assigned again after its definition: two tests of it on one
    /// path may see different values.
    pub reassigned: bool,
}

/// Coarse type classes: all that is needed without a type checker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TyClass {
    #[default]
    Unknown,
    /// Integer, float or bool.
    Scalar,
    /// `Vec<T>`, `Box<[T]>`: an owned buffer.
    Vec,
    /// `&[T]` / `&mut [T]`.
    Slice,
    /// `Array*` / `ArcArray*`: an owned ndarray.
    Array,
    /// `ArrayView*` / `ArrayViewMut*` / `RawArrayView*`.
    ArrayView,
    /// A PyTorch-style tensor handle (`tch::Tensor`, `candle::Tensor`).
    Tensor,
    /// `*const T` / `*mut T` / `NonNull<T>`.
    RawPtr,
    /// `Arc<T>` / `Rc<T>`: cloning shares.
    Shared,
    /// A struct of the checked crate.
    LocalStruct,
}

impl TyClass {
    /// A pointer, buffer, view, tensor handle or shared owner: a value that reaches
    /// memory of its own, rather than a number, a crate struct or something unknown.
    pub fn holds_memory(self) -> bool {
        !matches!(
            self,
            TyClass::Unknown | TyClass::Scalar | TyClass::LocalStruct
        )
    }
}

/// Where a root's memory comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootOrigin {
    /// Allocated in this function at the root's span.
    Alloc,
    /// Memory reached through parameter `n` (receiver = 0 for methods).
    Param(usize),
    /// A literal, or an object built from plain values.
    Static,
    /// A `static` table of the crate (see [`StaticTable`]): the same memory in every
    /// function that names it, and at every call that reaches it.
    Global,
    /// Returned by a call whose origin is not known.
    Unknown,
}

/// One buffer of memory.
#[derive(Clone, Debug)]
pub struct Root {
    pub id: RootId,
    /// The binding or parameter it is first known by.
    pub name: String,
    pub origin: RootOrigin,
    /// Bytes per element.
    pub elem_bytes: u32,
    /// The element type's name when written (`f32`, `Slot`, `CachePadded`).
    pub elem_type: Option<String>,
    /// The elements are pointers or references to `elem_type` (`&[*mut u8]`).
    pub elem_is_pointer: bool,
    /// The memory of this field of the value the root is named after (`shards` of
    /// `self.shards`).
    pub field: Option<String>,
    /// Shape in elements, when known (`[n, m]` for `Array::zeros((n, m))`).
    pub shape: Option<Vec<Expr>>,
    /// How this root's memory is released.
    pub released_by: ReleasedBy,
    /// `true` when autograd records it (`requires_grad`).
    pub requires_grad: bool,
    /// Made through an out-parameter of a call whose status says whether it was made
    /// (`create(&mut h)`): held only on the paths that go on to use it.
    pub held_from_use: bool,
    /// The op this function computed the root's contents with, for memory allocated
    /// by a modelled operation (`x.mapv(f)`, `&a - &b`, `t.sigmoid()`).
    pub producer: Option<Producer>,
    /// The function that allocated it as the user wrote the call (`Array2::zeros`,
    /// `Vec::with_capacity`), when the front end knows it apart from `name`.
    pub allocated_by: Option<String>,
    /// Its contents are not initialised when it is allocated (`alloc`,
    /// `Box::new_uninit`, the spare capacity of `Vec::with_capacity`).
    pub uninit: bool,
    /// A parameter's memory that is the function's own copy of the caller's (an array
    /// passed by value): writing it writes nothing of the caller's.
    pub copied_in: bool,
    pub span: Span,
}

/// The out-of-place operation whose result a root is: what the in-place and autograd
/// lints need to relate a result to its operands and to suggest the in-place form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Producer {
    /// The method (`mapv`, `sigmoid`) or operator (`-`) written.
    pub op: String,
    /// The operands: for a binary operator both, left first, whatever they hold; for
    /// a method the receiver and the arguments that are memory.
    pub inputs: Vec<ValueId>,
    /// The span of the method name or the operator token.
    pub op_span: Span,
    /// For a binary operator whose left operand is memory written borrowed
    /// (`&x - m`): the span of that `&`; that operand is then the first input.
    pub lhs_ref: Option<Span>,
    /// The in-place form of the op, when the model knows one (`mapv_into`, `relu_`,
    /// `-=`).
    pub inplace_form: Option<String>,
    /// Autograd saves this op's output for its backward pass (`sigmoid`, `tanh`,
    /// `exp`, `relu`, ...), so overwriting the output corrupts the gradient.
    pub saves_output: bool,
}

/// The release an allocation is owed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReleasedBy {
    /// Dropped automatically at the end of its owner's scope (RAII).
    Drop,
    /// `std::alloc::dealloc`.
    Dealloc,
    /// `Box::from_raw` (after `Box::into_raw`).
    BoxFromRaw,
    /// A function named in a model or a `#[tensor_lint::free]` annotation.
    Function(String),
    /// Never released: memory of a parameter, a static.
    NotOwned,
}

impl ReleasedBy {
    /// Whether releasing is owed by code: not automatic at a scope's end, and not
    /// someone else's memory.
    pub fn is_owed(&self) -> bool {
        !matches!(self, ReleasedBy::Drop | ReleasedBy::NotOwned)
    }
}

/// How a value stops being released by this function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EscapeKind {
    /// Returned to the caller.
    Returned,
    /// Stored into a field, a collection or an outer binding.
    Stored,
    /// Moved into a call that may keep it.
    PassedOn(String),
    /// Deliberately given up: `Box::leak`, `mem::forget`, `into_raw`, `ManuallyDrop::new`
    /// (`api`, as called).
    Leaked { api: String, kind: LeakKind },
}

/// How an owner is given up without a release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeakKind {
    /// `Box::into_raw`, `Vec::into_raw_parts`: the memory comes back as a raw pointer,
    /// released by rebuilding the owner with `from_raw`.
    IntoRaw,
    /// `Box::leak`, `Vec::leak`: a reference that lives forever.
    Leak,
    /// `mem::forget`, `ManuallyDrop::new`: the owner is not dropped.
    Forget,
}

/// How memory is released.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReleaseKind {
    /// `drop(x)` / `mem::drop(x)`.
    Drop,
    /// `std::alloc::dealloc(p, layout)`.
    Dealloc,
    /// `Box::from_raw(p)`, `Vec::from_raw_parts(p, ..)`: an owner of the named type
    /// (`Box`, `Vec`) takes the memory back and frees it on drop.
    FromRaw(String),
    /// A modelled or annotated free function.
    Function(String),
    /// The owning binding goes out of scope (RAII drop at the closing brace), for
    /// bindings that were not moved anywhere in the scope.
    ScopeEnd,
    /// Moved into the closure of an adapter (`xs.into_iter().map(f)`, `opt.map(f)`),
    /// which drops it when it returns.
    ClosureEnd,
}

/// How a view was derived from its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewOp {
    /// The same memory and geometry (`view()`, `&x`, `shallow_clone`, reborrow).
    Whole,
    /// A `s![]` slice, `narrow`, `slice_axis`, `row`/`column`, `index_axis`, ...
    Slice(Vec<SliceSpec>),
    Transpose,
    Permute(Vec<usize>),
    /// `broadcast` / `expand`: stride 0 on the new axes.
    Broadcast(Vec<Expr>),
    Reshape(Vec<Expr>),
    Diag,
    /// One part of `split_at(axis, at)` / `split_at_mut(at)`.
    Split {
        axis: usize,
        at: Expr,
        second: bool,
    },
    /// The elements (or chunks) an iterator yields, `index` being the iteration.
    Iter {
        axis: usize,
        chunk: Option<Expr>,
        index: Expr,
    },
    /// A raw-pointer step: `p.add(n)`, `p.offset(n)`, `p.sub(n)`.
    Offset(Expr),
    /// Rebuilding a view from a raw pointer (`from_raw_parts`, `from_shape_ptr`).
    FromRaw {
        shape: Vec<Expr>,
        strides: Option<Vec<Expr>>,
    },
    /// Any other view-producing method; geometry unknown.
    Opaque(String),
}

impl ViewOp {
    /// `start..end` with `step` on axis `axis`, every index of the axes before it.
    pub fn on_axis(axis: usize, start: Option<Expr>, end: Option<Expr>, step: Expr) -> ViewOp {
        let mut specs: Vec<SliceSpec> = (0..axis)
            .map(|_| SliceSpec::Range {
                start: None,
                end: None,
                step: Expr::int(1),
            })
            .collect();
        specs.push(SliceSpec::Range { start, end, step });
        ViewOp::Slice(specs)
    }

    /// `len` indices from `start` on axis `axis` (tch's `narrow`).
    pub fn narrowed(axis: usize, start: Expr, len: Expr) -> ViewOp {
        let end = &start + &len;
        ViewOp::on_axis(axis, Some(start), Some(end), Expr::int(1))
    }

    /// The part of a tensor that candle's `t.slice_set(&src, axis, start)` writes: as
    /// many indices on `axis` from `start` as `src` has there.
    pub fn slice_set(
        axis: Option<usize>,
        start: Option<Expr>,
        src: Option<&View>,
    ) -> Option<ViewOp> {
        let axis = axis?;
        let len = src?.shape().get(axis).cloned()?;
        Some(ViewOp::narrowed(axis, start?, len))
    }
}

/// One axis entry of a slice, as in ndarray's `s![]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SliceSpec {
    /// `start..end;step` (end `None` = to the end; negative numbers count from the end).
    Range {
        start: Option<Expr>,
        end: Option<Expr>,
        step: Expr,
    },
    /// A single index, which removes the axis.
    Index(Expr),
    /// `NewAxis`.
    NewAxis,
}

/// What a call resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    /// A function of the checked crate.
    Local(FnId),
    /// A closure of this function.
    Closure(BodyId),
    /// Anything else, by the path or method name written.
    Unknown(String),
}

/// Which kind of parallelism a region has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParallelKind {
    /// `rayon::join(a, b)`: two tasks, each once.
    Join,
    /// `rayon::scope` / `std::thread::scope`: the tasks spawned on the handle.
    Scope,
    /// `std::thread::spawn`: the task runs alongside the rest of the function.
    ThreadSpawn,
    /// `par_iter*`, `par_chunks*`, `into_par_iter`, `par_for_each`, `par_azip!`:
    /// one task whose body runs once per iteration, concurrently.
    ParIter,
    /// A rayon producer's `fold_with`: one task whose body runs once per piece its
    /// `split` makes, concurrently.
    Pieces,
}

impl ParallelKind {
    /// One task body run by many instances at once, told apart by an iteration.
    pub fn iterates(self) -> bool {
        matches!(self, ParallelKind::ParIter | ParallelKind::Pieces)
    }
}

/// One task of a parallel region.
#[derive(Clone, Debug)]
pub struct Task {
    pub body: BodyId,
    /// `Some` when many instances of the task run at once (a parallel iteration, or a
    /// spawn inside a loop).
    pub iteration: Option<Iteration>,
    pub span: Span,
}

/// The iteration space of a replicated task.
#[derive(Clone, Debug)]
pub struct Iteration {
    /// The symbol the task's views are indexed by (distinct per instance).
    pub symbol: String,
    /// `lo <= symbol < hi`.
    pub lo: Expr,
    pub hi: Expr,
    /// The binding that holds the iteration's element or index inside the task.
    pub value: Option<ValueId>,
}

/// A parallel region.
#[derive(Clone, Debug)]
pub struct ParallelRegion {
    pub kind: ParallelKind,
    pub tasks: Vec<Task>,
}

/// One operation of the IR.
#[derive(Clone, Debug)]
pub enum Op {
    /// New memory: `dst` owns `root`; `size` in elements when known.
    Alloc {
        dst: ValueId,
        root: RootId,
        size: Option<Expr>,
    },
    /// `dst` is a pointer read from memory (`(*node).next`) or of unknown origin: `root`
    /// stands for the block it points to, which may be another one each time this runs.
    Load { dst: ValueId, root: RootId },
    /// Memory reached by `value` is released.
    Release { value: ValueId, how: ReleaseKind },
    /// `dst` is a view of `src`.
    View {
        dst: ValueId,
        src: ValueId,
        how: ViewOp,
    },
    /// Elements of `value` are read; `region` is the part read when it is smaller than
    /// the whole value (`a[[i, j]]`, `*p`).
    Read {
        value: ValueId,
        region: Option<View>,
    },
    /// Elements of `value` are written.
    Write {
        value: ValueId,
        region: Option<View>,
    },
    /// An assignment through a pointer or reference (`*p = v`, `v[i] = x`, `b.name = s`
    /// of a `Box`) drops the value stored at `region` of `value` before it stores the
    /// new one: the compiler's drop of a place it replaces.
    DropStored {
        value: ValueId,
        region: Option<View>,
    },
    /// One value with two owners until one of them lets go, by `how`: `dst` is a
    /// bitwise copy (`ptr::read(p)`) of the value stored at `region` of `src`, which
    /// still holds it and whose owner still drops it; or the values at `src` were
    /// copied to `dst` in the same owner's memory (`ptr::copy`), or dropped in place
    /// while the owner still counts them (then `dst` is `src`).
    Duplicate {
        dst: ValueId,
        src: ValueId,
        region: Option<View>,
        how: DuplicateKind,
    },
    /// A call or a check that may panic and unwind out of this function: a closure or
    /// a trait method the caller supplies, an index out of bounds, an `unwrap`.
    /// `drops` are the values the unwinding drops (moved into the call, or owned here
    /// and dropped by the cleanup); `cause` names what may panic. A call whose
    /// unwinding runs a guard's `Drop` (which may put things back) has none.
    MayUnwind { drops: Vec<ValueId>, cause: String },
    /// `v.set_len(n)`: from here the function itself decides which of `value`'s
    /// elements the vector owns; `grows` when the new length is the old one and more
    /// (`len + 1`), which counts slots it did not count before.
    SetLen { value: ValueId, grows: bool },
    /// An owner (a `Box`, a `Vec`) stored through `value` by `ptr::write`: the bytes of
    /// the slot `value` points at are written, not the memory the slot's old owner
    /// pointed to (which a pointer to the slot stands for in the IR).
    Store {
        value: ValueId,
        region: Option<View>,
    },
    /// An in-place op: `dst` is overwritten from its old value and `srcs`.
    InPlace {
        dst: ValueId,
        srcs: Vec<ValueId>,
        method: String,
    },
    /// `value` stops being this function's to release.
    Escape { value: ValueId, how: EscapeKind },
    /// Tasks that run concurrently; their bodies are nested bodies of this function.
    Parallel(ParallelRegion),
    /// A task spawned on a scope handle (also listed in the scope's region).
    Spawn { scope: ValueId, task: Task },
    Call {
        dst: Option<ValueId>,
        callee: Callee,
        args: Vec<ValueId>,
    },
    /// `dst = src` (a move, copy or reborrow of the same memory).
    Assign { dst: ValueId, src: ValueId },
    /// Autograd starts (or stops) recording `value`.
    RequiresGrad { value: ValueId, on: bool },
    /// Plain use of a value (a condition, an opaque macro argument).
    Use { value: ValueId },
    /// On this path the pointer is null (`if p.is_null() { .. }`): the allocation it
    /// would hold did not happen.
    AssumeNull { value: ValueId },
    /// `&mut *p` of a raw pointer, `slice::from_raw_parts_mut(p, n)`: a unique
    /// reference to all of `region` for as long as it lives, which nothing else may
    /// reach meanwhile.
    Claim {
        value: ValueId,
        region: Option<View>,
    },
    /// An atomic load, store or read-modify-write of `value`'s memory: synchronised
    /// (never a race, never an in-place tensor op), but a write to its cache line when
    /// `write` is set. `inner` is where the operation is written when a callee
    /// performs it on an argument.
    Atomic {
        value: ValueId,
        write: bool,
        inner: Option<Span>,
    },
}

impl Op {
    /// Values this op reads (its uses, for liveness).
    pub fn uses(&self) -> Vec<ValueId> {
        match self {
            Op::Alloc { .. } | Op::Load { .. } | Op::Parallel(_) => Vec::new(),
            Op::Release { value, .. }
            | Op::Read { value, .. }
            | Op::Write { value, .. }
            | Op::DropStored { value, .. }
            | Op::SetLen { value, .. }
            | Op::Store { value, .. }
            | Op::Claim { value, .. }
            | Op::Escape { value, .. }
            | Op::RequiresGrad { value, .. }
            | Op::Use { value }
            | Op::AssumeNull { value }
            | Op::Atomic { value, .. } => vec![*value],
            Op::View { src, .. } | Op::Assign { src, .. } | Op::Duplicate { src, .. } => {
                vec![*src]
            }
            // Unwinding drops values; it reads none of their elements.
            Op::MayUnwind { .. } => Vec::new(),
            Op::InPlace { dst, srcs, .. } => {
                std::iter::once(*dst).chain(srcs.iter().copied()).collect()
            }
            Op::Spawn { scope, .. } => vec![*scope],
            Op::Call { args, .. } => args.clone(),
        }
    }

    /// The value this op defines, if any.
    pub fn def(&self) -> Option<ValueId> {
        match self {
            Op::Alloc { dst, .. }
            | Op::Load { dst, .. }
            | Op::View { dst, .. }
            | Op::Duplicate { dst, .. }
            | Op::Assign { dst, .. } => Some(*dst),
            Op::Call { dst, .. } => *dst,
            _ => None,
        }
    }
}

/// An op with the span of the source it came from.
#[derive(Clone, Debug)]
pub struct Stmt {
    pub op: Op,
    pub span: Span,
}

/// How an [`Op::Duplicate`] gives one value two owners.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DuplicateKind {
    /// `ptr::read`: a value holds a copy of what the memory still holds.
    Read,
    /// `ptr::copy` within one owner's memory: both places hold the values.
    Copied,
    /// `ptr::drop_in_place`: the memory holds values already dropped.
    Dropped,
    /// `mem::replace(place, mem::uninitialized())`: the memory holds a placeholder that
    /// is no value at all, which its owner drops as one.
    Uninit,
}

/// Why a body returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReturnKind {
    /// Falling off the end of the body.
    End,
    /// An explicit `return`.
    Early,
    /// The error path of `?`.
    Try,
}

/// How control leaves a block.
#[derive(Clone, Debug)]
pub enum Terminator {
    Goto(BlockId),
    /// A two-way or many-way branch (`if`, `match`, a loop condition); `cond` is the
    /// value tested when there is one.
    Branch {
        cond: Option<ValueId>,
        targets: Vec<BlockId>,
    },
    Return {
        value: Option<ValueId>,
        kind: ReturnKind,
    },
    /// Control never continues (`panic!`, `unreachable!`, an infinite loop's exit).
    Unreachable,
}

impl Terminator {
    pub fn successors(&self) -> &[BlockId] {
        match self {
            Terminator::Goto(b) => std::slice::from_ref(b),
            Terminator::Branch { targets, .. } => targets,
            Terminator::Return { .. } | Terminator::Unreachable => &[],
        }
    }

    /// The value a `return` gives back, when it gives one.
    pub fn returned(&self) -> Option<ValueId> {
        match self {
            Terminator::Return { value, .. } => *value,
            _ => None,
        }
    }
}

/// A basic block.
#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub term: Terminator,
    /// Span of the terminator (the `return`, the `?`, the loop).
    pub term_span: Span,
    /// Nesting depth of loops around the block (0 = not in a loop).
    pub loop_depth: u32,
}

/// Whether a body is the function or a closure in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyKind {
    Function,
    Closure {
        parent: BodyId,
        captures: Vec<ValueId>,
    },
}

/// A control-flow graph; `blocks[0]` is the entry.
#[derive(Clone, Debug)]
pub struct Body {
    pub kind: BodyKind,
    /// The body runs with autograd off (the closure of `tch::no_grad`); so do the
    /// closures nested in it.
    pub no_grad: bool,
    pub params: Vec<ValueId>,
    pub blocks: Vec<Block>,
    pub span: Span,
}

impl Body {
    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.0 as usize]
    }

    /// Whether `block` is inside a loop of this body's own code (a closure's body
    /// starts at the loop depth where it is written).
    pub fn in_own_loop(&self, block: &Block) -> bool {
        block.loop_depth > self.blocks.first().map_or(0, |b| b.loop_depth)
    }

    /// Predecessor lists of every block.
    pub fn predecessors(&self) -> Vec<Vec<BlockId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for (i, block) in self.blocks.iter().enumerate() {
            for succ in block.term.successors() {
                if let Some(list) = preds.get_mut(succ.0 as usize) {
                    list.push(BlockId(i as u32));
                }
            }
        }
        preds
    }
}

/// The parsed `assume(...)` of a kernel annotation (or a condition the code tests):
/// `lhs cmp rhs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumption {
    pub lhs: Expr,
    pub cmp: crate::oracle::Cmp,
    pub rhs: Expr,
}

/// What the `tensor-lint` annotations say about a function.
#[derive(Clone, Debug, Default)]
pub struct Annotations {
    /// `#[tensor_lint::kernel]`; perf lints apply.
    pub kernel: bool,
    pub assumptions: Vec<Assumption>,
    /// `#[tensor_lint::alloc]`.
    pub alloc: bool,
    /// `#[tensor_lint::free(ARG)]`: parameter indices (receiver = 0).
    pub frees: Vec<usize>,
    /// `#[tensor_lint::view(of = ARG)]`.
    pub view_of: Option<usize>,
    /// `#[tensor_lint::inplace(ARG)]`.
    pub inplace: Vec<usize>,
}

/// A `static` of the crate (or of a function body), as a root: its name, element size
/// and type, and its shape with the constants resolved. Functions reach it by name, so
/// a summary can carry it from a callee to its callers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticTable {
    pub name: String,
    pub elem_bytes: u32,
    pub elem_type: Option<String>,
    pub shape: Vec<Expr>,
}

/// The IR of one function (or method).
#[derive(Clone, Debug)]
pub struct FnIr {
    pub id: FnId,
    /// The function's own name.
    pub name: String,
    /// `module::Type::method` (crate-relative).
    pub path: String,
    /// `Type` for methods.
    pub self_ty: Option<String>,
    pub annotations: Annotations,
    pub values: Vec<Value>,
    pub roots: Vec<Root>,
    pub bodies: Vec<Body>,
    /// The crate's functions this one calls or whose summaries its lowering read (a
    /// `Drop` it runs), for the schedule's call graph.
    pub callees: Vec<FnId>,
    pub span: Span,
    /// `true` when lowering gave up on part of the body (too deep, too large); the
    /// parts it skipped are unknown values and no ops.
    pub truncated: bool,
    /// The symbols of serial `for` loops with their ranges (`lo <= symbol < hi`) and the
    /// body the loop is in, so views indexed by a loop variable can be bounded when they
    /// are compared.
    pub loop_ranges: Vec<(BodyId, Iteration)>,
    /// Integer expressions the function compares with each other (`a == b`, `i < n`),
    /// in source order: where the code tests how two indices relate, it knows they
    /// may be equal.
    pub compared: Vec<(Expr, Expr)>,
    /// Pairs of tensors the function asks whether they share storage (candle's
    /// `a.same_storage(&b)`): where the code tests it, it handles the aliased case.
    pub storage_tests: Vec<(ValueId, ValueId)>,
    /// Second owners of raw memory another owner holds (see [`OwnerCopy`]).
    pub owner_copies: Vec<OwnerCopy>,
    /// Memory this function allocated, held only by a value whose `Drop` frees it under
    /// a flag the value is built with off (see [`UnownedBuild`]).
    pub unowned_builds: Vec<UnownedBuild>,
    /// Indices into `static` tables computed at run time (`LOCKS[hash % LEN]`): each
    /// symbol stands for one entry, another each time the code runs, within its range.
    pub run_time_indices: Vec<Iteration>,
    /// Integers computed at run time, each a symbol of its own, with the body that
    /// computes it: an unknown range bound (`for i in start..end`), an integer element
    /// read (`for &key in keys`), an integer a crate function returns. Inside a parallel
    /// task, another value in each task instance.
    pub run_values: Vec<(BodyId, String)>,
    /// The run values read from one element of a buffer (`for &a in index`), with that
    /// element: two task instances reading the same element read the same value.
    pub element_values: Vec<(String, View)>,
    /// Where each serial `for` loop's values start: the loop variable's value is this
    /// plus its symbol (which counts from 0).
    pub loop_starts: Vec<(String, Expr)>,
    /// What the conditions of the `if`s around a write say, by the write's span
    /// (`if cat % n == part { first[cat] = .. }`): the write runs only where they hold.
    pub guards: Vec<(Span, Vec<Assumption>)>,
    /// The symbols of `mut` integers a loop changes (`offset += batch`): a task spawned
    /// on each round of the loop captures another value of each.
    pub loop_carried: Vec<String>,
    /// What the function's `bool` result says when it is `true` (`fn mine(h: u64, part:
    /// u64, n: u64) -> bool { h % n == part }`); the summary keeps what is said over the
    /// integer parameters.
    pub returns_condition: Vec<Assumption>,
}

/// A pointer into a local or temporary of a function, used after the variable's storage
/// is gone, or returned (compiler front end).
#[derive(Clone, Debug)]
pub struct DanglingPointer {
    /// Where the pointer is used (dereferenced, handed to a call) or returned.
    pub at: Span,
    /// The variable it points into (`None`: a temporary), and where it is made.
    pub target: Option<String>,
    pub target_span: Span,
    /// Where the variable's storage ends.
    pub gone: Span,
    pub returned: bool,
    /// The function the pointer is handed to.
    pub callee: Option<String>,
}

/// A value read out bitwise (`ptr::read`) of a field of a node (a struct of the crate
/// reached through a pointer or reference) that the crate destroys with its fields
/// dropped: the node still owns the value, and drops it again (compiler front end).
#[derive(Clone, Debug)]
pub struct ReadOutOfNode {
    /// The read.
    pub at: Span,
    /// The node's type (`Node<T>`) and the field read.
    pub node: String,
    pub field: String,
    /// Where the crate destroys nodes of that type, and whether that runs later
    /// (`defer_destroy`, a closure given to `defer`).
    pub destroyed: Span,
    pub deferred: bool,
}

/// A slot a container's method counts as holding a value (`self.ids.insert(id)`)
/// before it writes the value, which code the caller supplies computes (`ptr::write(
/// slot, f())`): a panic there leaves the slot counted and unwritten, and the
/// container's `Drop` drops it (compiler front end).
#[derive(Clone, Debug)]
pub struct CountedBeforeWritten {
    /// The call of the caller's code, the count field and where it is updated, the
    /// write, and the container's type.
    pub at: Span,
    pub count: String,
    pub count_at: Span,
    /// `None` for the converse: `at` drops values in place while `count` still covers
    /// them, and the count is updated only at `count_at`, after.
    pub write_at: Option<Span>,
    pub owner: String,
    /// The method of the type that counted the slot and handed it back, when the
    /// count is updated there rather than in the method itself.
    pub counted_by: Option<String>,
}

/// A node a method retires (hands to a deferred destruction) after moving one pointer
/// field of the structure off it (`self.head`), while another field of the same type
/// (`self.tail`), which another method loads and follows, may still point to it: the
/// method never looks at that field (compiler front end).
#[derive(Clone, Debug)]
pub struct RetiredReachable {
    /// The deferred destruction, and the node's type (`Node<T>`).
    pub at: Span,
    pub node: String,
    /// The field moved off the node (`head`), and where.
    pub moved: String,
    pub moved_at: Span,
    /// The field that may still point to the node (`tail`), the method that loads it
    /// and where.
    pub still: String,
    pub used_in: String,
    pub used_at: Span,
}

/// A pointer a foreign getter lends (`pa_stream_get_context(s)`: the stream keeps it)
/// handed to a constructor of the crate that makes an owner of it (`Context::from_raw`,
/// which sets the flag its `Drop` releases under): the owner releases what it never
/// held.
#[derive(Clone, Debug)]
pub struct LentPointerOwned {
    /// The call of the constructor, and the constructor as written.
    pub at: Span,
    pub constructor: String,
    /// The getter's call and name.
    pub getter_at: Span,
    pub getter: String,
    /// The owner's type, the function its `Drop` releases the pointer with, where, and
    /// the flag the constructor sets with the value it sets.
    pub owner: String,
    pub release: String,
    pub drop_release: Span,
    pub flag: String,
    pub flag_value: bool,
    /// A constructor of the same type that sets the flag the other way, to name in the
    /// help (`Context::from_raw_weak`).
    pub borrowing: Option<String>,
}

/// A value built around memory with the flag its `Drop` tests before releasing set the
/// other way (`Buffer { inner, owned: false }`): dropping it frees nothing.
#[derive(Clone, Debug)]
pub struct UnownedBuild {
    /// The memory the value holds.
    pub root: RootId,
    /// Where the value is built, its type, and the flag with the value it is built with.
    pub span: Span,
    pub ty: String,
    pub flag: String,
    pub flag_value: bool,
}

/// A value made to own raw memory that another owner still holds: a type whose `Drop`
/// releases its raw pointer, built from a pointer copied out of another value of such
/// a type (`let Owned(p, _) = source; Owned(p, ..)`, `Owned(source.0, ..)`), which a
/// pattern or a field read leaves whole. Each owner releases the memory when dropped.
#[derive(Clone, Debug)]
pub struct OwnerCopy {
    /// The owner copied from.
    pub source: ValueId,
    /// `source` is a parameter borrowed from the caller, whose owner releases it later.
    pub source_borrowed: bool,
    /// The new owner; its root stands for the memory it releases.
    pub copy: ValueId,
    /// The new owner's type.
    pub ty: String,
    /// The pointer copied out of `source`, and where.
    pub part: ValueId,
    pub part_span: Span,
    /// Where the new owner is built.
    pub span: Span,
}

impl FnIr {
    pub fn value(&self, id: ValueId) -> &Value {
        &self.values[id.0 as usize]
    }

    pub fn root(&self, id: RootId) -> &Root {
        &self.roots[id.0 as usize]
    }

    pub fn body(&self, id: BodyId) -> &Body {
        &self.bodies[id.0 as usize]
    }

    /// Every statement of every body, with where it is.
    pub fn stmts(&self) -> impl Iterator<Item = (BodyId, BlockId, &Stmt)> {
        self.bodies.iter().enumerate().flat_map(|(b, body)| {
            body.blocks.iter().enumerate().flat_map(move |(k, block)| {
                block
                    .stmts
                    .iter()
                    .map(move |s| (BodyId(b as u32), BlockId(k as u32), s))
            })
        })
    }

    /// A readable name of a value: its binding name or `%N`.
    pub fn value_name(&self, id: ValueId) -> String {
        match self.values.get(id.0 as usize).and_then(|v| v.name.as_ref()) {
            Some(name) => format!("{name}%{}", id.0),
            None => format!("%{}", id.0),
        }
    }
}

#[cfg(test)]
impl FnIr {
    /// A function named `name` with nothing in it (no values, roots or bodies), for the
    /// tests that build the IR they need by hand.
    pub(crate) fn bare(id: FnId, name: &str) -> FnIr {
        FnIr {
            id,
            name: name.to_string(),
            path: name.to_string(),
            self_ty: None,
            annotations: Annotations::default(),
            values: Vec::new(),
            roots: Vec::new(),
            bodies: Vec::new(),
            callees: Vec::new(),
            span: Span::new(crate::source::FileId(0), 0, 0),
            truncated: false,
            loop_ranges: Vec::new(),
            compared: Vec::new(),
            storage_tests: Vec::new(),
            owner_copies: Vec::new(),
            unowned_builds: Vec::new(),
            run_time_indices: Vec::new(),
            run_values: Vec::new(),
            element_values: Vec::new(),
            loop_starts: Vec::new(),
            guards: Vec::new(),
            loop_carried: Vec::new(),
            returns_condition: Vec::new(),
        }
    }
}
