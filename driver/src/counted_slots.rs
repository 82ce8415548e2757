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
//!
//! The count may also be advanced by a method of the type that hands the counted slot
//! back (`let slot = self.push_slot(n)?;`, where `push_slot` does `self.top += n` and
//! returns `&mut self.data[..]`): then the write must store into what that method
//! returned. A slot that keeps its own count (a length in the slot, reset before the
//! caller's code runs and advanced after each write) is written as it is counted, and
//! is no finding.

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_middle::mir::{self, BasicBlock, Local, Operand, Rvalue, StatementKind, TerminatorKind};
use rustc_middle::ty::{self, TyCtxt, TypeVisitableExt};

use tensor_lint_analyzer::ir::CountedBeforeWritten;
use tensor_lint_analyzer::models::Role;

use crate::files::Files;
use crate::models::Models;
use crate::released_fields::{callees, fields_read, self_field, self_reborrows};

/// The slots of the crate counted before they are written.
pub(crate) fn counted_before_written(
    tcx: TyCtxt<'_>,
    models: &Models,
    files: &Files,
) -> Vec<CountedBeforeWritten> {
    let mut out = Vec::new();
    let mut counts_of: FxHashMap<DefId, Option<FxHashSet<usize>>> = FxHashMap::default();
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
            .or_insert_with(|| drop_counts(tcx, models, adt))
        else {
            continue;
        };
        found_in(tcx, models, files, body, adt, counts, &mut out);
    }
    out
}

/// The fields of struct `adt` its `Drop` reads to drop values in place: `None` when
/// its `Drop` (with the methods of the type it calls) drops nothing in place.
fn drop_counts(tcx: TyCtxt<'_>, models: &Models, adt: DefId) -> Option<FxHashSet<usize>> {
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
            if crate::structs::own_method_of(tcx, adt, helper) && seen.insert(helper) {
                bodies.push(tcx.optimized_mir(helper));
            }
        }
        k += 1;
    }
    if !bodies.iter().any(|mir| drops_in_place(tcx, models, mir)) {
        return None;
    }
    Some(bodies.iter().flat_map(|mir| fields_read(mir)).collect())
}

/// A call of a method of the type that advances a count and returns the slot it
/// counted (`let d = self.push_inner(n)?;`).
struct HandedSlot {
    block: BasicBlock,
    field: usize,
    span: rustc_span::Span,
    /// The locals that hold what the call returned, or a pointer or reference made
    /// from it.
    derived: FxHashSet<Local>,
    method: rustc_span::Symbol,
}

/// The counted-before-written slots of method `body` of struct `adt`.
fn found_in(
    tcx: TyCtxt<'_>,
    models: &Models,
    files: &Files,
    body: LocalDefId,
    adt: DefId,
    counts: &FxHashSet<usize>,
    out: &mut Vec<CountedBeforeWritten>,
) {
    let mir = tcx.optimized_mir(body.to_def_id());
    // The count field each local is a unique borrow of (`_5 = &mut (*_1).ids`).
    let mut borrows: FxHashMap<Local, usize> = FxHashMap::default();
    // Where the method updates a count: an assignment to the field, or a call given a
    // unique borrow of it (`self.ids.insert(id)`).
    let mut updates: Vec<(BasicBlock, usize, rustc_span::Span)> = Vec::new();
    for (bb, data) in mir.basic_blocks.iter_enumerated() {
        for stmt in &data.statements {
            let StatementKind::Assign(assign) = &stmt.kind else {
                continue;
            };
            let (dst, rvalue) = &**assign;
            if let (Some(local), Rvalue::Ref(_, mir::BorrowKind::Mut { .. }, place)) =
                (dst.as_local(), rvalue)
            {
                if let Some(f) = self_field(place, true).filter(|f| counts.contains(f)) {
                    borrows.entry(local).or_insert(f);
                }
            }
            if data.is_cleanup {
                continue;
            }
            if let Some(f) = self_field(dst, true).filter(|f| counts.contains(f)) {
                updates.push((bb, f, stmt.source_info.span));
            }
        }
    }
    for (bb, data) in mir.basic_blocks.iter_enumerated() {
        if data.is_cleanup {
            continue;
        }
        if let TerminatorKind::Call { args, fn_span, .. } = &data.terminator().kind {
            let first = args
                .first()
                .and_then(|a| a.node.place())
                .and_then(|p| p.as_local());
            if let Some(&f) = first.and_then(|l| borrows.get(&l)) {
                updates.push((bb, f, *fn_span));
            }
        }
    }
    let handed = handed_slots(tcx, mir, adt, counts);
    if updates.is_empty() && handed.is_empty() {
        return;
    }
    let dominators = mir.basic_blocks.dominators();
    dropped_before_uncounted(tcx, models, files, mir, adt, &updates, out);
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
        // The result is what `ptr::write` stores next.
        let Some((write_at, slot)) = written_by_next(tcx, models, mir, *next, destination.local)
        else {
            continue;
        };
        // The count was updated before, on every path here: by the method itself, or
        // by a method that handed back the slot now written.
        let direct = updates
            .iter()
            .find(|(u, _, _)| *u != bb && dominators.dominates(*u, bb))
            .map(|&(_, field, count_at)| (field, count_at, None));
        let by_method = || {
            handed
                .iter()
                .find(|h| {
                    h.block != bb
                        && dominators.dominates(h.block, bb)
                        && slot.is_some_and(|s| h.derived.contains(&s))
                        && !keeps_own_count(mir, h, bb, dominators)
                })
                .map(|h| (h.field, h.span, Some(h.method.to_string())))
        };
        let Some((field, count_at, counted_by)) = direct.or_else(by_method) else {
            continue;
        };
        out.extend(finding(
            tcx,
            files,
            adt,
            field,
            (*fn_span, count_at),
            Some(write_at),
            counted_by,
        ));
    }
}

/// The calls of `mir` to methods of struct `adt`, given `self`, that advance a count
/// field (`self.top += n`) and return a reference or pointer (the slot counted).
fn handed_slots<'tcx>(
    tcx: TyCtxt<'tcx>,
    mir: &mir::Body<'tcx>,
    adt: DefId,
    counts: &FxHashSet<usize>,
) -> Vec<HandedSlot> {
    let self_local = Local::from_usize(1);
    let reborrows = self_reborrows(mir);
    let mut out = Vec::new();
    for (bb, data) in mir.basic_blocks.iter_enumerated() {
        if data.is_cleanup {
            continue;
        }
        let TerminatorKind::Call {
            func,
            args,
            destination,
            fn_span,
            ..
        } = &data.terminator().kind
        else {
            continue;
        };
        let Some((callee, _)) = func.const_fn_def() else {
            continue;
        };
        if !crate::structs::own_method_of(tcx, adt, callee) || !destination.projection.is_empty() {
            continue;
        }
        let given_self = args
            .first()
            .and_then(|a| a.node.place())
            .and_then(|p| p.as_local())
            .is_some_and(|l| l == self_local || reborrows.contains(&l));
        if !given_self || !holds_a_pointer(mir.local_decls[destination.local].ty) {
            continue;
        }
        let Some(field) = advanced_count(tcx.optimized_mir(callee), counts) else {
            continue;
        };
        out.push(HandedSlot {
            block: bb,
            field,
            span: *fn_span,
            derived: derived_from(mir, destination.local),
            method: tcx.item_name(callee),
        });
    }
    out
}

/// A count field a method advances from its own value (`self.top += n`): the field is
/// assigned a sum that reads it (directly, or through the checked sum's temporary).
fn advanced_count(mir: &mir::Body<'_>, counts: &FxHashSet<usize>) -> Option<usize> {
    let reads_field =
        |op: &Operand<'_>, f: usize| op.place().is_some_and(|p| self_field(&p, true) == Some(f));
    // The count field a sum reads, if any.
    let sum_of = |rvalue: &Rvalue<'_>| match rvalue {
        Rvalue::BinaryOp(
            mir::BinOp::Add | mir::BinOp::AddWithOverflow | mir::BinOp::AddUnchecked,
            operands,
        ) => counts
            .iter()
            .copied()
            .find(|&f| reads_field(&operands.0, f) || reads_field(&operands.1, f)),
        _ => None,
    };
    let statements = || {
        mir.basic_blocks
            .iter()
            .filter(|d| !d.is_cleanup)
            .flat_map(|d| &d.statements)
            .filter_map(|stmt| match &stmt.kind {
                StatementKind::Assign(assign) => Some(&**assign),
                _ => None,
            })
    };
    // Temporaries that hold a sum of a count field (`_5 = AddWithOverflow(..)`).
    let sums: FxHashMap<Local, usize> = statements()
        .filter_map(|(dst, rvalue)| Some((dst.as_local()?, sum_of(rvalue)?)))
        .collect();
    statements().find_map(|(dst, rvalue)| {
        let f = self_field(dst, true).filter(|f| counts.contains(f))?;
        let summed = match rvalue {
            Rvalue::Use(op, _) => op.place().is_some_and(|p| sums.get(&p.local) == Some(&f)),
            other => sum_of(other) == Some(f),
        };
        summed.then_some(f)
    })
}

/// Whether a type holds a reference or a raw pointer (`Result<&mut [usize], ()>`).
fn holds_a_pointer(ty: ty::Ty<'_>) -> bool {
    ty.walk()
        .any(|arg| arg.as_type().is_some_and(|t| t.is_ref() || t.is_raw_ptr()))
}

/// The locals of `mir` that hold `result` or what is made from it: its payload, a
/// pointer or reference to it or into it, what a call given one of them returns
/// when that holds a pointer (`d.as_mut_ptr()`, `p.offset(1)`, `r?`).
fn derived_from<'tcx>(mir: &mir::Body<'tcx>, result: Local) -> FxHashSet<Local> {
    let mut derived: FxHashSet<Local> = FxHashSet::default();
    derived.insert(result);
    let from = |place: &mir::Place<'_>, derived: &FxHashSet<Local>| derived.contains(&place.local);
    loop {
        let before = derived.len();
        for data in mir.basic_blocks.iter() {
            for stmt in &data.statements {
                let StatementKind::Assign(assign) = &stmt.kind else {
                    continue;
                };
                let (dst, rvalue) = &**assign;
                let Some(dst) = dst.as_local() else {
                    continue;
                };
                let made = match rvalue {
                    Rvalue::Use(op, _) | Rvalue::Cast(_, op, _) => {
                        op.place().is_some_and(|p| from(&p, &derived))
                    }
                    Rvalue::Ref(_, _, place)
                    | Rvalue::RawPtr(_, place)
                    | Rvalue::CopyForDeref(place) => from(place, &derived),
                    _ => false,
                };
                if made {
                    derived.insert(dst);
                }
            }
            if let TerminatorKind::Call {
                args, destination, ..
            } = &data.terminator().kind
            {
                let given = args
                    .first()
                    .and_then(|a| a.node.place())
                    .is_some_and(|p| from(&p, &derived));
                if given
                    && destination.projection.is_empty()
                    && holds_a_pointer(mir.local_decls[destination.local].ty)
                {
                    derived.insert(destination.local);
                }
            }
        }
        if derived.len() == before {
            return derived;
        }
    }
}

/// Whether the slot `handed` keeps its own count of the values written into it: a
/// store through what the method returned before the caller's code at `call` runs
/// (the count reset), on every path, and another after the write, before that code
/// runs again (the count advanced).
fn keeps_own_count(
    mir: &mir::Body<'_>,
    handed: &HandedSlot,
    call: BasicBlock,
    dominators: &rustc_data_structures::graph::dominators::Dominators<BasicBlock>,
) -> bool {
    let stores: Vec<BasicBlock> = mir
        .basic_blocks
        .iter_enumerated()
        .filter(|(_, data)| !data.is_cleanup)
        .filter(|(_, data)| {
            data.statements.iter().any(|stmt| match &stmt.kind {
                StatementKind::Assign(assign) => {
                    handed.derived.contains(&assign.0.local)
                        && assign.0.projection.first() == Some(&mir::PlaceElem::Deref)
                }
                _ => false,
            })
        })
        .map(|(bb, _)| bb)
        .collect();
    let reset = stores
        .iter()
        .any(|&s| s != call && dominators.dominates(s, call));
    let TerminatorKind::Call {
        target: Some(after_call),
        ..
    } = mir.basic_blocks[call].terminator().kind
    else {
        return false;
    };
    // The blocks after the call that are reached before the call runs again.
    let seen = crate::structs::blocks_reached(mir, after_call, |bb, _| bb == call);
    reset && stores.iter().any(|s| seen.contains(s))
}

/// A finding on count field `field` of struct `adt`, at the spans `(at, count_at)` of
/// the compiler, with the write of the slot (`None`: values dropped while counted).
fn finding(
    tcx: TyCtxt<'_>,
    files: &Files,
    adt: DefId,
    field: usize,
    (at, count_at): (rustc_span::Span, rustc_span::Span),
    write_at: Option<rustc_span::Span>,
    counted_by: Option<String>,
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
        write_at: match write_at {
            Some(span) => Some(files.span(span)?),
            None => None,
        },
        owner: tcx.item_name(adt).to_string(),
        counted_by,
    })
}

/// Values dropped in place while the count still covers them: a block that drops
/// values of a type parameter in place through a method of the type,
/// from which an assignment of a count is reached, with no update of that count on
/// every path before it.
fn dropped_before_uncounted<'tcx>(
    tcx: TyCtxt<'tcx>,
    models: &Models,
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
        let Some((span, next)) = drops_values_here(tcx, models, adt, data) else {
            continue;
        };
        let after = crate::structs::blocks_reached(mir, next, |_, _| false);
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
            (span, count_at),
            None,
            None,
        ));
    }
}

/// Where block `data` drops values of a type parameter in place, and the block that
/// follows: a call of a method of struct `adt` that does (`self.drop_range(r)`).
fn drops_values_here<'tcx>(
    tcx: TyCtxt<'tcx>,
    models: &Models,
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
    if !crate::structs::own_method_of(tcx, adt, callee) {
        return None;
    }
    drops_in_place(tcx, models, tcx.optimized_mir(callee)).then_some((*fn_span, *next))
}

/// `drop_in_place` of values whose type has a type parameter in it.
fn generic_drop_in_place<'tcx>(
    tcx: TyCtxt<'tcx>,
    models: &Models,
    callee: DefId,
    generics: ty::GenericArgsRef<'tcx>,
) -> bool {
    models.is(tcx, callee, Role::DropInPlace)
        && generics.types().next().is_some_and(|t| t.has_param())
}

/// Whether a body drops values of a type parameter in place: itself, or by dropping a
/// local whose type's own `Drop` does (a guard that drops a slice when it goes).
fn drops_in_place<'tcx>(tcx: TyCtxt<'tcx>, models: &Models, mir: &mir::Body<'tcx>) -> bool {
    calls_generic_drop(tcx, models, mir)
        || mir
            .basic_blocks
            .iter()
            .any(|data| match &data.terminator().kind {
                TerminatorKind::Drop { place, .. } if !data.is_cleanup => {
                    let ty::Adt(def, _) = place.ty(mir, tcx).ty.kind() else {
                        return false;
                    };
                    tcx.adt_destructor(def.did()).is_some_and(|d| {
                        d.did.is_local()
                            && tcx.is_mir_available(d.did)
                            && calls_generic_drop(tcx, models, tcx.optimized_mir(d.did))
                    })
                }
                _ => false,
            })
}

/// Whether a body calls `drop_in_place` on values of a type parameter.
fn calls_generic_drop<'tcx>(tcx: TyCtxt<'tcx>, models: &Models, mir: &mir::Body<'tcx>) -> bool {
    crate::structs::direct_calls(mir)
        .any(|c| generic_drop_in_place(tcx, models, c.callee, c.generics))
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
/// stores `value`, with the local of the pointer it writes through.
fn written_by_next<'tcx>(
    tcx: TyCtxt<'tcx>,
    models: &Models,
    mir: &mir::Body<'tcx>,
    bb: BasicBlock,
    value: Local,
) -> Option<(rustc_span::Span, Option<Local>)> {
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
                let is_write = models.is(tcx, callee, Role::BitwiseWrite);
                let stores = args
                    .get(1)
                    .and_then(|a| a.node.place())
                    .is_some_and(|p| p.as_local() == Some(value));
                if is_write && stores {
                    let slot = args
                        .first()
                        .and_then(|a| a.node.place())
                        .and_then(|p| p.as_local());
                    return Some((*fn_span, slot));
                }
                bb = (*target)?;
            }
            TerminatorKind::Goto { target, .. } => bb = *target,
            _ => return None,
        }
    }
    None
}
