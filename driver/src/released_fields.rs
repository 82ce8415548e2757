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

use tensor_lint_analyzer::index::ReleasedNotReset;

use crate::files::Files;

/// A release of a field of `self`: the field, the function it is handed to, and where.
#[derive(Clone, Copy)]
struct FieldRelease {
    field: usize,
    callee: DefId,
    block: BasicBlock,
    span: rustc_span::Span,
}

/// The methods of struct `adt` that release a field its `Drop` releases again.
pub(crate) fn released_not_reset(
    tcx: TyCtxt<'_>,
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
    let mut drop_releases = field_releases(tcx, drop_mir, true);
    for &helper in &called_by_drop {
        let own = helper
            .as_local()
            .is_some_and(|local| receiver(tcx, local) == Some(true));
        if own
            && tcx.is_mir_available(helper)
            && tcx
                .opt_parent(helper)
                .is_some_and(|imp| tcx.inherent_impls(adt).contains(&imp))
        {
            drop_releases.extend(field_releases(tcx, tcx.optimized_mir(helper), true));
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
    let fields = &tcx.adt_def(adt).non_enum_variant().fields;
    let mut out = Vec::new();
    for &imp in tcx.inherent_impls(adt) {
        for &method in tcx.associated_item_def_ids(imp) {
            let Some(local) = method.as_local() else {
                continue;
            };
            if called_by_drop.contains(&method) || !tcx.def_kind(method).is_fn_like() {
                continue;
            }
            let Some(by_ref) = receiver(tcx, local) else {
                continue;
            };
            // A method the caller cannot reach leaves the field to the crate's own code.
            if by_ref && !tcx.effective_visibilities(()).is_exported(local) {
                continue;
            }
            if !tcx.is_mir_available(method) {
                continue;
            }
            let mir = tcx.optimized_mir(method);
            // A method that sets a field `Drop` tests (a `closed` flag) tells it.
            let written = fields_written(mir, by_ref);
            if written
                .iter()
                .any(|f| drop_reads.contains(f) && !drop_releases.iter().any(|d| d.field == *f))
            {
                continue;
            }
            for release in field_releases(tcx, mir, by_ref) {
                let Some(again) = drop_releases.iter().find(|d| {
                    d.field == release.field && same_release(tcx, d.callee, release.callee)
                }) else {
                    continue;
                };
                let Some(dropped_at) = left_as_it_was(mir, release.block, by_ref) else {
                    continue;
                };
                let (Some(at), Some(drop_at)) = (files.span(release.span), files.span(again.span))
                else {
                    continue;
                };
                out.push(ReleasedNotReset {
                    method: tcx.item_name(method).to_string(),
                    field: fields
                        .iter()
                        .nth(release.field)
                        .map_or_else(|| release.field.to_string(), |f| f.name.to_string()),
                    by_value: !by_ref,
                    release: at,
                    drop_release: drop_at,
                    dropped_at: dropped_at.and_then(|s| files.span(s)),
                });
                break;
            }
        }
    }
    out
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
        ty::Ref(_, _, ty::Mutability::Mut) => Some(true),
        ty::Adt(..) => Some(false),
        _ => None,
    }
}

/// Whether two releases free the same memory the same way: one function, or two of the
/// standard library's ways to free an owner's memory (`dealloc`, `Box::from_raw`).
fn same_release(tcx: TyCtxt<'_>, a: DefId, b: DefId) -> bool {
    a == b || crate::structs::frees_raw_memory(tcx, a) && crate::structs::frees_raw_memory(tcx, b)
}

/// The functions `mir` calls.
fn callees<'a, 'tcx>(mir: &'a mir::Body<'tcx>) -> impl Iterator<Item = DefId> + use<'a, 'tcx> {
    crate::structs::direct_calls(mir).map(|call| call.callee)
}

/// The field of `self` a place is (`(*_1).f` for a `&mut self`, `_1.f` for `self`).
pub(crate) fn self_field(place: &mir::Place<'_>, by_ref: bool) -> Option<usize> {
    if place.local != mir::Local::from_usize(1) {
        return None;
    }
    match (place.projection.as_slice(), by_ref) {
        ([mir::PlaceElem::Deref, mir::PlaceElem::Field(f, _), ..], true)
        | ([mir::PlaceElem::Field(f, _), ..], false) => Some(f.as_usize()),
        _ => None,
    }
}

/// The calls of `mir` that hand a pointer read from a field of `self` to code outside
/// Rust or to a function of the standard library that frees it.
fn field_releases(tcx: TyCtxt<'_>, mir: &mir::Body<'_>, by_ref: bool) -> Vec<FieldRelease> {
    // The field of `self` each local holds, through copies, casts and calls on it
    // (`self.ptr.as_ptr()`).
    let mut held: rustc_data_structures::fx::FxHashMap<mir::Local, usize> = Default::default();
    let from = |held: &rustc_data_structures::fx::FxHashMap<mir::Local, usize>,
                op: &Operand<'_>| match op {
        Operand::Copy(p) | Operand::Move(p) => self_field(p, by_ref).or_else(|| {
            p.projection
                .is_empty()
                .then(|| held.get(&p.local).copied())
                .flatten()
        }),
        _ => None,
    };
    loop {
        let before = held.len();
        for block in mir.basic_blocks.iter() {
            for stmt in &block.statements {
                let StatementKind::Assign(assign) = &stmt.kind else {
                    continue;
                };
                let (dst, rvalue) = &**assign;
                let field = match rvalue {
                    Rvalue::Use(op, _) | Rvalue::Cast(_, op, _) => from(&held, op),
                    Rvalue::CopyForDeref(p) => self_field(p, by_ref),
                    _ => None,
                };
                if let Some(f) = field {
                    if dst.projection.is_empty() {
                        held.entry(dst.local).or_insert(f);
                    }
                }
            }
            if let TerminatorKind::Call {
                func,
                args,
                destination,
                ..
            } = &block.terminator().kind
            {
                // A pointer method of the field (`as_ptr`, `cast`) gives the same pointer.
                let pointer_method = func.const_fn_def().is_some_and(|(d, _)| {
                    matches!(tcx.crate_name(d.krate).as_str(), "core" | "std")
                });
                if pointer_method && args.len() == 1 {
                    if let Some(f) = from(&held, &args[0].node) {
                        if destination.projection.is_empty() {
                            held.entry(destination.local).or_insert(f);
                        }
                    }
                }
            }
        }
        if held.len() == before {
            break;
        }
    }
    let mut out = Vec::new();
    for call in crate::structs::direct_calls(mir).filter(|c| !c.cleanup) {
        let callee = call.callee;
        if !crate::structs::releases_what_it_is_given(tcx, callee) {
            continue;
        }
        if let Some(field) = call.args.iter().find_map(|a| from(&held, &a.node)) {
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

/// Whether some path from the release in `block` to the method's return leaves `self`
/// as it was: no write to a field of `self`, and no call given `self` or a borrow of
/// it. `Some(drop)` where the method drops `self` (one taking `self`), with the span of
/// that drop; `None` when every path writes or hands `self` on, or when a method taking
/// `self` gives it up (`mem::forget`).
fn left_as_it_was(
    mir: &mir::Body<'_>,
    block: BasicBlock,
    by_ref: bool,
) -> Option<Option<rustc_span::Span>> {
    let self_local = mir::Local::from_usize(1);
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
            TerminatorKind::Call { args, .. } => args.iter().any(|a| match &a.node {
                Operand::Copy(p) | Operand::Move(p) => {
                    borrows.contains(&p.local) && (p.local != self_local || p.projection.is_empty())
                }
                _ => false,
            }),
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
fn fields_read(mir: &mir::Body<'_>) -> FxHashSet<usize> {
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
