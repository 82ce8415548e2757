//! Lowering: one function's MIR, and the MIR of the closures it makes, to its
//! [`FnIr`].
//!
//! A MIR basic block becomes the IR block of the same index and each MIR local one IR
//! value, shared by the function and its closures ([`FnIr`]'s values are one table): a
//! closure's body reads what it captured through the values the closure was built
//! from. Cleanup blocks (the unwinding paths) are lowered as unreachable for now. The
//! work is split by what is lowered:
//! - [`places`]: places and projections, fields, what a reference points at;
//! - [`rvalues`]: assignments, borrows, casts and integer arithmetic;
//! - [`calls`]: calls resolved to crate functions (through their summaries) and to the
//!   model table;
//! - [`drops`]: drops at scope ends and on assignment, with their drop flags;
//! - [`closures`]: closure bodies and the parallel regions they run in;
//! - [`types`]: what a compiler type says about memory.

mod calls;
mod closures;
mod drops;
mod foreign;
mod handles;
mod moved;
mod places;
mod producers;
mod rvalues;
mod statics;
pub(crate) mod types;
mod unwind;

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_middle::mir::{self, BasicBlock, Local, TerminatorKind};
use rustc_middle::ty::{Ty, TyCtxt, TypingEnv};

use tensor_lint_analyzer::ir::{
    Annotations, Block, BlockId, Body, BodyId, BodyKind, FnId, FnIr, Iteration, Op, ReleasedBy,
    ReturnKind, Root, RootId, RootOrigin, Stmt, Terminator, TyClass, Value, ValueId, ValueKind,
};
use tensor_lint_analyzer::oracle::{Dim, Expr, View};
use tensor_lint_analyzer::source::Span;
use tensor_lint_analyzer::summary::FnSummary;

use crate::files::Files;
use crate::models::Models;

/// Most MIR statements lowered in one function (its closures included); a generated
/// monster beyond it is truncated.
const MAX_STMTS: usize = 400_000;

/// What lowering any function of the crate may consult.
pub(crate) struct CrateCx<'a, 'tcx> {
    pub tcx: TyCtxt<'tcx>,
    pub files: &'a Files,
    pub models: &'a Models,
    /// The crate's functions, by [`FnId`].
    pub fns: &'a [LocalDefId],
    pub fn_ids: &'a FxHashMap<LocalDefId, FnId>,
    pub annotations: &'a [Annotations],
    /// What the foreign functions calls reach do with handles.
    pub foreign: foreign::ForeignRoles<'tcx>,
    /// The structs whose `Drop` releases only under a flag.
    pub release_flags: &'a FxHashMap<rustc_hir::def_id::DefId, crate::release_flags::ReleaseFlag>,
}

/// The lowering of one function with its closures.
pub(crate) struct FnLowerer<'a, 'tcx> {
    cx: &'a CrateCx<'a, 'tcx>,
    tcx: TyCtxt<'tcx>,
    summaries: &'a [Option<FnSummary>],
    id: FnId,
    def: LocalDefId,
    env: TypingEnv<'tcx>,
    span: Span,
    values: Vec<Value>,
    roots: Vec<Root>,
    bodies: Vec<Body>,
    callees: Vec<FnId>,
    /// The functions whose computed summaries the lowering read (of callees, of `Drop`
    /// impls): with `callees`, the edges the schedule follows.
    summaries_read: std::cell::RefCell<Vec<FnId>>,
    /// The value each field of a value holds (`(base, variant, field)`): what an
    /// aggregate was built from, or the memory a parameter's field reaches.
    fields: FxHashMap<(ValueId, u32, u32), ValueId>,
    /// The value a reference or pointer points at, when it is a whole value of this
    /// function rather than memory (`&local_struct`, `&mut self`).
    pointees: FxHashMap<ValueId, ValueId>,
    /// The memory of each array literal, and the literal's value (whose fields are its
    /// elements): a shape passed as `&[h, w]` is read from it.
    array_literals: FxHashMap<RootId, ValueId>,
    /// Closures run once per item of a serial loop (`for_each`): their bodies are one
    /// loop deeper than the code around them.
    repeated_closures: FxHashSet<BodyId>,
    /// What each whole view (`&x`, `x.deref()`) is a view of.
    whole_views: FxHashMap<ValueId, ValueId>,
    /// Struct values copied or moved from another (`let b = a`, `_0 = move _1`): the
    /// same value, whose fields are the other's.
    aliases: FxHashMap<ValueId, ValueId>,
    /// `lo..hi` of integer ranges (`Range` values and the iterators made from them).
    ranges: FxHashMap<ValueId, (Expr, Expr)>,
    /// What the pieces of ndarray's `s![..]` select: one axis (a `SliceInfoElem` or a
    /// `Slice`), by its value.
    slice_elems: FxHashMap<ValueId, tensor_lint_analyzer::ir::SliceSpec>,
    /// Every axis a `SliceInfo` selects, by its value.
    slice_infos: FxHashMap<ValueId, Vec<tensor_lint_analyzer::ir::SliceSpec>>,
    /// Integers a body computes at run time, as the symbols that stand for them.
    run_values: Vec<(BodyId, String)>,
    /// Integers read from one element of a buffer, as their symbols, with the element.
    element_values: Vec<(String, View)>,
    /// What a comparison result says when it is `true` (`key % parts == part`).
    conditions: FxHashMap<ValueId, tensor_lint_analyzer::ir::Assumption>,
    /// What the function's result says when `true`, at each of its returns.
    returned_conditions: Vec<Option<tensor_lint_analyzer::ir::Assumption>>,
    /// What the conditions of the branches around each write say, by the write's span.
    guards: Vec<(Span, Vec<tensor_lint_analyzer::ir::Assumption>)>,
    /// Pointers copied out of an owner whose `Drop` releases them (`self.0`, a pattern's
    /// `ptr`): the owner, the field copied, and the first copy (where it was made).
    owner_parts: FxHashMap<ValueId, (ValueId, ValueId, ValueId)>,
    /// New owners built from such a pointer (see `FnIr::owner_copies`), and for each
    /// value built, the value standing for the new owner's duty to release.
    owner_copies: Vec<tensor_lint_analyzer::ir::OwnerCopy>,
    second_owners: FxHashMap<ValueId, ValueId>,
    /// Memory held only by values built not to free it (see `FnIr::unowned_builds`).
    unowned_builds: Vec<tensor_lint_analyzer::ir::UnownedBuild>,
    /// Pairs of tensors the code asks share storage (`a.same_storage(&b)`).
    storage_tests: Vec<(ValueId, ValueId)>,
    /// `Zip` values: the arrays they walk in lock step.
    zips: FxHashMap<ValueId, Vec<ValueId>>,
    /// Ranges made parallel iterators (`(0..n).into_par_iter()`).
    parallel_ranges: FxHashSet<ValueId>,
    /// How many items serial iterators give, when known (`(0..n).map(f)` gives `n`).
    iter_lens: FxHashMap<ValueId, Expr>,
    /// The lengths a shape value holds (`a.raw_dim()`, `a.shape()`), axis by axis.
    pub(crate) shapes: FxHashMap<ValueId, Vec<Expr>>,
    /// The element places `IndexMut` gave (`a[[r, c]]`), with the span of the index.
    pub(crate) indexed: FxHashMap<ValueId, Span>,
    /// The root of each `static` table this function names, by name.
    static_roots: FxHashMap<String, RootId>,
    /// Indices into `static` tables computed at run time.
    run_time_indices: Vec<Iteration>,
    /// How iterator values walk memory.
    iters: FxHashMap<ValueId, closures::IterInfo>,
    /// Values that are a parameter's struct, or a field of one, by parameter index.
    param_structs: FxHashMap<ValueId, usize>,
    /// The compiler's type of each value that has one.
    value_types: FxHashMap<ValueId, Ty<'tcx>>,
    /// Values defined once already (a second definition is a reassignment).
    defined: FxHashSet<ValueId>,
    /// `Layout` values: element size and element count.
    layouts: FxHashMap<ValueId, (u32, Expr)>,
    /// Closure bodies reserved and not lowered yet.
    pending: FxHashMap<BodyId, closures::PendingClosure>,
    /// The value of each closure this function made, by the closure's item.
    closure_values: FxHashMap<DefId, ValueId>,
    /// The iteration of each loop that walks a range or an iterator, by its header.
    loop_iterations: FxHashMap<(BodyId, BasicBlock), Iteration>,
    /// Ops to put at the start of a block lowered later (what a branch says on a side).
    prologues: FxHashMap<(BodyId, BlockId), Vec<(Op, Span)>>,
    /// `p.is_null()` results, with the pointer tested.
    null_tests: FxHashMap<ValueId, ValueId>,
    /// Null pointers (`ptr::null_mut()`).
    nulls: FxHashSet<ValueId>,
    /// The value the assignment being lowered replaces (the local's before it).
    replaced: Option<ValueId>,
    /// Shapes given with strides (`(n, m).strides((s, 1))`).
    shape_strides: FxHashMap<ValueId, (Vec<Expr>, Vec<Expr>)>,
    /// The memory each parameter's object reaches, as one value (see `struct_memory`).
    object_memory: FxHashMap<usize, ValueId>,
    /// How a callee's releases are said while a destructor runs (the drop's own way).
    releasing: Option<tensor_lint_analyzer::ir::ReleaseKind>,
    /// Scalar temporaries that copy another value.
    scalar_copies: FxHashMap<ValueId, ValueId>,
    /// How each block that jumps somewhere would return, were its jump the return.
    exits: FxHashMap<(BodyId, BlockId), (ReturnKind, Span)>,
    loop_ranges: Vec<(BodyId, Iteration)>,
    loop_starts: Vec<(String, Expr)>,
    compared: Vec<(Expr, Expr)>,
    /// Symbols handed out, by base name, to keep them unique.
    symbols: FxHashMap<String, u32>,
    /// Roots made for a value with no name yet (the result of `make()?`), named after
    /// the first variable that holds them once the function is lowered.
    unnamed_roots: FxHashSet<RootId>,
    /// Memory a call returned in one variant of an enum (`Ok(p)` of a
    /// `Result`): it exists only where that variant is the one returned.
    variant_payloads: FxHashSet<ValueId>,
    /// `d = discriminant(e)`: the enum value `e` each discriminant was read from.
    discriminants: FxHashMap<ValueId, ValueId>,
    /// Enum values that say whether a pointer is null (`NonNull::new(p)`, and the
    /// `ok_or` and `?` of it): the pointer and the variant that means null.
    null_variants: FxHashMap<ValueId, (ValueId, u32)>,
    /// The fields of values this function names in a place (`self.addr`, `&me.fence`),
    /// by value and field index.
    mentioned_fields: FxHashSet<(ValueId, u32)>,
    /// The memory of a struct held in a local whose fields are borrowed, by the struct
    /// value ([`Self::field_bytes`]).
    struct_bytes: FxHashMap<ValueId, ValueId>,
    /// `&mut v` of a variable that owns memory: the variable, by the reference (a view
    /// of the memory, as any borrow of it).
    borrowed_owners: FxHashMap<ValueId, ValueId>,
    /// Collections of handles each owed a release (`xs.iter().map(make).collect()`),
    /// and the values that lead to one (see `handles`).
    handles: handles::Handles,
    /// Pointers closures make into what they are given (see `moved`).
    pointers: moved::Pointers,
    /// Set while a rayon producer's `fold_with` is lowered (see `producers`).
    producer: Option<producers::Producer>,
    /// Iterators made by `map` with a closure: what they map, and the closure.
    mapped_closures: FxHashMap<ValueId, (ValueId, BodyId)>,
    /// A `Drop::drop` whose body makes one foreign call: that call, given the value's
    /// pointer, is its release whatever it is named (`obj_decref(self.0.as_ptr())`).
    drop_through_foreign: bool,
    /// Struct values of a parameter's object whose cells are addressed by bytes (see
    /// `types::shared_cells`): the value standing for the object's bytes, and where
    /// the struct starts in them.
    object_bytes: FxHashMap<ValueId, (ValueId, i64)>,
    stmts: usize,
    truncated: bool,
}

/// The state of one MIR body being lowered into one IR body.
pub(crate) struct BodyCx<'tcx> {
    mir: &'tcx mir::Body<'tcx>,
    id: BodyId,
    /// The first value of each MIR local (its parameter value, or the value it starts
    /// with); a local assigned once has no other.
    locals: Vec<ValueId>,
    /// The value each local holds at the point being lowered. A local assigned more
    /// than once gets a new value at every assignment and at every block where control
    /// from several assignments joins (the join's value is assigned from each
    /// predecessor's), so that every value holds one thing wherever it is used.
    current: Vec<ValueId>,
    /// Which locals are assigned more than once.
    multi_def: Vec<bool>,
    /// The locals whose value depends on the path: the return place and those assigned
    /// more than once. A local assigned once holds the same value wherever it is used
    /// (its assignment dominates its uses), so it needs no per-block record.
    tracked: Vec<usize>,
    /// The values of the tracked locals at the end of each lowered block, in the order
    /// of `tracked`.
    exits: FxHashMap<BasicBlock, Vec<ValueId>>,
    /// The joins: block, local, value.
    /// For a closure: the value each captured variable was built from, by upvar index.
    upvars: Vec<ValueId>,
    /// The IR block being filled.
    cur: BlockId,
    /// The body's natural loops.
    loops: Vec<closures::NaturalLoop>,
    /// The index checks lowered so far (index, length), each counted once.
    checked_indices: FxHashSet<(String, String)>,
    /// Where each local is defined, made when first asked.
    definitions: std::cell::OnceCell<unwind::Definitions<'tcx>>,
    /// The function's type parameters whose methods run the caller's code.
    code_params: std::cell::OnceCell<Vec<(u32, &'static str)>>,
    /// Whether the body is a method of a guard that borrows what it works on.
    borrowing_guard: std::cell::OnceCell<bool>,
    /// Whether the body calls what makes a duplicate (`ptr::read`, `ptr::copy`, ..).
    makes_duplicates: std::cell::OnceCell<bool>,
    /// The spans of the body's `return` expressions (not those of closures in it).
    returns: Vec<rustc_span::Span>,
    /// The spans of its `break` and `continue` expressions.
    jumps: Vec<rustc_span::Span>,
    /// The values made where control joins: block, local, value.
    phis: Vec<(BasicBlock, Local, ValueId)>,
    /// The `true` sides of the branches on a known comparison lowered so far: the block
    /// control enters only from that side, and what holds there.
    guard_edges: Vec<(BasicBlock, tensor_lint_analyzer::ir::Assumption)>,
    /// Fields of what a parameter points to that a loop of the body assigns (`self.spare
    /// = next` walking a chain), as the local and projections that reach them.
    loop_stored_fields: FxHashSet<(Local, Vec<mir::PlaceElem<'tcx>>)>,
}

impl<'tcx> BodyCx<'tcx> {
    /// Where each local of the body is defined.
    pub(crate) fn definitions(&self) -> &unwind::Definitions<'tcx> {
        self.definitions
            .get_or_init(|| unwind::Definitions::of(self.mir))
    }
}

impl<'a, 'tcx> FnLowerer<'a, 'tcx> {
    /// Lowers function `id` with the callee summaries known so far.
    pub(crate) fn lower(
        cx: &'a CrateCx<'a, 'tcx>,
        summaries: &'a [Option<FnSummary>],
        id: FnId,
    ) -> Option<FnIr> {
        let def = *cx.fns.get(id.0 as usize)?;
        let tcx = cx.tcx;
        let mir = tcx.optimized_mir(def.to_def_id());
        if mir.tainted_by_errors.is_some() {
            return None;
        }
        let span = cx.files.span(tcx.def_span(def)).unwrap_or(Span::new(
            tensor_lint_analyzer::source::FileId(0),
            0,
            0,
        ));
        let mut lowerer = FnLowerer {
            cx,
            tcx,
            summaries,
            id,
            def,
            env: TypingEnv::post_analysis(tcx, def),
            span,
            values: Vec::new(),
            roots: Vec::new(),
            bodies: Vec::new(),
            callees: Vec::new(),
            summaries_read: Default::default(),
            fields: FxHashMap::default(),
            pointees: FxHashMap::default(),
            array_literals: FxHashMap::default(),
            repeated_closures: FxHashSet::default(),
            whole_views: FxHashMap::default(),
            aliases: FxHashMap::default(),
            ranges: FxHashMap::default(),
            slice_elems: FxHashMap::default(),
            slice_infos: FxHashMap::default(),
            parallel_ranges: FxHashSet::default(),
            zips: FxHashMap::default(),
            storage_tests: Vec::new(),
            owner_parts: FxHashMap::default(),
            owner_copies: Vec::new(),
            second_owners: FxHashMap::default(),
            unowned_builds: Vec::new(),
            conditions: FxHashMap::default(),
            element_values: Vec::new(),
            returned_conditions: Vec::new(),
            guards: Vec::new(),
            run_values: Vec::new(),
            iter_lens: FxHashMap::default(),
            shapes: FxHashMap::default(),
            indexed: FxHashMap::default(),
            static_roots: FxHashMap::default(),
            run_time_indices: Vec::new(),
            iters: FxHashMap::default(),
            param_structs: FxHashMap::default(),
            value_types: FxHashMap::default(),
            defined: FxHashSet::default(),
            layouts: FxHashMap::default(),
            pending: FxHashMap::default(),
            closure_values: FxHashMap::default(),
            loop_iterations: FxHashMap::default(),
            prologues: FxHashMap::default(),
            null_tests: FxHashMap::default(),
            nulls: FxHashSet::default(),
            replaced: None,
            releasing: None,
            object_memory: FxHashMap::default(),
            shape_strides: FxHashMap::default(),
            scalar_copies: FxHashMap::default(),
            exits: FxHashMap::default(),
            loop_ranges: Vec::new(),
            loop_starts: Vec::new(),
            compared: Vec::new(),
            symbols: FxHashMap::default(),
            unnamed_roots: FxHashSet::default(),
            variant_payloads: FxHashSet::default(),
            discriminants: FxHashMap::default(),
            null_variants: FxHashMap::default(),
            mentioned_fields: FxHashSet::default(),
            struct_bytes: FxHashMap::default(),
            borrowed_owners: FxHashMap::default(),
            handles: handles::Handles::default(),
            pointers: moved::Pointers::default(),
            producer: producers::producer_of(tcx, cx.models, def.to_def_id()),
            mapped_closures: FxHashMap::default(),
            drop_through_foreign: foreign::drop_through_foreign(tcx, def.to_def_id(), mir),
            object_bytes: FxHashMap::default(),
            stmts: 0,
            truncated: false,
        };
        let id_fn = BodyId(0);
        lowerer.bodies.push(Body {
            kind: BodyKind::Function,
            no_grad: false,
            params: Vec::new(),
            blocks: Vec::new(),
            span,
        });
        lowerer.lower_body_into(id_fn, mir, BodyKind::Function, Vec::new(), &[]);
        lowerer.lower_remaining_closures();
        lowerer.finish_producer(span);
        Some(lowerer.finish())
    }

    fn finish(mut self) -> FnIr {
        self.complete_kinds();
        self.name_roots();
        let tcx = self.tcx;
        let def = self.def.to_def_id();
        let name = tcx.item_name(def).to_string();
        let self_ty = tcx.impl_of_assoc(def).map(|imp| {
            types::short_name(tcx, tcx.type_of(imp).instantiate_identity().skip_norm_wip())
        });
        let mut callees = self.callees;
        callees.extend(self.summaries_read.into_inner());
        callees.sort();
        callees.dedup();
        FnIr {
            id: self.id,
            name,
            path: tcx.def_path_str(def),
            self_ty,
            annotations: self
                .cx
                .annotations
                .get(self.id.0 as usize)
                .cloned()
                .unwrap_or_default(),
            values: self.values,
            roots: self.roots,
            bodies: self.bodies,
            callees,
            span: self.span,
            truncated: self.truncated,
            loop_ranges: self.loop_ranges,
            compared: self.compared,
            storage_tests: self.storage_tests,
            owner_copies: self.owner_copies,
            unowned_builds: self.unowned_builds,
            run_time_indices: self.run_time_indices,
            run_values: self.run_values,
            element_values: self.element_values,
            loop_starts: self.loop_starts,
            guards: self.guards,
            loop_carried: Vec::new(),
            returns_condition: match self.returned_conditions.as_slice() {
                [Some(first), rest @ ..] if rest.iter().all(|r| r.as_ref() == Some(first)) => {
                    vec![first.clone()]
                }
                _ => Vec::new(),
            },
        }
    }

    /// Gives every value that receives memory through an assignment or a view, but was
    /// lowered before its source was, the kind of its source (a root it reaches), as
    /// the same lowering in source order would have.
    fn complete_kinds(&mut self) {
        loop {
            let mut changed = false;
            for body in &self.bodies {
                for block in &body.blocks {
                    for stmt in &block.stmts {
                        let (Op::Assign { dst, src } | Op::View { dst, src, .. }) = &stmt.op else {
                            continue;
                        };
                        let Some(root) = self.values[src.0 as usize].kind.root() else {
                            continue;
                        };
                        let dst = &mut self.values[dst.0 as usize];
                        if dst.kind == ValueKind::Unknown {
                            dst.kind = match dst.ty {
                                TyClass::RawPtr => ValueKind::RawPtr(Some(root)),
                                _ => ValueKind::View(root),
                            };
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Gives each root made for an unnamed value the name of the first variable that
    /// comes to hold it (`session` of `let session = create()?`).
    fn name_roots(&mut self) {
        if self.unnamed_roots.is_empty() {
            return;
        }
        let mut names: FxHashMap<RootId, String> = FxHashMap::default();
        let stmts = self
            .bodies
            .iter()
            .flat_map(|body| &body.blocks)
            .flat_map(|block| &block.stmts);
        for stmt in stmts {
            let (Op::Assign { dst, .. } | Op::View { dst, .. }) = &stmt.op else {
                continue;
            };
            let value = &self.values[dst.0 as usize];
            let (Some(name), Some(root)) = (value.name.as_deref(), value.kind.root()) else {
                continue;
            };
            let plain = name.chars().all(|c| c.is_alphanumeric() || c == '_');
            if plain && self.unnamed_roots.contains(&root) {
                names.entry(root).or_insert_with(|| name.to_string());
            }
        }
        // The value that owns the memory goes by that name too (the payload of the
        // `Ok` a constructor returned, before `?` binds it).
        for &payload in &self.variant_payloads {
            let value = &mut self.values[payload.0 as usize];
            if let (None, ValueKind::Root(root)) = (&value.name, &value.kind) {
                if let Some(name) = names.get(root) {
                    value.name = Some(name.clone());
                }
            }
        }
        for (root, name) in names {
            self.roots[root.0 as usize].name = name;
        }
    }

    /// Lowers one MIR body into the reserved IR body `id`; `upvars` are the values a
    /// closure's captures were built from, `params` what its parameters are bound to.
    fn lower_body_into(
        &mut self,
        id: BodyId,
        mir: &'tcx mir::Body<'tcx>,
        kind: BodyKind,
        upvars: Vec<ValueId>,
        params: &[Option<ValueId>],
    ) {
        let span = self.span_or_fn(mir.span);
        let loops = closures::natural_loops(mir);
        let mut depths = vec![0u32; mir.basic_blocks.len()];
        for l in &loops {
            for (k, inside) in l.blocks.iter().enumerate() {
                if *inside {
                    depths[k] += 1;
                }
            }
        }
        let outer_depth = match &kind {
            BodyKind::Closure { parent, .. } => self
                .bodies
                .get(parent.0 as usize)
                .map_or(0, |b| b.blocks.first().map_or(0, |b| b.loop_depth)),
            BodyKind::Function => 0,
        } + u32::from(self.repeated_closures.contains(&id));
        let blocks = (0..mir.basic_blocks.len())
            .map(|k| Block {
                stmts: Vec::new(),
                term: Terminator::Unreachable,
                term_span: span,
                loop_depth: outer_depth + depths[k],
            })
            .collect();
        self.bodies[id.0 as usize] = Body {
            kind,
            no_grad: false,
            params: Vec::new(),
            blocks,
            span,
        };
        let (returns, jumps) = jump_spans(self.tcx, mir);
        let mut b = BodyCx {
            mir,
            id,
            locals: Vec::new(),
            current: Vec::new(),
            tracked: Vec::new(),
            multi_def: multi_defined(mir),
            exits: FxHashMap::default(),
            upvars,
            cur: BlockId(0),
            loops,
            checked_indices: FxHashSet::default(),
            definitions: std::cell::OnceCell::new(),
            code_params: std::cell::OnceCell::new(),
            borrowing_guard: std::cell::OnceCell::new(),
            makes_duplicates: std::cell::OnceCell::new(),
            returns,
            jumps,
            phis: Vec::new(),
            loop_stored_fields: FxHashSet::default(),
            guard_edges: Vec::new(),
        };
        b.loop_stored_fields = loop_stored_fields(mir, &b.loops);
        self.declare_locals(&mut b);
        b.current = b.locals.clone();
        b.tracked = (0..b.locals.len())
            .filter(|&k| k == 0 || b.multi_def[k])
            .collect();
        // A closure's parameters hold what it is called with.
        let bound: Vec<(ValueId, ValueId)> = self.bodies[id.0 as usize]
            .params
            .iter()
            .zip(params)
            .filter_map(|(&p, &v)| Some((p, v?)))
            .collect();
        for (param, value) in bound {
            self.copy_value(&b, param, value, span);
        }
        for &bb in mir.basic_blocks.reverse_postorder() {
            let data = &mir.basic_blocks[bb];
            if data.is_cleanup {
                continue;
            }
            b.cur = BlockId(bb.as_u32());
            self.enter_block(&mut b, bb);
            if let Some(prologue) = self.prologues.remove(&(b.id, b.cur)) {
                for (op, span) in prologue {
                    self.emit(&b, op, span);
                }
            }
            for stmt in &data.statements {
                self.stmts += 1;
                if self.stmts > MAX_STMTS {
                    self.truncated = true;
                    break;
                }
                self.statement(&mut b, stmt);
            }
            if let Some(term) = &data.terminator {
                self.terminator(&mut b, term);
            }
            let exit = b.tracked.iter().map(|&k| b.current[k]).collect();
            b.exits.insert(bb, exit);
        }
        let joins: FxHashSet<(usize, ValueId)> = b
            .phis
            .iter()
            .map(|&(bb, _, v)| (bb.as_usize(), v))
            .collect();
        // What each join is joined from: a return of a join returns each of them.
        let mut join_inputs: FxHashMap<ValueId, Vec<ValueId>> = FxHashMap::default();
        for &(bb, local, phi) in &b.phis {
            let at = b
                .tracked
                .binary_search(&local.as_usize())
                .unwrap_or_default();
            let inputs = mir.basic_blocks.predecessors()[bb]
                .iter()
                .filter_map(|p| b.exits.get(p).map(|e| e[at]))
                .filter(|&v| v != phi)
                .collect();
            join_inputs.insert(phi, inputs);
        }
        self.finish_joins(&mut b);
        self.finish_handle_releases(&b);
        // Jumps to the return first, so that each return gives back the value its own
        // path built (`Ok(p)` in one arm, `Err(e)` in another), not their join.
        let sources = self.shortcut_returns(id);
        self.finish_returns(&mut b, &sources, &joins, &join_inputs);
    }

    /// A jump to a block that only returns is the return itself, at the jump: every
    /// `return`, `?` and the end of the body are exits of their own, with their own
    /// places, as the user wrote them.
    ///
    /// Returns, for each block that became a return, the blocks its jumps went through
    /// to the return it took.
    fn shortcut_returns(&mut self, body: BodyId) -> FxHashMap<usize, Vec<usize>> {
        let mut sources: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
        let blocks = &mut self.bodies[body.0 as usize].blocks;
        loop {
            let mut changed = false;
            for k in 0..blocks.len() {
                let Terminator::Goto(target) = blocks[k].term else {
                    continue;
                };
                let t = &blocks[target.0 as usize];
                let Terminator::Return { value, .. } = t.term else {
                    continue;
                };
                // The parts of the returned value escaping are the return's own ops, and
                // copies into the values joined at the return are no effect of their own.
                let returns_only = t.stmts.iter().all(|s| {
                    matches!(
                        s.op,
                        Op::Escape {
                            how: tensor_lint_analyzer::ir::EscapeKind::Returned,
                            ..
                        } | Op::Assign { .. }
                    )
                });
                if !returns_only || target.0 as usize == k {
                    continue;
                }
                let escapes = t.stmts.clone();
                let Some(&(kind, at)) = self.exits.get(&(body, BlockId(k as u32))) else {
                    continue;
                };
                // A jump that is no `return` or `?` of its own leads to the return it
                // reaches, which says how and where the body returns.
                let (kind, at) = match (kind, &t.term) {
                    (ReturnKind::End, Terminator::Return { kind, .. }) => (*kind, t.term_span),
                    (kind, _) => (kind, at),
                };
                blocks[k].stmts.extend(escapes);
                blocks[k].term = Terminator::Return { value, kind };
                blocks[k].term_span = at;
                let t = target.0 as usize;
                let mut path = vec![t];
                path.extend(sources.get(&t).cloned().unwrap_or_default());
                sources.insert(k, path);
                changed = true;
            }
            if !changed {
                break;
            }
        }
        sources
    }

    /// The values of the locals where `bb` starts: those its one predecessor ends with,
    /// or, where control joins, a new value for each local assigned more than once.
    fn enter_block(&mut self, b: &mut BodyCx<'tcx>, bb: BasicBlock) {
        let mir = b.mir;
        if bb == mir::START_BLOCK {
            return;
        }
        let preds: Vec<BasicBlock> = mir.basic_blocks.predecessors()[bb]
            .iter()
            .copied()
            .filter(|p| !mir.basic_blocks[*p].is_cleanup)
            .collect();
        let restore = |b: &mut BodyCx<'tcx>, exit: &[ValueId]| {
            for (i, &k) in b.tracked.iter().enumerate() {
                b.current[k] = exit[i];
            }
        };
        if let [pred] = preds.as_slice() {
            if let Some(exit) = b.exits.get(pred).cloned() {
                restore(b, &exit);
                return;
            }
        }
        // Start from any lowered predecessor, then join the others.
        if let Some(exit) = preds.iter().find_map(|p| b.exits.get(p)).cloned() {
            restore(b, &exit);
        }
        // With every predecessor lowered (no loop jumps back here), a local that all of
        // them leave with the same value keeps it: no join.
        let all_lowered = preds.iter().all(|p| b.exits.contains_key(p));
        for i in 0..b.tracked.len() {
            let k = b.tracked[i];
            if !b.multi_def[k] {
                continue;
            }
            if all_lowered {
                let mut incoming = preds.iter().filter_map(|p| b.exits.get(p).map(|e| e[i]));
                let first = incoming.next();
                if first.is_some() && incoming.all(|v| Some(v) == first) {
                    continue;
                }
            }
            let local = Local::from_usize(k);
            let phi = self.new_version(b, local);
            self.value_mut(phi).reassigned = true;
            // What the predecessors lowered so far hold says whether the join holds
            // memory (its assignments, made once the body is lowered, say which): a
            // call on the joined value needs to know now.
            let incoming: Vec<ValueId> = preds
                .iter()
                .filter_map(|p| b.exits.get(p).map(|e| e[i]))
                .collect();
            let held = incoming
                .iter()
                .map(|&v| self.value(v).kind.clone())
                .find(ValueKind::is_memory);
            // An address kept as an integer (`addr = raw as usize` on one path, the
            // result of a compare-and-swap on another) reaches that memory only on
            // the paths that assigned it: the join is no address.
            let integer = self.value(b.locals[k]).ty == TyClass::Scalar;
            let mixed = incoming.iter().any(|&v| !self.value(v).kind.is_memory());
            let held = held.filter(|_| !(integer && all_lowered && mixed));
            if let Some(kind) = held {
                self.value_mut(phi).kind = kind;
            }
            b.current[k] = phi;
            b.phis.push((bb, local, phi));
        }
    }

    /// Each join's value is assigned, at the end of every predecessor, the value the
    /// predecessor ends with.
    fn finish_joins(&mut self, b: &mut BodyCx<'tcx>) {
        let mir = b.mir;
        let phis = std::mem::take(&mut b.phis);
        for (bb, local, phi) in phis {
            let mut ints = Vec::new();
            for &pred in mir.basic_blocks.predecessors()[bb].iter() {
                let at = b
                    .tracked
                    .binary_search(&local.as_usize())
                    .unwrap_or_default();
                let Some(src) = b.exits.get(&pred).map(|e| e[at]) else {
                    continue;
                };
                ints.push(self.value(src).int.clone());
                if src == phi {
                    continue;
                }
                b.cur = BlockId(pred.as_u32());
                let span = self.value(src).span;
                // Only memory flows through a join's assignments.
                if self.value(phi).ty.holds_memory() || self.value(src).kind.is_memory() {
                    self.emit(b, Op::Assign { dst: phi, src }, span);
                }
                // A struct joined from copies of one struct is that struct.
                if self.value(src).kind == ValueKind::Unknown {
                    let canonical = self.canonical(src);
                    if canonical != phi && !self.aliases.contains_key(&phi) {
                        self.aliases.insert(phi, canonical);
                    }
                }
            }
            // An integer that is the same on every incoming path keeps its value.
            if let Some(Some(first)) = ints.first() {
                if ints.iter().all(|i| i.as_ref() == Some(first)) {
                    let first = first.clone();
                    self.value_mut(phi).int = Some(first);
                }
            }
        }
    }

    /// A new value for local `local`, named and typed as it is.
    pub(crate) fn new_version(&mut self, b: &BodyCx<'tcx>, local: Local) -> ValueId {
        let base = b.locals[local.as_usize()];
        let (name, kind, ty, span) = {
            let v = self.value(base);
            let kind = if v.ty == TyClass::Scalar {
                ValueKind::Scalar
            } else {
                ValueKind::Unknown
            };
            (v.name.clone(), kind, v.ty, v.span)
        };
        let v = self.new_value(name, kind, ty, span);
        if let Some(&t) = self.value_types.get(&base) {
            self.value_types.insert(v, t);
        }
        if let Some(&index) = self.param_structs.get(&base) {
            self.param_structs.insert(v, index);
        }
        v
    }

    /// The value local `local` holds where the lowering is.
    pub(crate) fn local(&self, b: &BodyCx<'tcx>, local: Local) -> ValueId {
        b.current[local.as_usize()]
    }

    /// The value an assignment to `local` defines: a new one for a local assigned more
    /// than once, which the caller makes current once the assigned value is read.
    pub(crate) fn assigned(&mut self, b: &BodyCx<'tcx>, local: Local) -> ValueId {
        if b.multi_def[local.as_usize()] {
            self.new_version(b, local)
        } else {
            self.local(b, local)
        }
    }

    /// One value per local, named after the variable it holds; the function's own
    /// parameters reach the caller's memory.
    fn declare_locals(&mut self, b: &mut BodyCx<'tcx>) {
        let mir = b.mir;
        let mut names: FxHashMap<Local, String> = FxHashMap::default();
        for info in &mir.var_debug_info {
            // Bindings the compiler makes for `?` and `for` are not the user's.
            let declared = match &info.value {
                mir::VarDebugInfoContents::Place(place) => {
                    mir.local_decls[place.local].source_info.span
                }
                _ => info.source_info.span,
            };
            let span = info.source_info.span;
            // (`?` names its value `val` over the span of the whole `x?`: a binding the
            // user wrote is named by its own identifier.)
            let written = self
                .tcx
                .sess
                .source_map()
                .span_to_snippet(span)
                .map_or(true, |text| text.ends_with(info.name.as_str()));
            let desugared = !written
                || span.desugaring_kind().is_some()
                || declared.desugaring_kind().is_some()
                || span.is_dummy()
                || matches!(
                    span.ctxt().outer_expn_data().kind,
                    rustc_span::ExpnKind::Desugaring(_)
                );
            if desugared {
                continue;
            }
            if let mir::VarDebugInfoContents::Place(place) = &info.value {
                if place.projection.is_empty() && info.composite.is_none() {
                    names
                        .entry(place.local)
                        .or_insert_with(|| info.name.to_string());
                }
            }
        }
        let is_fn = b.id.0 == 0;
        for (local, decl) in mir.local_decls.iter_enumerated() {
            let span = self.span_or_fn(decl.source_info.span);
            let ty = decl.ty;
            let class = types::class_of(self.tcx, ty);
            let name = names.get(&local).cloned();
            let kind = if class == TyClass::Scalar {
                ValueKind::Scalar
            } else {
                ValueKind::Unknown
            };
            let v = self.new_value(name.clone(), kind, class, span);
            self.value_types.insert(v, ty);
            b.locals.push(v);
            let index = local.as_usize();
            let is_param = index >= 1 && index <= mir.arg_count;
            // A closure's first argument is the closure itself (its captures).
            if is_param && !(index == 1 && !is_fn) {
                self.bodies[b.id.0 as usize].params.push(v);
            }
            if is_param && is_fn {
                self.declare_param(v, index - 1, name.as_deref(), ty, span);
            }
        }
    }

    /// The bytes of the caller's `object` that parameter `index` shares, as the compiler
    /// lays them out: a root of its own, and a view of all of it.
    fn object_bytes_root(
        &mut self,
        name: &str,
        index: usize,
        object: Ty<'tcx>,
        span: Span,
    ) -> Option<(RootId, View)> {
        let size = types::size_of(self.tcx, self.env, object)?;
        let root = self.caller_root(name, index, self.tcx.types.u8, span);
        let len = Expr::int(i64::try_from(size).unwrap_or(i64::MAX));
        let r = &mut self.roots[root.0 as usize];
        r.shape = Some(vec![len.clone()]);
        r.elem_type = Some(types::short_name(self.tcx, object));
        Some((root, View::contiguous(root, 1, vec![len])))
    }

    /// What a parameter of the function reaches: its integer is a symbol of its name,
    /// its pointers and references reach the caller's memory, what it owns is its own.
    fn declare_param(
        &mut self,
        v: ValueId,
        index: usize,
        name: Option<&str>,
        ty: Ty<'tcx>,
        span: Span,
    ) {
        let name = name.unwrap_or("arg").to_string();
        let class = self.values[v.0 as usize].ty;
        if class == TyClass::Scalar {
            if ty.is_integral() {
                self.values[v.0 as usize].int = Some(Expr::sym(&name));
            }
            return;
        }
        // A struct shared between threads (`Arc<S>`, `&S`) whose fields are counters,
        // atomics or cells: the object's bytes, laid out as the compiler lays them out.
        if let Some(object) = types::shared_counters(self.tcx, self.env, ty) {
            if let Some((root, view)) = self.object_bytes_root(&name, index, object, span) {
                self.define(v, ValueKind::View(root), Some(view));
                return;
            }
        }
        // A struct shared by reference with cells among fields that point elsewhere:
        // its cells are bytes of the object, its other fields the caller's memory, as
        // for any struct.
        if let Some(object) = types::shared_cells(self.tcx, ty) {
            if let Some((root, view)) = self.object_bytes_root(&name, index, object, span) {
                let bytes = self.new_value(Some(name.clone()), ValueKind::View(root), class, span);
                self.values[bytes.0 as usize].view = Some(view);
                self.object_bytes.insert(v, (bytes, 0));
            }
        }
        // A tensor: memory of elements whose type is only known at run time, owned by
        // the library's handle (the caller's).
        if class == TyClass::Tensor {
            let root = self.caller_root(&name, index, self.tcx.types.f32, span);
            let kind = if ty.is_ref() {
                ValueKind::View(root)
            } else {
                ValueKind::Root(root)
            };
            self.define(v, kind, None);
            return;
        }
        let owned = types::owns_memory(self.tcx, ty);
        let elem = types::element_of(self.tcx, ty);
        // A struct, by value or behind a reference: its fields reach the caller's.
        let Some(elem) = elem.filter(|_| !matches!(class, TyClass::LocalStruct | TyClass::Unknown))
        else {
            self.param_structs.insert(v, index);
            return;
        };
        if !(class.holds_memory() || owned) {
            return;
        }
        let released_by = if owned {
            ReleasedBy::Drop
        } else {
            ReleasedBy::NotOwned
        };
        let root = self.new_root(&name, RootOrigin::Param(index), elem, released_by, span);
        // An array passed by value is the callee's own copy: what it writes there is no
        // write of the caller's.
        self.roots[root.0 as usize].copied_in = matches!(ty.kind(), rustc_middle::ty::Array(..));
        let kind = match class {
            TyClass::RawPtr => ValueKind::RawPtr(Some(root)),
            _ if owned => ValueKind::Root(root),
            _ => ValueKind::View(root),
        };
        // A pointer points at the first element; a buffer is one dimension of a length
        // the caller picks.
        let elem_bytes = self.roots[root.0 as usize].elem_bytes;
        let rank = types::ndarray_rank(self.tcx, ty);
        let view = if let Some(rank) = rank.filter(|_| class != TyClass::RawPtr) {
            View::of_parameter(root, elem_bytes, &name, rank, class == TyClass::Array)
        } else if class == TyClass::RawPtr || !types::is_buffer_target(self.tcx, ty) {
            View {
                root,
                elem_bytes,
                offset: Expr::int(0),
                dims: Vec::new(),
            }
        } else {
            View {
                root,
                elem_bytes,
                offset: Expr::int(0),
                dims: vec![Dim::new(Expr::sym(&format!("{name}.len")), 1)],
            }
        };
        self.define(v, kind, Some(view));
    }

    fn statement(&mut self, b: &mut BodyCx<'tcx>, stmt: &mir::Statement<'tcx>) {
        self.replaced = None;
        let span = self.span_or_fn(stmt.source_info.span);
        match &stmt.kind {
            mir::StatementKind::Assign(assign) => {
                let (place, rvalue) = &**assign;
                self.assign(b, place, rvalue, span);
                self.count_field_set(b, place, span);
            }
            mir::StatementKind::Intrinsic(intrinsic) => {
                if let mir::NonDivergingIntrinsic::CopyNonOverlapping(copy) = &**intrinsic {
                    if let Some(src) = self.operand(b, &copy.src, span) {
                        self.emit(
                            b,
                            Op::Read {
                                value: src,
                                region: None,
                            },
                            span,
                        );
                    }
                    if let Some(dst) = self.operand(b, &copy.dst, span) {
                        self.emit(
                            b,
                            Op::Write {
                                value: dst,
                                region: None,
                            },
                            span,
                        );
                    }
                }
            }
            _ => {}
        }
    }

    fn terminator(&mut self, b: &mut BodyCx<'tcx>, term: &mir::Terminator<'tcx>) {
        self.replaced = None;
        let span = self.span_or_fn(term.source_info.span);
        let next = match &term.kind {
            TerminatorKind::Goto { target, .. } => {
                // Should this jump lead to the return, this block returns: how, and where.
                let (kind, at) = self.return_kind(b);
                self.exits.insert((b.id, b.cur), (kind, at.unwrap_or(span)));
                // A `break` or `continue` jumps from where it is written (the compiler
                // gives the jump itself no place; the unit value it leaves has one).
                let bb = BasicBlock::from_u32(b.cur.0);
                let jump = b.mir.basic_blocks[bb]
                    .statements
                    .iter()
                    .find_map(|s| {
                        b.jumps
                            .iter()
                            .filter(|j| j.contains(s.source_info.span))
                            .min_by_key(|j| j.hi() - j.lo())
                            .copied()
                    })
                    .or_else(|| branch_jump(b, bb));
                if let Some(at) = jump.and_then(|j| self.cx.files.span(j)) {
                    // A `break` stays a jump, even to the return: it is what a message
                    // about the path names.
                    self.exits.remove(&(b.id, b.cur));
                    let ir_block = &mut self.bodies[b.id.0 as usize].blocks[b.cur.0 as usize];
                    ir_block.term = Terminator::Goto(block(*target));
                    ir_block.term_span = at;
                    return;
                }
                Terminator::Goto(block(*target))
            }
            TerminatorKind::SwitchInt { discr, targets } => {
                let cond = self.operand(b, discr, span).map(|c| self.scalar_origin(c));
                // `if key % parts == part { .. }`: the `true` side (a bool switch sends
                // 0 elsewhere), entered from here alone, runs where the test holds.
                let said = cond.and_then(|c| self.conditions.get(&c).cloned());
                if let (Some(said), [(0, _)]) =
                    (said, targets.iter().collect::<Vec<_>>().as_slice())
                {
                    let side = targets.otherwise();
                    if b.mir.basic_blocks.predecessors()[side].len() == 1 {
                        b.guard_edges.push((side, said));
                    }
                }
                // `if p.is_null()`: on the side where it is, nothing was allocated.
                if let Some(pointer) = cond.and_then(|c| self.null_tests.get(&c).copied()) {
                    if let Some((_, null_side)) = targets.iter().find(|(v, _)| *v != 0) {
                        self.prologue(
                            b.id,
                            block(null_side),
                            Op::AssumeNull { value: pointer },
                            span,
                        );
                    } else {
                        self.prologue(
                            b.id,
                            block(targets.otherwise()),
                            Op::AssumeNull { value: pointer },
                            span,
                        );
                    }
                }
                // `match make() { Ok(p) => .., Err(e) => .. }` and `make()?`: memory the
                // call returned in a variant exists only on that variant's side.
                if let Some(e) = cond.and_then(|c| self.discriminants.get(&c).copied()) {
                    let payloads: Vec<(u32, ValueId)> = self
                        .fields_of(e)
                        .into_iter()
                        .filter(|(_, _, v)| self.variant_payloads.contains(v))
                        .map(|(variant, _, v)| (variant, v))
                        .collect();
                    let sides: Vec<(Option<u128>, BasicBlock)> = targets
                        .iter()
                        .map(|(value, target)| (Some(value), target))
                        .chain(std::iter::once((None, targets.otherwise())))
                        .collect();
                    for (variant, payload) in payloads {
                        let holds = |value: Option<u128>| match value {
                            Some(value) => value == u128::from(variant),
                            None => !targets.iter().any(|(v, _)| v == u128::from(variant)),
                        };
                        for (value, target) in &sides {
                            if !holds(*value) {
                                self.prologue(
                                    b.id,
                                    block(*target),
                                    Op::AssumeNull { value: payload },
                                    span,
                                );
                            }
                        }
                    }
                }
                // `match NonNull::new(p)` and `NonNull::new(p)?`: on the side of the
                // variant that means null, nothing was allocated.
                if let Some((pointer, null)) = cond
                    .and_then(|c| self.discriminants.get(&c))
                    .and_then(|e| self.null_variants.get(e))
                    .copied()
                {
                    let explicit: Vec<u128> = targets.iter().map(|(v, _)| v).collect();
                    for (value, target) in targets.iter() {
                        if value == u128::from(null) {
                            self.prologue(
                                b.id,
                                block(target),
                                Op::AssumeNull { value: pointer },
                                span,
                            );
                        }
                    }
                    if !explicit.contains(&u128::from(null)) {
                        self.prologue(
                            b.id,
                            block(targets.otherwise()),
                            Op::AssumeNull { value: pointer },
                            span,
                        );
                    }
                }
                // A test of a `bool` (`0` or anything else) goes to its true side first,
                // as an `if` reads.
                let to: Vec<BlockId> = match targets.iter().collect::<Vec<_>>().as_slice() {
                    [(0, if_false)] => vec![block(targets.otherwise()), block(*if_false)],
                    values => values
                        .iter()
                        .map(|(_, t)| block(*t))
                        .chain(std::iter::once(block(targets.otherwise())))
                        .collect(),
                };
                Terminator::Branch { cond, targets: to }
            }
            // What is returned is known once the whole body is lowered (a loop's exit
            // may come before the loop's body in the order blocks are lowered).
            TerminatorKind::Return => {
                // What a `bool` result says when it is `true`, the same at every return.
                if b.id.0 == 0 {
                    let result = self.scalar_origin(self.local(b, mir::RETURN_PLACE));
                    let said = self.conditions.get(&result).cloned();
                    self.returned_conditions.push(said);
                }
                Terminator::Return {
                    value: None,
                    kind: ReturnKind::End,
                }
            }
            TerminatorKind::Call {
                func,
                args,
                destination,
                target,
                unwind,
                ..
            } => {
                self.may_unwind_at_call(b, func, args, *unwind, span);
                self.call(b, func, args, destination, span);
                self.duplicates_at_call(b, func, args, destination, *unwind, span);
                // `let i = self.stripe_of(key)`, a call nothing here knows.
                if let Some(local) = destination.as_local() {
                    self.name_unknown_integer(b, local, None);
                }
                match target {
                    Some(t) => Terminator::Goto(block(*t)),
                    None => Terminator::Unreachable,
                }
            }
            TerminatorKind::TailCall {
                func,
                args,
                fn_span,
            } => {
                let call_span = self.span_or_fn(*fn_span);
                let ret = mir::Place::return_place();
                self.call(b, func, args, &ret, call_span);
                Terminator::Return {
                    value: None,
                    kind: ReturnKind::End,
                }
            }
            TerminatorKind::Drop {
                place,
                target,
                replace,
                ..
            } => {
                if *replace {
                    self.drop_stored(b, place, span);
                } else {
                    self.drop_place(b, place, span);
                }
                Terminator::Goto(block(*target))
            }
            TerminatorKind::Assert {
                target,
                msg,
                unwind,
                ..
            } => {
                self.may_unwind_at_assert(b, msg, *unwind, span);
                Terminator::Goto(block(*target))
            }
            TerminatorKind::FalseEdge { real_target, .. } => Terminator::Goto(block(*real_target)),
            TerminatorKind::FalseUnwind { real_target, .. } => {
                Terminator::Goto(block(*real_target))
            }
            TerminatorKind::InlineAsm { targets, .. } => match targets.first() {
                Some(t) => Terminator::Goto(block(*t)),
                None => Terminator::Unreachable,
            },
            TerminatorKind::Yield { resume, .. } => Terminator::Goto(block(*resume)),
            TerminatorKind::UnwindResume
            | TerminatorKind::UnwindTerminate(_)
            | TerminatorKind::Unreachable
            | TerminatorKind::CoroutineDrop => Terminator::Unreachable,
        };
        let term_span = if matches!(next, Terminator::Return { .. }) {
            self.closing_brace(span)
        } else {
            span
        };
        let ir_block = &mut self.bodies[b.id.0 as usize].blocks[b.cur.0 as usize];
        ir_block.term = next;
        ir_block.term_span = term_span;
    }

    /// How the current block returns: through `?` (its span the `?`), a `return`
    /// expression (its span the keyword), or the end of the body (its closing brace).
    fn return_kind(&self, b: &BodyCx<'tcx>) -> (ReturnKind, Option<Span>) {
        let mir = b.mir;
        let bb = BasicBlock::from_u32(b.cur.0);
        let data = &mir.basic_blocks[bb];
        let mut spans: Vec<rustc_span::Span> =
            data.statements.iter().map(|s| s.source_info.span).collect();
        for &pred in &mir.basic_blocks.predecessors()[bb] {
            if let Some(term) = &mir.basic_blocks[pred].terminator {
                spans.push(term.source_info.span);
            }
        }
        for span in &spans {
            if span.desugaring_kind() == Some(rustc_span::DesugaringKind::QuestionMark) {
                let at =
                    self.cx.files.span(*span).map(|s| {
                        Span::new(s.file, (s.hi as usize).saturating_sub(1), s.hi as usize)
                    });
                return (ReturnKind::Try, at);
            }
        }
        for ret in &b.returns {
            if spans.iter().any(|s| ret.contains(*s)) {
                let at = self.cx.files.span(*ret).map(|s| {
                    Span::new(
                        s.file,
                        s.lo as usize,
                        (s.lo as usize + "return".len()).min(s.hi as usize),
                    )
                });
                return (ReturnKind::Early, at);
            }
        }
        let end = data
            .terminator
            .as_ref()
            .map(|t| self.closing_brace(self.span_or_fn(t.source_info.span)));
        (ReturnKind::End, end)
    }

    /// The closing brace of a body whose end `span` points just past.
    fn closing_brace(&self, span: Span) -> Span {
        let text = self
            .cx
            .files
            .sources
            .try_get(span.file)
            .map_or("", |f| f.text.as_str());
        let lo = span.lo as usize;
        if span.lo == span.hi && lo > 0 && text.as_bytes().get(lo - 1) == Some(&b'}') {
            return Span::new(span.file, lo - 1, lo);
        }
        span
    }

    /// Queues `op` at the start of `block`, which is lowered later.
    fn prologue(&mut self, body: BodyId, block: BlockId, op: Op, span: Span) {
        self.prologues
            .entry((body, block))
            .or_default()
            .push((op, span));
    }

    /// The value a return gives back, when it holds memory: the returned value, or the
    /// one part of a returned struct or tuple that does (`RawPanel { ptr, len }`).
    fn returned(&self, v: ValueId) -> Option<ValueId> {
        let value = &self.values[v.0 as usize];
        if value.ty.holds_memory() || value.kind.is_memory() {
            return Some(v);
        }
        match self.memory_parts(v).as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Every return of the body gives back what the body returns: the returned value
    /// escapes to the caller, with every part of a returned struct, tuple or array that
    /// holds memory.
    ///
    /// A return taken from the blocks it jumped through (`sources`) gives back what the
    /// last of them returns that is no mere join of what the paths into it built
    /// (`joins`): what its own path built.
    fn finish_returns(
        &mut self,
        b: &mut BodyCx<'tcx>,
        sources: &FxHashMap<usize, Vec<usize>>,
        joins: &FxHashSet<(usize, ValueId)>,
        join_inputs: &FxHashMap<ValueId, Vec<ValueId>>,
    ) {
        for k in 0..self.bodies[b.id.0 as usize].blocks.len() {
            let block = &self.bodies[b.id.0 as usize].blocks[k];
            if !matches!(block.term, Terminator::Return { .. }) {
                continue;
            }
            let span = block.term_span;
            let returned_at = |bb: usize| {
                b.exits
                    .get(&BasicBlock::from_usize(bb))
                    .and_then(|e| e.first().copied())
            };
            // Along the jumps, the last value that is not a join of other paths'.
            let mut v = returned_at(k);
            for &t in sources.get(&k).map(Vec::as_slice).unwrap_or_default() {
                if let Some(tv) = returned_at(t).filter(|&tv| !joins.contains(&(t, tv))) {
                    v = Some(tv);
                }
            }
            let Some(v) = v else {
                continue;
            };
            let value = self.returned(v);
            let mut parts = self.memory_parts(v);
            // A join of what several paths built (`Err(e)` on one, `Ok(Wrapper { raw })`
            // on another, met before a drop on the way out): each of them is returned.
            let mut pending = vec![v];
            let mut seen: FxHashSet<ValueId> = FxHashSet::default();
            while let Some(x) = pending.pop() {
                for &input in join_inputs.get(&x).map(Vec::as_slice).unwrap_or_default() {
                    if seen.insert(input) {
                        for part in self.memory_parts(input) {
                            if !parts.contains(&part) {
                                parts.push(part);
                            }
                        }
                        pending.push(input);
                    }
                }
            }
            // A second owner built here and returned: the caller drops it.
            if let Some(&owner) = self.second_owners.get(&self.canonical(v)) {
                parts.push(owner);
            }
            b.cur = BlockId(k as u32);
            for &part in &parts {
                self.emit(
                    b,
                    Op::Escape {
                        value: part,
                        how: tensor_lint_analyzer::ir::EscapeKind::Returned,
                    },
                    span,
                );
            }
            if let Terminator::Return { value: v, .. } =
                &mut self.bodies[b.id.0 as usize].blocks[k].term
            {
                *v = value;
            }
        }
    }

    // ---- building blocks -----------------------------------------------------------

    pub(crate) fn emit(&mut self, b: &BodyCx<'tcx>, op: Op, span: Span) {
        // A write inside the `true` side of tests: it runs only where they hold.
        let writes = matches!(
            op,
            Op::Write { .. } | Op::Claim { .. } | Op::Atomic { .. } | Op::InPlace { .. }
        );
        if writes && !b.guard_edges.is_empty() {
            let here = BasicBlock::from_u32(b.cur.0);
            let dominators = b.mir.basic_blocks.dominators();
            let holding: Vec<tensor_lint_analyzer::ir::Assumption> = b
                .guard_edges
                .iter()
                .filter(|(side, _)| dominators.dominates(*side, here))
                .map(|(_, a)| a.clone())
                .collect();
            if !holding.is_empty() {
                self.guards.push((span, holding));
            }
        }
        if let Some(block) = self
            .bodies
            .get_mut(b.id.0 as usize)
            .and_then(|body| body.blocks.get_mut(b.cur.0 as usize))
        {
            block.stmts.push(Stmt { op, span });
        }
    }

    pub(crate) fn new_value(
        &mut self,
        name: Option<String>,
        kind: ValueKind,
        ty: TyClass,
        span: Span,
    ) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(Value {
            name,
            kind,
            view: None,
            int: None,
            ty,
            span,
            reassigned: false,
        });
        id
    }

    /// A root of elements of type `elem`.
    /// A root for memory that parameter `index` reaches and the caller owns.
    pub(crate) fn caller_root(
        &mut self,
        name: &str,
        index: usize,
        elem: Ty<'tcx>,
        span: Span,
    ) -> RootId {
        self.new_root(
            name,
            RootOrigin::Param(index),
            elem,
            ReleasedBy::NotOwned,
            span,
        )
    }

    pub(crate) fn new_root(
        &mut self,
        name: &str,
        origin: RootOrigin,
        elem: Ty<'tcx>,
        released_by: ReleasedBy,
        span: Span,
    ) -> RootId {
        let id = RootId(self.roots.len() as u32);
        // Zero-sized elements take no bytes (a vector of them holds no heap block).
        let elem_bytes = types::size_of(self.tcx, self.env, elem)
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(1);
        let elem_is_pointer = elem.is_any_ptr() || elem.is_ref();
        let elem_name = match elem.builtin_deref(true) {
            Some(target) if elem_is_pointer => types::short_name(self.tcx, target),
            _ => types::short_name(self.tcx, elem),
        };
        self.roots.push(Root {
            id,
            name: name.to_string(),
            origin,
            elem_bytes,
            elem_type: Some(elem_name),
            elem_is_pointer,
            field: None,
            shape: None,
            released_by,
            requires_grad: false,
            held_from_use: false,
            producer: None,
            allocated_by: None,
            uninit: false,
            copied_in: false,
            span,
        });
        id
    }

    /// The value `v` stands for: itself, or the struct value it was copied from.
    pub(crate) fn canonical(&self, mut v: ValueId) -> ValueId {
        for _ in 0..32 {
            match self.aliases.get(&v) {
                Some(&a) if a != v => v = a,
                _ => break,
            }
        }
        v
    }

    /// The value field `field` of variant `variant` of `base` holds, if known.
    pub(crate) fn field_of(&self, base: ValueId, variant: u32, field: u32) -> Option<ValueId> {
        self.fields
            .get(&(self.canonical(base), variant, field))
            .copied()
    }

    /// Records what field `field` of variant `variant` of `base` holds.
    pub(crate) fn set_field(&mut self, base: ValueId, variant: u32, field: u32, v: ValueId) {
        let base = self.canonical(base);
        self.fields.insert((base, variant, field), v);
    }

    /// Every known field of `base`, in field order.
    pub(crate) fn fields_of(&self, base: ValueId) -> Vec<(u32, u32, ValueId)> {
        let base = self.canonical(base);
        let mut out: Vec<(u32, u32, ValueId)> = self
            .fields
            .iter()
            .filter(|((owner, _, _), _)| *owner == base)
            .map(|((_, var, f), v)| (*var, *f, *v))
            .collect();
        out.sort();
        out
    }

    pub(crate) fn value(&self, v: ValueId) -> &Value {
        &self.values[v.0 as usize]
    }

    pub(crate) fn value_mut(&mut self, v: ValueId) -> &mut Value {
        &mut self.values[v.0 as usize]
    }

    /// A fresh symbol based on `name`: the name itself the first time, then `name#1`,
    /// `name#2`, ... (messages show the part before `#`; a trailing `'` is the oracle's
    /// mark of a second iteration, never part of a name).
    pub(crate) fn symbol(&mut self, name: &str) -> String {
        let count = self.symbols.entry(name.to_string()).or_insert(0);
        let symbol = match *count {
            0 => name.to_string(),
            n => format!("{name}#{n}"),
        };
        *count += 1;
        symbol
    }

    /// A symbol for an integer body `b` computes at run time and nothing else knows
    /// (`let n = len_of(x)`): one value where the block being lowered runs once, another
    /// on every round of a loop around it.
    pub(crate) fn run_time_symbol(&mut self, b: &BodyCx<'tcx>, name: &str) -> Expr {
        let in_loop = self
            .bodies
            .get(b.id.0 as usize)
            .and_then(|body| body.blocks.get(b.cur.0 as usize))
            .is_some_and(|block| block.loop_depth > 0);
        let symbol = if in_loop {
            self.varying_symbol(name)
        } else {
            self.symbol(name)
        };
        self.run_values.push((b.id, symbol.clone()));
        Expr::sym(&symbol)
    }

    /// A variable `local` of integer type, set once to a value nothing here computes, is
    /// one value, a symbol of its name: in the function's own body any such value (`let
    /// [rows, cols] = sizes(x)`, `let i = self.stripe_of(key)`); in a task only one read
    /// from `element` of a buffer, recorded with that element (the lints tell the values
    /// both tasks read alike from each task's own).
    pub(crate) fn name_unknown_integer(
        &mut self,
        b: &BodyCx<'tcx>,
        local: Local,
        element: Option<View>,
    ) {
        let v = self.local(b, local);
        let unknown = (b.id.0 == 0 || element.is_some())
            && !b.multi_def[local.as_usize()]
            && local.as_usize() > b.mir.arg_count
            && b.mir.local_decls[local].ty.is_integral()
            && self.value(v).int.is_none();
        let Some(name) = self.value(v).name.clone().filter(|_| unknown) else {
            return;
        };
        let symbol = self.run_time_symbol(b, &name);
        if let (Some(view), Some(sym)) = (element, symbol.symbols().into_iter().next()) {
            self.element_values.push((sym, view));
        }
        self.value_mut(v).int = Some(symbol);
    }

    /// A symbol based on `name` that is always fresh (`name#k`): for what takes another
    /// value on every iteration, which the lints tell by the `#`.
    pub(crate) fn varying_symbol(&mut self, name: &str) -> String {
        let count = self.symbols.entry(name.to_string()).or_insert(0);
        // The plain name stays free for [`Self::symbol`]'s first use.
        *count = (*count).max(1);
        let symbol = format!("{name}#{count}");
        *count += 1;
        symbol
    }

    /// How a function of the crate is named in messages: `Type::method` for methods.
    pub(crate) fn fn_display_name(&self, def: rustc_hir::def_id::DefId) -> String {
        let name = self.tcx.item_name(def).to_string();
        match self.tcx.impl_of_assoc(def) {
            Some(imp) => {
                let self_ty = self
                    .tcx
                    .type_of(imp)
                    .instantiate_identity()
                    .skip_normalization();
                format!("{}::{name}", types::short_name(self.tcx, self_ty))
            }
            None => name,
        }
    }

    pub(crate) fn span_or_fn(&self, span: rustc_span::Span) -> Span {
        self.cx.files.span(span).unwrap_or(self.span)
    }
}

fn block(bb: BasicBlock) -> BlockId {
    BlockId(bb.as_u32())
}

/// Which locals of `mir` are assigned more than once (a parameter counts as assigned).
/// The fields of what a parameter points to (`(*_1).spare`) that a statement inside one
/// of `loops` assigns: each round of the loop may see another value there.
fn loop_stored_fields<'tcx>(
    mir: &mir::Body<'tcx>,
    loops: &[closures::NaturalLoop],
) -> FxHashSet<(Local, Vec<mir::PlaceElem<'tcx>>)> {
    let mut out = FxHashSet::default();
    for (bb, data) in mir.basic_blocks.iter_enumerated() {
        let in_loop = loops
            .iter()
            .any(|l| l.blocks.get(bb.as_usize()).copied().unwrap_or(false));
        if !in_loop {
            continue;
        }
        for stmt in &data.statements {
            let mir::StatementKind::Assign(assign) = &stmt.kind else {
                continue;
            };
            let place = assign.0;
            let through_param = place.local.as_usize() >= 1
                && place.local.as_usize() <= mir.arg_count
                && place.projection.first() == Some(&mir::PlaceElem::Deref);
            if through_param && matches!(place.projection.last(), Some(mir::PlaceElem::Field(..))) {
                out.insert((place.local, place.projection.to_vec()));
            }
        }
    }
    out
}

fn multi_defined(mir: &mir::Body<'_>) -> Vec<bool> {
    let mut count = vec![0u32; mir.local_decls.len()];
    for n in count.iter_mut().skip(1).take(mir.arg_count) {
        *n += 1;
    }
    let mut assigned = |place: &mir::Place<'_>| {
        if place.projection.is_empty() {
            count[place.local.as_usize()] += 1;
        }
    };
    for data in mir.basic_blocks.iter() {
        for stmt in &data.statements {
            if let mir::StatementKind::Assign(assign) = &stmt.kind {
                assigned(&assign.0);
            }
        }
        if let Some(mir::Terminator {
            kind: TerminatorKind::Call { destination, .. },
            ..
        }) = &data.terminator
        {
            assigned(destination);
        }
    }
    count.into_iter().map(|n| n > 1).collect()
}

/// The spans of the `return` expressions, and of the `break` and `continue` ones, of
/// the body `mir` was built from, leaving out those of the closures in it.
/// The `break` or `continue` block `bb` is, when its statements say nothing of it (only
/// the ends of scopes it leaves): the one jump written after the test of the branch that
/// leads to `bb` alone, and before the end of the first scope `bb` leaves.
fn branch_jump(b: &BodyCx<'_>, bb: BasicBlock) -> Option<rustc_span::Span> {
    let mir = b.mir;
    let [pred] = mir.basic_blocks.predecessors()[bb].as_slice() else {
        return None;
    };
    let test = mir.basic_blocks[*pred].terminator.as_ref()?;
    if !matches!(test.kind, TerminatorKind::SwitchInt { .. }) {
        return None;
    }
    let after = test.source_info.span;
    let scope_end = mir.basic_blocks[bb]
        .statements
        .iter()
        .map(|s| s.source_info.span)
        .filter(|s| s.lo() >= after.hi())
        .min_by_key(|s| s.lo())?;
    let mut candidates = b
        .jumps
        .iter()
        .filter(|j| j.lo() >= after.hi() && j.hi() <= scope_end.lo());
    let jump = *candidates.next()?;
    candidates.next().is_none().then_some(jump)
}

fn jump_spans(
    tcx: TyCtxt<'_>,
    mir: &mir::Body<'_>,
) -> (Vec<rustc_span::Span>, Vec<rustc_span::Span>) {
    use rustc_hir::intravisit::{self, Visitor};
    #[derive(Default)]
    struct Jumps {
        returns: Vec<rustc_span::Span>,
        jumps: Vec<rustc_span::Span>,
    }
    impl<'v> Visitor<'v> for Jumps {
        fn visit_expr(&mut self, expr: &'v rustc_hir::Expr<'v>) {
            match expr.kind {
                rustc_hir::ExprKind::Ret(_) => self.returns.push(expr.span),
                // The `break` a `for` loop is desugared into is no jump the user wrote.
                rustc_hir::ExprKind::Break(..) | rustc_hir::ExprKind::Continue(_)
                    if !expr.span.from_expansion() =>
                {
                    self.jumps.push(expr.span)
                }
                rustc_hir::ExprKind::Closure(_) => return,
                _ => {}
            }
            intravisit::walk_expr(self, expr);
        }
    }
    let Some(def) = mir.source.def_id().as_local() else {
        return (Vec::new(), Vec::new());
    };
    let mut found = Jumps::default();
    found.visit_body(tcx.hir_body_owned_by(def));
    (found.returns, found.jumps)
}
