//! Slots counted before they are written: a method of a container marks a slot as
//! holding a value (`self.ids.insert(id)`, `self.len += 1`) and only then computes the
//! value with code its caller supplies (`ptr::write(slot, f())`, `ptr::write(slot,
//! value.clone())`). If that code panics, the slot stays counted but unwritten, and the
//! container's `Drop`, which drops every counted slot, drops uninitialised memory.
//!
//! The converse too: a method drops counted values in place (`drop_in_place`, or a
//! method of the type that does) and only then updates the count (`self.size =
//! len`); a panic in one of the values' `Drop` leaves the count covering values
//! already dropped, and the container's `Drop` drops them again.
//!
//! Read from MIR: the count is a field of `self` that the type's own `Drop` (or a
//! method of the type it calls) reads, and `Drop` drops values in place
//! (`drop_in_place`); the count is updated in a block that dominates a call of code
//! the caller supplies (a closure or trait method on a type parameter) whose result
//! `ptr::write` stores.

use rustc_data_structures::fx::FxHashSet;
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_middle::mir::{self, BasicBlock, Local, Operand, Rvalue, StatementKind, TerminatorKind};
use rustc_middle::ty::{self, TyCtxt, TypeVisitableExt};

use tensor_lint_analyzer::ir::CountedBeforeWritten;

use crate::files::Files;
use crate::released_fields::{callees, fields_read, self_field};

/// The slots of the crate counted before they are written.
pub(crate) fn counted_before_written(tcx: TyCtxt<'_>, files: &Files) -> Vec<CountedBeforeWritten> {
    let mut out = Vec::new();
    let mut counts_of: rustc_data_structures::fx::FxHashMap<DefId, Option<FxHashSet<usize>>> =
        Default::default();
    for body in crate::structs::crate_bodies(tcx) {
        let Some((adt, true)) = crate::structs::struct_of_method(tcx, body) else {
            continue;
        };
        // A panic inside the type's own `Drop` does not run it again.
        if tcx
            .adt_destructor(adt)
            .is_some_and(|d| d.did == body.to_def_id())
        {
            continue;
        }
        let Some(counts) = counts_of
            .entry(adt)
            .or_insert_with(|| drop_counts(tcx, adt))
            .clone()
        else {
            continue;
        };
        found_in(tcx, files, body, adt, &counts, &mut out);
    }
    out
}

/// The fields of struct `adt` its `Drop` reads to drop values in place: `None` when
/// its `Drop` (with the methods of the type it calls) drops nothing in place.
fn drop_counts(tcx: TyCtxt<'_>, adt: DefId) -> Option<FxHashSet<usize>> {
    let destructor = tcx.adt_destructor(adt)?;
    let drop_fn = destructor.did.as_local()?;
    if !tcx.is_mir_available(drop_fn.to_def_id()) {
        return None;
    }
    // `Drop` and the methods of the type it calls, and those they call.
    let mut bodies: Vec<&mir::Body<'_>> = vec![tcx.optimized_mir(drop_fn.to_def_id())];
    let mut seen: FxHashSet<DefId> = FxHashSet::default();
    let mut k = 0;
    while k < bodies.len() && bodies.len() < 16 {
        for helper in callees(bodies[k]).collect::<Vec<_>>() {
            let of_type = tcx
                .opt_parent(helper)
                .is_some_and(|imp| tcx.inherent_impls(adt).contains(&imp));
            if helper.is_local() && of_type && tcx.is_mir_available(helper) && seen.insert(helper) {
                bodies.push(tcx.optimized_mir(helper));
            }
        }
        k += 1;
    }
    if !bodies.iter().any(|mir| drops_in_place(tcx, mir)) {
        return None;
    }
    Some(bodies.iter().flat_map(|mir| fields_read(mir)).collect())
}

/// The counted-before-written slots of method `body` of struct `adt`.
fn found_in(
    tcx: TyCtxt<'_>,
    files: &Files,
    body: LocalDefId,
    adt: DefId,
    counts: &FxHashSet<usize>,
    out: &mut Vec<CountedBeforeWritten>,
) {
    let mir = tcx.optimized_mir(body.to_def_id());
    // Where the method updates a count: an assignment to the field, or a call given a
    // unique borrow of it (`self.ids.insert(id)`).
    let mut updates: Vec<(BasicBlock, usize, rustc_span::Span)> = Vec::new();
    for (bb, data) in mir.basic_blocks.iter_enumerated() {
        if data.is_cleanup {
            continue;
        }
        for stmt in &data.statements {
            if let StatementKind::Assign(assign) = &stmt.kind {
                if let Some(f) = self_field(&assign.0, true).filter(|f| counts.contains(f)) {
                    updates.push((bb, f, stmt.source_info.span));
                }
            }
        }
        if let TerminatorKind::Call { args, fn_span, .. } = &data.terminator().kind {
            let first = args
                .first()
                .and_then(|a| a.node.place())
                .and_then(|p| p.as_local());
            if let Some(f) = first
                .and_then(|l| unique_borrow_of(mir, l))
                .and_then(|p| self_field(&p, true))
                .filter(|f| counts.contains(f))
            {
                updates.push((bb, f, *fn_span));
            }
        }
    }
    if updates.is_empty() {
        return;
    }
    let dominators = mir.basic_blocks.dominators();
    dropped_before_uncounted(tcx, files, mir, adt, &updates, out);
    for (bb, data) in mir.basic_blocks.iter_enumerated() {
        if data.is_cleanup {
            continue;
        }
        let TerminatorKind::Call {
            func,
            destination,
            target: Some(next),
            fn_span,
            ..
        } = &data.terminator().kind
        else {
            continue;
        };
        if !callers_code(tcx, func) || !destination.projection.is_empty() {
            continue;
        }
        // The count was updated before, on every path here.
        let Some(&(_, field, count_at)) = updates
            .iter()
            .find(|(u, _, _)| *u != bb && dominators.dominates(*u, bb))
        else {
            continue;
        };
        // The result is what `ptr::write` stores next.
        let Some(write_at) = written_by_next(tcx, mir, *next, destination.local) else {
            continue;
        };
        out.extend(finding(
            tcx,
            files,
            adt,
            field,
            (*fn_span, count_at, write_at),
            false,
        ));
    }
}

/// A finding on count field `field` of struct `adt`, at the spans `(at, count_at,
/// write_at)` of the compiler.
fn finding(
    tcx: TyCtxt<'_>,
    files: &Files,
    adt: DefId,
    field: usize,
    (at, count_at, write_at): (rustc_span::Span, rustc_span::Span, rustc_span::Span),
    dropped: bool,
) -> Option<CountedBeforeWritten> {
    let count = tcx
        .adt_def(adt)
        .non_enum_variant()
        .fields
        .iter()
        .nth(field)?;
    Some(CountedBeforeWritten {
        at: files.span(at)?,
        count: count.name.to_string(),
        count_at: files.span(count_at)?,
        write_at: files.span(write_at)?,
        owner: tcx.item_name(adt).to_string(),
        dropped,
    })
}

/// Values dropped in place while the count still covers them: a block that drops
/// values of a type parameter in place through a method of the type,
/// from which an assignment of a count is reached, with no update of that count on
/// every path before it.
fn dropped_before_uncounted<'tcx>(
    tcx: TyCtxt<'tcx>,
    files: &Files,
    mir: &mir::Body<'tcx>,
    adt: DefId,
    updates: &[(BasicBlock, usize, rustc_span::Span)],
    out: &mut Vec<CountedBeforeWritten>,
) {
    let dominators = mir.basic_blocks.dominators();
    for (bb, data) in mir.basic_blocks.iter_enumerated() {
        if data.is_cleanup {
            continue;
        }
        let Some((span, next)) = drops_values_here(tcx, mir, adt, data) else {
            continue;
        };
        let after = reachable_from(mir, next);
        let Some(&(_, field, count_at)) = updates.iter().find(|(u, f, _)| {
            after.contains(u)
                && !updates
                    .iter()
                    .any(|(v, g, _)| g == f && *v != bb && dominators.dominates(*v, bb))
        }) else {
            continue;
        };
        out.extend(finding(
            tcx,
            files,
            adt,
            field,
            (span, count_at, span),
            true,
        ));
    }
}

/// Where block `data` drops values of a type parameter in place, and the block that
/// follows: a call of a method of struct `adt` that does (`self.drop_range(r)`).
fn drops_values_here<'tcx>(
    tcx: TyCtxt<'tcx>,
    mir: &mir::Body<'tcx>,
    adt: DefId,
    data: &mir::BasicBlockData<'tcx>,
) -> Option<(rustc_span::Span, BasicBlock)> {
    let TerminatorKind::Call {
        func,
        target: Some(next),
        fn_span,
        ..
    } = &data.terminator().kind
    else {
        return None;
    };
    // A `drop_in_place` the method makes itself is the unwinding pass's (a panic there
    // drops values already dropped); here, the drops a method of the type makes.
    let (callee, _) = func.const_fn_def()?;
    let of_type = tcx
        .opt_parent(callee)
        .is_some_and(|imp| tcx.inherent_impls(adt).contains(&imp));
    if !(callee.is_local() && of_type && tcx.is_mir_available(callee)) {
        return None;
    }
    let _ = mir;
    drops_in_place(tcx, tcx.optimized_mir(callee)).then_some((*fn_span, *next))
}

/// `drop_in_place` of values whose type has a type parameter in it.
fn generic_drop_in_place<'tcx>(
    tcx: TyCtxt<'tcx>,
    callee: DefId,
    generics: ty::GenericArgsRef<'tcx>,
) -> bool {
    tcx.crate_name(callee.krate).as_str() == "core"
        && tcx.item_name(callee).as_str() == "drop_in_place"
        && generics.types().next().is_some_and(|t| t.has_param())
}

/// Whether a body drops values of a type parameter in place: itself, or by dropping a
/// local whose type's own `Drop` does (a guard that drops a slice when it goes).
fn drops_in_place<'tcx>(tcx: TyCtxt<'tcx>, mir: &mir::Body<'tcx>) -> bool {
    mir.basic_blocks
        .iter()
        .any(|data| match &data.terminator().kind {
            TerminatorKind::Call { func, .. } => func
                .const_fn_def()
                .is_some_and(|(c, g)| generic_drop_in_place(tcx, c, g)),
            TerminatorKind::Drop { place, .. } if !data.is_cleanup => {
                let ty = place.ty(mir, tcx).ty;
                let ty::Adt(def, _) = ty.kind() else {
                    return false;
                };
                let Some(destructor) = tcx.adt_destructor(def.did()) else {
                    return false;
                };
                destructor.did.is_local()
                    && tcx.is_mir_available(destructor.did)
                    && callees_generic_drop(tcx, tcx.optimized_mir(destructor.did))
            }
            _ => false,
        })
}

fn callees_generic_drop<'tcx>(tcx: TyCtxt<'tcx>, mir: &mir::Body<'tcx>) -> bool {
    crate::structs::direct_calls(mir).any(|c| generic_drop_in_place(tcx, c.callee, c.generics))
}

/// The blocks reachable from `start` on paths that do not unwind.
fn reachable_from(mir: &mir::Body<'_>, start: BasicBlock) -> FxHashSet<BasicBlock> {
    let mut seen: FxHashSet<BasicBlock> = FxHashSet::default();
    let mut work = vec![start];
    while let Some(bb) = work.pop() {
        if !seen.insert(bb) || mir.basic_blocks[bb].is_cleanup {
            continue;
        }
        work.extend(mir.basic_blocks[bb].terminator().successors());
    }
    seen
}

/// The place a local is a unique borrow of, from its one assignment (`_5 = &mut
/// (*_1).ids`).
fn unique_borrow_of<'tcx>(mir: &mir::Body<'tcx>, local: Local) -> Option<mir::Place<'tcx>> {
    mir.basic_blocks
        .iter()
        .flat_map(|b| &b.statements)
        .find_map(|stmt| match &stmt.kind {
            StatementKind::Assign(assign) if assign.0.as_local() == Some(local) => {
                match &assign.1 {
                    Rvalue::Ref(_, mir::BorrowKind::Mut { .. }, place) => Some(*place),
                    _ => None,
                }
            }
            _ => None,
        })
}

/// Whether a call runs code the caller supplies: a trait's method on a type parameter
/// (`<F as FnOnce<()>>::call_once`, `<T as Clone>::clone`).
fn callers_code<'tcx>(tcx: TyCtxt<'tcx>, func: &Operand<'tcx>) -> bool {
    let Some((callee, generics)) = func.const_fn_def() else {
        return false;
    };
    if tcx.trait_of_assoc(callee).is_none() {
        return false;
    }
    generics.types().next().is_some_and(|t| {
        let t = t.builtin_deref(true).unwrap_or(t);
        matches!(t.kind(), ty::Param(_))
    })
}

/// The span of the `ptr::write` in block `bb` (or the block it falls through to) that
/// stores `value`.
fn written_by_next<'tcx>(
    tcx: TyCtxt<'tcx>,
    mir: &mir::Body<'tcx>,
    bb: BasicBlock,
    value: Local,
) -> Option<rustc_span::Span> {
    let mut bb = bb;
    for _ in 0..4 {
        let data = &mir.basic_blocks[bb];
        match &data.terminator().kind {
            TerminatorKind::Call {
                func,
                args,
                fn_span,
                target,
                ..
            } => {
                let (callee, _) = func.const_fn_def()?;
                let is_write = tcx.crate_name(callee.krate).as_str() == "core"
                    && matches!(tcx.item_name(callee).as_str(), "write" | "write_unaligned");
                let stores = args
                    .get(1)
                    .and_then(|a| a.node.place())
                    .is_some_and(|p| p.as_local() == Some(value));
                if is_write && stores {
                    return Some(*fn_span);
                }
                bb = (*target)?;
            }
            TerminatorKind::Goto { target, .. } => bb = *target,
            _ => return None,
        }
    }
    None
}
