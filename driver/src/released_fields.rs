//! Released but not reset: a method of a type with its own `Drop` releases what a
//! pointer field points to and leaves the field as it was, so the `Drop` that follows
//! (at the end of the method, for one that takes `self`; when the caller drops the
//! value, for one that takes `&mut self`) releases it again.
//!
//! Each struct's summary is the fields its `Drop` releases and how (the function the
//! field's pointer is handed to); each method of the type is then read for a release of
//! one of those fields by the same function (or, for memory of the standard library's
//! owners, any function that frees it), after which the method neither writes a field
//! of `self` nor hands `self` to another call, on some path to its return.

use rustc_data_structures::fx::FxHashSet;
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_middle::mir::visit::{PlaceContext, Visitor};
use rustc_middle::mir::{self, BasicBlock, Operand, Rvalue, StatementKind, TerminatorKind};
use rustc_middle::ty::{self, TyCtxt};

use tensor_lint_analyzer::ir::structs::ReleasedNotReset;
use tensor_lint_analyzer::models::Role;

use crate::files::Files;
use crate::models::Models;

/// A field of `self` as a path of field indices: `self.head.block` is the field `block`
/// of the field `head`, through the `Deref` of its wrapper ([`THROUGH_DEREF`]) where
/// `head` is a `CachePadded<Position>`.
pub(crate) type FieldPath = Vec<usize>;

/// The step of a [`FieldPath`] into what a wrapper's `Deref` gives.
pub(crate) const THROUGH_DEREF: usize = usize::MAX;

/// A release of a field of `self`: the field, the function it is handed to, and where.
#[derive(Clone)]
struct FieldRelease {
    field: FieldPath,
    callee: DefId,
    block: BasicBlock,
    span: rustc_span::Span,
}

/// The methods of struct `adt` that release a field its `Drop` releases again.
pub(crate) fn released_not_reset(
    tcx: TyCtxt<'_>,
    models: &Models,
    files: &Files,
    adt: DefId,
) -> Vec<ReleasedNotReset> {
    let Some(destructor) = tcx.adt_destructor(adt) else {
        return Vec::new();
    };
    let Some(drop_fn) = destructor.did.as_local() else {
        return Vec::new();
    };
    if !tcx.is_mir_available(drop_fn.to_def_id()) {
        return Vec::new();
    }
    let drop_mir = tcx.optimized_mir(drop_fn.to_def_id());
    // Methods `Drop` calls itself are its helpers: what they release, `Drop` does.
    let called_by_drop: FxHashSet<DefId> = callees(drop_mir).collect();
    let mut drop_releases = final_releases(tcx, models, drop_mir);
    for &helper in &called_by_drop {
        let own = helper
            .as_local()
            .is_some_and(|local| receiver(tcx, local) == Some(true));
        if own && crate::structs::own_method_of(tcx, adt, helper) {
            drop_releases.extend(field_releases(tcx, models, tcx.optimized_mir(helper), true));
        }
    }
    if drop_releases.is_empty() {
        return Vec::new();
    }
    let mut drop_reads = fields_read(drop_mir);
    for &helper in &called_by_drop {
        if helper.is_local() && tcx.is_mir_available(helper) {
            drop_reads.extend(fields_read(tcx.optimized_mir(helper)));
        }
    }
    let mut out = Vec::new();
    let methods: Vec<DefId> = tcx
        .inherent_impls(adt)
        .iter()
        .flat_map(|&imp| tcx.associated_item_def_ids(imp).iter().copied())
        .collect();
    for &method in &methods {
        let Some(local) = method.as_local() else {
            continue;
        };
        if called_by_drop.contains(&method) || !tcx.def_kind(method).is_fn_like() {
            continue;
        }
        let Some(by_ref) = receiver(tcx, local) else {
            continue;
        };
        // A method the caller cannot reach leaves the field to the crate's own code,
        // unless a method of the type the crate can call leaves the field as the
        // helper left it.
        let exported = tcx.effective_visibilities(()).is_exported(local);
        if !tcx.is_mir_available(method) {
            continue;
        }
        let mir = tcx.optimized_mir(method);
        // A method that sets a field `Drop` tests (a `closed` flag) tells it, on the
        // paths where it does.
        let flags: FxHashSet<usize> = fields_written(mir, by_ref)
            .into_iter()
            .filter(|f| drop_reads.contains(f) && !drop_releases.iter().any(|d| d.field[0] == *f))
            .collect();
        let held = FieldLocals::of(tcx, models, mir, by_ref);
        for release in held.releases(tcx, models, mir) {
            let Some(again) = drop_releases.iter().find(|d| {
                d.field == release.field && same_release(tcx, models, d.callee, release.callee)
            }) else {
                continue;
            };
            let mut kept = flags.clone();
            kept.insert(release.field[0]);
            if !flags.is_empty() && !reached_unwritten(mir, release.block, &kept, by_ref) {
                continue;
            }
            if by_ref
                && !exported
                && !called_and_left(tcx, models, &methods, method, &release.field)
            {
                continue;
            }
            let Some(dropped_at) =
                left_as_it_was(tcx, models, mir, &held, release.block, &release.field)
            else {
                continue;
            };
            let (Some(at), Some(drop_at)) = (files.span(release.span), files.span(again.span))
            else {
                continue;
            };
            let (field, atomic) = field_name(tcx, adt, &release.field);
            out.push(ReleasedNotReset {
                method: tcx.item_name(method).to_string(),
                field,
                atomic,
                by_value: !by_ref,
                release: at,
                drop_release: drop_at,
                dropped_at: dropped_at.and_then(|s| files.span(s)),
            });
            break;
        }
    }
    out
}

/// The top-level fields of `self` the `Drop` of struct `adt` releases, with the
/// function it releases each with and where.
pub(crate) fn drop_field_releases(
    tcx: TyCtxt<'_>,
    models: &Models,
    adt: DefId,
) -> Vec<(usize, DefId, rustc_span::Span)> {
    let Some(drop_fn) = tcx.adt_destructor(adt).map(|d| d.did) else {
        return Vec::new();
    };
    if !drop_fn.is_local() || !tcx.is_mir_available(drop_fn) {
        return Vec::new();
    }
    field_releases(tcx, models, tcx.optimized_mir(drop_fn), true)
        .into_iter()
        .filter_map(|r| match r.field.as_slice() {
            [field] => Some((*field, r.callee, r.span)),
            _ => None,
        })
        .collect()
}

/// Whether the crate's other code can call `method`: it is exported, or visible in
/// the whole crate (`pub(crate)`).
fn reachable(tcx: TyCtxt<'_>, method: LocalDefId) -> bool {
    tcx.effective_visibilities(()).is_exported(method)
        || tcx
            .visibility(method.to_def_id())
            .is_accessible_from(rustc_hir::def_id::CRATE_DEF_ID, tcx)
}

/// Whether a method of the type the crate can call (`methods`) calls `helper` and
/// then leaves `self` as it was on some path to its return.
fn called_and_left(
    tcx: TyCtxt<'_>,
    models: &Models,
    methods: &[DefId],
    helper: DefId,
    field: &FieldPath,
) -> bool {
    methods.iter().any(|&caller| {
        let Some(local) = caller.as_local() else {
            return false;
        };
        if caller == helper || !reachable(tcx, local) || !tcx.is_mir_available(caller) {
            return false;
        }
        let Some(by_ref) = receiver(tcx, local) else {
            return false;
        };
        let mir = tcx.optimized_mir(caller);
        let mut calls = crate::structs::direct_calls(mir)
            .filter(|call| call.callee == helper && !call.cleanup)
            .peekable();
        if calls.peek().is_none() {
            return false;
        }
        let held = FieldLocals::of(tcx, models, mir, by_ref);
        calls.any(|call| left_as_it_was(tcx, models, mir, &held, call.block, field).is_some())
    })
}

/// `head.block`: the names of a path's fields, through the structs they are fields of
/// (and through the one type argument of a wrapper its `Deref` gives), and whether the
/// last is an atomic pointer.
pub(crate) fn field_name(tcx: TyCtxt<'_>, adt: DefId, path: &[usize]) -> (String, bool) {
    let mut names = Vec::new();
    let mut ty = tcx.type_of(adt).instantiate_identity().skip_norm_wip();
    for &k in path {
        let Some((def, args)) = (match ty.kind() {
            ty::Adt(def, args) if def.is_struct() => Some((*def, *args)),
            _ => None,
        }) else {
            names.push(k.to_string());
            continue;
        };
        // What a wrapper derefs to: its type argument (`CachePadded<T>` gives a `T`).
        if k == THROUGH_DEREF {
            if let Some(inner) = args.types().next() {
                ty = inner;
            }
            continue;
        }
        let fields = &def.non_enum_variant().fields;
        match fields.iter().nth(k) {
            Some(field) => {
                names.push(field.name.to_string());
                ty = field.ty(tcx, args).skip_normalization();
            }
            None => names.push(k.to_string()),
        }
    }
    // `AtomicPtr<T>`, which recent cores spell `Atomic<*mut T>`.
    let atomic = match ty.kind() {
        ty::Adt(def, args) => match tcx.item_name(def.did()).as_str() {
            "AtomicPtr" => true,
            "Atomic" => args.types().next().is_some_and(|t| t.is_raw_ptr()),
            _ => false,
        },
        _ => false,
    };
    (names.join("."), atomic)
}

/// `Some(true)` for a method taking `&mut self`, `Some(false)` for one taking `self`,
/// `None` for any other.
fn receiver(tcx: TyCtxt<'_>, method: LocalDefId) -> Option<bool> {
    if tcx.def_kind(method) != rustc_hir::def::DefKind::AssocFn
        || !tcx.associated_item(method.to_def_id()).is_method()
    {
        return None;
    }
    let sig = tcx.fn_sig(method).instantiate_identity().skip_binder();
    let first = *sig.inputs().first()?;
    match first.kind() {
        // `&self` too: what atomics and cells hold is changed through a shared borrow.
        ty::Ref(..) => Some(true),
        ty::Adt(..) => Some(false),
        _ => None,
    }
}

/// Whether two releases free the same memory the same way: one function, or two of the
/// standard library's ways to free an owner's memory (`dealloc`, `Box::from_raw`).
fn same_release(tcx: TyCtxt<'_>, models: &Models, a: DefId, b: DefId) -> bool {
    let frees = |f: DefId| {
        crate::structs::frees_raw_memory(tcx, models, f) || forwards_to_free(tcx, models, f)
    };
    a == b || frees(a) && frees(b)
}

/// A function of the crate that hands a pointer parameter on to one that frees raw
/// memory (`unsafe fn deallocate<T>(p: *mut T, cap: usize) { Vec::from_raw_parts(p, 0,
/// cap); }`): a release of what it is given.
fn forwards_to_free(tcx: TyCtxt<'_>, models: &Models, f: DefId) -> bool {
    if !f.is_local() || !tcx.is_mir_available(f) || tcx.def_kind(f) != rustc_hir::def::DefKind::Fn {
        return false;
    }
    let mir = tcx.optimized_mir(f);
    // The parameters, and the locals that are copies or casts of one.
    let mut params: FxHashSet<mir::Local> =
        (1..=mir.arg_count).map(mir::Local::from_usize).collect();
    loop {
        let before = params.len();
        for stmt in mir.basic_blocks.iter().flat_map(|b| &b.statements) {
            let StatementKind::Assign(assign) = &stmt.kind else {
                continue;
            };
            let (Some(dst), Rvalue::Use(op, _) | Rvalue::Cast(_, op, _)) =
                (assign.0.as_local(), &assign.1)
            else {
                continue;
            };
            if op
                .place()
                .is_some_and(|p| p.projection.is_empty() && params.contains(&p.local))
            {
                params.insert(dst);
            }
        }
        if params.len() == before {
            break;
        }
    }
    crate::structs::direct_calls(mir)
        .filter(|call| !call.cleanup && crate::structs::frees_raw_memory(tcx, models, call.callee))
        .any(|call| {
            call.args.iter().any(|a| {
                a.node
                    .place()
                    .is_some_and(|p| p.projection.is_empty() && params.contains(&p.local))
            })
        })
}

/// Whether block `target` is reached from the method's entry on a path (that does not
/// unwind) with no write to any field of `fields` of `self`, the target's own
/// statements included.
fn reached_unwritten(
    mir: &mir::Body<'_>,
    target: BasicBlock,
    fields: &FxHashSet<usize>,
    by_ref: bool,
) -> bool {
    let writes = |data: &mir::BasicBlockData<'_>| {
        data.statements.iter().any(|stmt| match &stmt.kind {
            StatementKind::Assign(assign) => {
                self_field(&assign.0, by_ref).is_some_and(|f| fields.contains(&f))
            }
            _ => false,
        })
    };
    crate::structs::blocks_reached(mir, mir::START_BLOCK, |_, data| writes(data)).contains(&target)
}

/// The functions `mir` calls.
pub(crate) fn callees<'a, 'tcx>(
    mir: &'a mir::Body<'tcx>,
) -> impl Iterator<Item = DefId> + use<'a, 'tcx> {
    crate::structs::direct_calls(mir).map(|call| call.callee)
}

/// The field of `self` a place is (`(*_1).f` for a `&mut self`, `_1.f` for `self`).
pub(crate) fn self_field(place: &mir::Place<'_>, by_ref: bool) -> Option<usize> {
    self_path(place, by_ref).map(|path| path[0])
}

/// The path of the field of `self` a place is (`(*_1).f.g` for a `&mut self`, `_1.f.g`
/// for `self`), up to its first step that is no field.
fn self_path(place: &mir::Place<'_>, by_ref: bool) -> Option<FieldPath> {
    if place.local != mir::Local::from_usize(1) {
        return None;
    }
    let rest = match (place.projection.as_slice(), by_ref) {
        ([mir::PlaceElem::Deref, rest @ ..], true) => rest,
        (rest, false) => rest,
        _ => return None,
    };
    let path: FieldPath = rest
        .iter()
        .map_while(|p| match p {
            mir::PlaceElem::Field(f, _) => Some(f.as_usize()),
            _ => None,
        })
        .collect();
    (!path.is_empty()).then_some(path)
}

/// A reference to a pointer or a reference (`&self.ptr` of a `*mut T` or `&mut T`
/// field).
fn points_at_a_pointer(ty: ty::Ty<'_>) -> bool {
    match ty.kind() {
        ty::Ref(_, inner, _) => inner.is_raw_ptr() || inner.is_ref(),
        _ => false,
    }
}

/// What the locals of a method hold of the fields of `self`: a field's value (a pointer
/// read from it, through copies, casts, `as_ptr` and an atomic's `load`), or a
/// reference to a field (through a wrapper's `deref` and an atomic's `get_mut`).
struct FieldLocals {
    values: rustc_data_structures::fx::FxHashMap<mir::Local, FieldPath>,
    refs: rustc_data_structures::fx::FxHashMap<mir::Local, FieldPath>,
    /// `self` is a borrow (`(*_1).f`), not the value (`_1.f`).
    by_ref: bool,
    /// The locals of raw pointer type.
    raw_pointers: FxHashSet<mir::Local>,
}

impl FieldLocals {
    fn of(tcx: TyCtxt<'_>, models: &Models, mir: &mir::Body<'_>, by_ref: bool) -> FieldLocals {
        FieldLocals::of_at(tcx, models, mir, by_ref, 0)
    }

    /// The locals of `mir`, `depth` methods deep from the one asked about.
    fn of_at(
        tcx: TyCtxt<'_>,
        models: &Models,
        mir: &mir::Body<'_>,
        by_ref: bool,
        depth: u8,
    ) -> FieldLocals {
        let mut held = FieldLocals {
            values: Default::default(),
            refs: Default::default(),
            by_ref,
            raw_pointers: mir
                .local_decls
                .iter_enumerated()
                .filter(|(_, d)| d.ty.is_raw_ptr())
                .map(|(l, _)| l)
                .collect(),
        };
        // `self` given as a borrow, and the locals that are `self` again.
        let mut selves = self_reborrows(mir);
        if by_ref {
            selves.insert(mir::Local::from_usize(1));
        }
        loop {
            let before = held.values.len() + held.refs.len();
            for block in mir.basic_blocks.iter() {
                for stmt in &block.statements {
                    let StatementKind::Assign(assign) = &stmt.kind else {
                        continue;
                    };
                    let (dst, rvalue) = &**assign;
                    if !dst.projection.is_empty() {
                        continue;
                    }
                    match rvalue {
                        // A borrow of a pointer field transmuted into a raw pointer
                        // (`transmute(&self.ptr)`), as some bindings pass the field's
                        // pointer to C: what is meant is the pointer the field holds.
                        Rvalue::Cast(mir::CastKind::Transmute, op, to)
                            if to.is_raw_ptr()
                                && op.place().is_some_and(|p| {
                                    points_at_a_pointer(mir.local_decls[p.local].ty)
                                }) =>
                        {
                            if let Some(path) = held.ref_of(op).or_else(|| held.value_of(op)) {
                                held.values.entry(dst.local).or_insert(path);
                            }
                        }
                        Rvalue::Use(op, _) | Rvalue::Cast(_, op, _) => {
                            if let Some(path) = held.value_of(op) {
                                held.values.entry(dst.local).or_insert(path);
                            } else if let Some(path) = held.ref_of(op) {
                                held.refs.entry(dst.local).or_insert(path);
                            }
                        }
                        Rvalue::CopyForDeref(p) => {
                            if let Some(path) = held.place_value(p) {
                                held.values.entry(dst.local).or_insert(path);
                            }
                        }
                        Rvalue::Ref(_, _, p) | Rvalue::RawPtr(_, p) => {
                            if let Some(path) = held.place_path(p) {
                                held.refs.entry(dst.local).or_insert(path);
                            }
                        }
                        _ => {}
                    }
                }
                let TerminatorKind::Call {
                    func,
                    args,
                    destination,
                    ..
                } = &block.terminator().kind
                else {
                    continue;
                };
                if !destination.projection.is_empty() {
                    continue;
                }
                let Some((callee, _)) = func.const_fn_def() else {
                    continue;
                };
                let Some(first) = args.first().map(|a| &a.node) else {
                    continue;
                };
                let std = matches!(tcx.crate_name(callee.krate).as_str(), "core" | "std");
                let returns_pointer = holds_raw_pointer(mir.local_decls[destination.local].ty);
                if let Some(path) = held.ref_of(first) {
                    match models.role(tcx, callee) {
                        // A wrapper's value (`CachePadded`, `ManuallyDrop`), the pointer
                        // slot of an atomic.
                        Some(Role::Deref) => {
                            let mut inner = path.clone();
                            inner.push(THROUGH_DEREF);
                            held.refs.entry(destination.local).or_insert(inner);
                        }
                        Some(Role::CellGetMut) if std => {
                            held.refs.entry(destination.local).or_insert(path);
                        }
                        // The pointer an atomic holds, read and left there.
                        Some(Role::AtomicLoad) if std => {
                            held.values.entry(destination.local).or_insert(path);
                        }
                        // A function of the crate given the field, returning pointers:
                        // what it read of the field (`self.data.heap()`).
                        None if callee.is_local() && returns_pointer => {
                            held.values.entry(destination.local).or_insert(path);
                        }
                        _ => {}
                    }
                } else if first
                    .place()
                    .is_some_and(|p| p.projection.is_empty() && selves.contains(&p.local))
                    && returns_pointer
                    && depth < 2
                {
                    // A method given `self`, returning pointers it read of a field
                    // (`let (ptr, len, cap) = self.triple_mut()`).
                    if let Some(path) = returned_field(tcx, models, callee, depth + 1) {
                        held.values.entry(destination.local).or_insert(path);
                    }
                } else if std && args.len() == 1 {
                    // A pointer method of the field (`as_ptr`, `cast`) gives the same
                    // pointer.
                    if let Some(path) = held.value_of(first) {
                        held.values.entry(destination.local).or_insert(path);
                    }
                }
            }
            if held.values.len() + held.refs.len() == before {
                break;
            }
        }
        held
    }

    /// The field path a place names: of `self`, or inside a field a local refers to
    /// (`(*r).block` where `r` refers to `self.head`).
    fn place_path(&self, p: &mir::Place<'_>) -> Option<FieldPath> {
        if let Some(path) = self_path(p, self.by_ref) {
            return Some(path);
        }
        let base = self.refs.get(&p.local)?;
        let [mir::PlaceElem::Deref, rest @ ..] = p.projection.as_slice() else {
            return None;
        };
        let mut path = base.clone();
        for elem in rest {
            match elem {
                mir::PlaceElem::Field(f, _) => path.push(f.as_usize()),
                _ => return None,
            }
        }
        Some(path)
    }

    /// The field whose value a place read holds: a field of `self`, the referent of a
    /// local that refers to one, or a local holding a field's value.
    fn place_value(&self, p: &mir::Place<'_>) -> Option<FieldPath> {
        if p.projection.is_empty() {
            return self.values.get(&p.local).cloned();
        }
        self.place_path(p).or_else(|| self.part_value(p))
    }

    /// A part of what a call returned of a field (`(_3.0)` of the pair `heap()` gave,
    /// `(*_4).0` through the reference `heap_mut()` gave): the field's value too. Not
    /// through a raw pointer, which reaches other memory than the field.
    fn part_value(&self, p: &mir::Place<'_>) -> Option<FieldPath> {
        let path = self.values.get(&p.local)?;
        let parts = p
            .projection
            .iter()
            .all(|e| matches!(e, mir::PlaceElem::Field(..) | mir::PlaceElem::Deref));
        let through_pointer = p.projection.first() == Some(&mir::PlaceElem::Deref)
            && self.local_is_raw_pointer(p.local);
        (parts && !through_pointer).then(|| path.clone())
    }

    fn value_of(&self, op: &Operand<'_>) -> Option<FieldPath> {
        match op {
            Operand::Copy(p) | Operand::Move(p) => self.place_value(p),
            _ => None,
        }
    }

    fn local_is_raw_pointer(&self, local: mir::Local) -> bool {
        self.raw_pointers.contains(&local)
    }

    fn ref_of(&self, op: &Operand<'_>) -> Option<FieldPath> {
        match op {
            Operand::Copy(p) | Operand::Move(p) if p.projection.is_empty() => {
                self.refs.get(&p.local).cloned()
            }
            _ => None,
        }
    }
}

impl FieldLocals {
    /// The calls of `mir` (the body these locals are of) that hand a pointer read from a
    /// field of `self` to code outside Rust or to a function of the standard library
    /// that frees it.
    fn releases(&self, tcx: TyCtxt<'_>, models: &Models, mir: &mir::Body<'_>) -> Vec<FieldRelease> {
        let mut out = Vec::new();
        for call in crate::structs::direct_calls(mir).filter(|c| !c.cleanup) {
            let callee = call.callee;
            // The field first: whether the callee frees may mean reading its body.
            let Some(field) = call.args.iter().find_map(|a| self.value_of(&a.node)) else {
                continue;
            };
            if crate::structs::releases_what_it_is_given(tcx, models, callee)
                || forwards_to_free(tcx, models, callee)
            {
                out.push(FieldRelease {
                    field,
                    callee,
                    block: call.block,
                    span: call.span,
                });
            }
        }
        out
    }
}

/// The locals that are `self` borrowed again (`_3 = &mut (*_1)`) of a method taking
/// `&self` or `&mut self`.
pub(crate) fn self_reborrows(mir: &mir::Body<'_>) -> FxHashSet<mir::Local> {
    let self_local = mir::Local::from_usize(1);
    mir.basic_blocks
        .iter()
        .flat_map(|data| &data.statements)
        .filter_map(|stmt| match &stmt.kind {
            StatementKind::Assign(assign) => match &assign.1 {
                Rvalue::Ref(_, _, place)
                    if place.local == self_local
                        && place.projection.as_slice() == [mir::PlaceElem::Deref] =>
                {
                    assign.0.as_local()
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Whether a type holds a raw pointer (`(*mut T, usize)`, `&mut (*mut T, usize)`).
fn holds_raw_pointer(ty: ty::Ty<'_>) -> bool {
    ty.walk()
        .any(|arg| arg.as_type().is_some_and(|t| t.is_raw_ptr()))
}

/// The field of `self` whose value method `callee` (taking `&self` or `&mut self`)
/// returns, or returns among other values (`(ptr, len, cap)` read of `self.data`).
fn returned_field(tcx: TyCtxt<'_>, models: &Models, callee: DefId, depth: u8) -> Option<FieldPath> {
    let local = callee.as_local()?;
    if receiver(tcx, local) != Some(true) || !tcx.is_mir_available(callee) {
        return None;
    }
    let mir = tcx.optimized_mir(callee);
    let held = FieldLocals::of_at(tcx, models, mir, true, depth);
    let ret = mir::RETURN_PLACE;
    mir.basic_blocks
        .iter()
        .filter(|d| !d.is_cleanup)
        .flat_map(|d| &d.statements)
        .find_map(|stmt| {
            let StatementKind::Assign(assign) = &stmt.kind else {
                return None;
            };
            if assign.0.local != ret {
                return None;
            }
            match &assign.1 {
                Rvalue::Use(op, _) => held.value_of(op),
                Rvalue::Aggregate(_, ops) => ops.iter().find_map(|op| held.value_of(op)),
                _ => None,
            }
        })
}

/// The field releases of `Drop`'s body `mir`, but for a call of code outside Rust after
/// which `Drop` hands the same field on again: that call only used the pointer
/// (`git_packbuilder_set_callbacks(self.raw, ..)` before `git_packbuilder_free(self.raw)`).
fn final_releases(tcx: TyCtxt<'_>, models: &Models, mir: &mir::Body<'_>) -> Vec<FieldRelease> {
    let held = FieldLocals::of(tcx, models, mir, true);
    let releases = held.releases(tcx, models, mir);
    // The blocks of calls given each field's value.
    let uses: Vec<(BasicBlock, FieldPath)> = crate::structs::direct_calls(mir)
        .filter(|call| !call.cleanup)
        .flat_map(|call| {
            call.args
                .iter()
                .filter_map(|a| held.value_of(&a.node))
                .map(move |field| (call.block, field))
                .collect::<Vec<_>>()
        })
        .collect();
    releases
        .into_iter()
        .filter(|r| {
            if !tcx.is_foreign_item(r.callee) {
                return true;
            }
            let TerminatorKind::Call {
                target: Some(next), ..
            } = mir.basic_blocks[r.block].terminator().kind
            else {
                return true;
            };
            let seen = crate::structs::blocks_reached(mir, next, |_, _| false);
            !uses
                .iter()
                .any(|(bb, field)| *field == r.field && seen.contains(bb))
        })
        .collect()
}

/// The field releases of `mir`, a method taking `self` as `by_ref` says.
fn field_releases(
    tcx: TyCtxt<'_>,
    models: &Models,
    mir: &mir::Body<'_>,
    by_ref: bool,
) -> Vec<FieldRelease> {
    FieldLocals::of(tcx, models, mir, by_ref).releases(tcx, models, mir)
}

/// Whether some path from the release in `block` to the method's return leaves `self`
/// as it was: no write to a field of `self`, and no call given `self` or a borrow of
/// it. `Some(drop)` where the method drops `self` (one taking `self`), with the span of
/// that drop; `None` when every path writes or hands `self` on, or when a method taking
/// `self` gives it up (`mem::forget`).
fn left_as_it_was(
    tcx: TyCtxt<'_>,
    models: &Models,
    mir: &mir::Body<'_>,
    held: &FieldLocals,
    block: BasicBlock,
    field: &FieldPath,
) -> Option<Option<rustc_span::Span>> {
    let by_ref = held.by_ref;
    let self_local = mir::Local::from_usize(1);
    // A call given a reference to the released field, or into it, may reset it (an
    // atomic's `store` or `swap` of null); one given a reference to a field around it
    // may too, unless it only reads through (`deref`, `load`).
    let resets = |func: &Operand<'_>, args: &[rustc_span::Spanned<Operand<'_>>]| {
        let reading = func.const_fn_def().is_some_and(|(d, _)| {
            matches!(
                models.role(tcx, d),
                Some(Role::Deref | Role::AtomicLoad | Role::CellGetMut)
            )
        });
        args.iter()
            .filter_map(|a| held.ref_of(&a.node))
            .any(|path| path.starts_with(field) || (field.starts_with(&path) && !reading))
    };
    // The locals that borrow `self` or a part of it.
    let mut borrows: FxHashSet<mir::Local> = FxHashSet::default();
    borrows.insert(self_local);
    for block in mir.basic_blocks.iter() {
        for stmt in &block.statements {
            if let StatementKind::Assign(assign) = &stmt.kind {
                let (dst, rvalue) = &**assign;
                let borrowed = match rvalue {
                    Rvalue::Ref(_, kind, p) => {
                        matches!(kind, mir::BorrowKind::Mut { .. }) && p.local == self_local
                    }
                    Rvalue::RawPtr(_, p) => p.local == self_local,
                    Rvalue::Use(Operand::Copy(p) | Operand::Move(p), _) => {
                        p.local == self_local && p.projection.is_empty()
                    }
                    _ => false,
                };
                if borrowed {
                    borrows.insert(dst.local);
                }
            }
        }
    }
    let touches = |block: &mir::BasicBlockData<'_>| {
        let writes = block.statements.iter().any(|stmt| match &stmt.kind {
            StatementKind::Assign(assign) => self_field(&assign.0, by_ref).is_some(),
            _ => false,
        });
        let hands_on = match &block.terminator().kind {
            TerminatorKind::Call { func, args, .. } => {
                resets(func, args)
                    || args.iter().any(|a| match &a.node {
                        Operand::Copy(p) | Operand::Move(p) => {
                            borrows.contains(&p.local)
                                && (p.local != self_local || p.projection.is_empty())
                        }
                        _ => false,
                    })
            }
            _ => false,
        };
        writes || hands_on
    };
    // Forward from the release's return edge, on paths that do not unwind.
    let start = match &mir.basic_blocks[block].terminator().kind {
        TerminatorKind::Call {
            target: Some(t), ..
        } => *t,
        _ => return None,
    };
    let mut seen: FxHashSet<BasicBlock> = FxHashSet::default();
    let mut work = vec![start];
    let mut untouched_return = false;
    let mut dropped = None;
    while let Some(bb) = work.pop() {
        if !seen.insert(bb) {
            continue;
        }
        let data = &mir.basic_blocks[bb];
        if data.is_cleanup || touches(data) {
            continue;
        }
        match &data.terminator().kind {
            TerminatorKind::Return => untouched_return = true,
            TerminatorKind::Drop { place, .. }
                if !by_ref && place.local == self_local && place.projection.is_empty() =>
            {
                dropped = Some(data.terminator().source_info.span);
            }
            _ => {}
        }
        work.extend(
            data.terminator()
                .successors()
                .filter(|s| !mir.basic_blocks[*s].is_cleanup),
        );
    }
    match (by_ref, dropped) {
        (true, _) if untouched_return => Some(None),
        (false, Some(span)) => Some(Some(span)),
        _ => None,
    }
}

/// The fields of `*self` a `Drop` (or a helper taking `&mut self`) reads.
pub(crate) fn fields_read(mir: &mir::Body<'_>) -> FxHashSet<usize> {
    struct Reads(FxHashSet<usize>);
    impl<'tcx> Visitor<'tcx> for Reads {
        fn visit_place(
            &mut self,
            place: &mir::Place<'tcx>,
            context: PlaceContext,
            _: mir::Location,
        ) {
            if let PlaceContext::NonMutatingUse(_) = context {
                if let Some(f) = self_field(place, true) {
                    self.0.insert(f);
                }
            }
        }
    }
    let mut reads = Reads(FxHashSet::default());
    reads.visit_body(mir);
    reads.0
}

/// The fields of `self` a method assigns anywhere.
fn fields_written(mir: &mir::Body<'_>, by_ref: bool) -> FxHashSet<usize> {
    mir.basic_blocks
        .iter()
        .flat_map(|block| &block.statements)
        .filter_map(|stmt| match &stmt.kind {
            StatementKind::Assign(assign) => self_field(&assign.0, by_ref),
            _ => None,
        })
        .collect()
}
