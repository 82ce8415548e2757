//! Nodes retired while another pointer of the structure may still reach them.
//!
//! A linked structure keeps two atomic pointers to nodes of one type (a queue's `head`
//! and `tail`). A method moves one of them off a node (`self.head.compare_exchange(head,
//! next, ..)`) and hands the node to a deferred destruction (`guard.defer_destroy(head)`),
//! which frees it once no thread still pinned can hold it. If the other pointer may
//! still point to that node (the queue's last node is both head and tail), a thread
//! that loads it later follows a pointer to freed memory: the method must move that
//! pointer off the node as well before retiring it (`if tail == head {
//! self.tail.compare_exchange(tail, next, ..) }`).
//!
//! Reported when the retiring method (with its closures) never looks at the other
//! field at all, while another method of the type loads it. A method that reads the
//! field, whatever it does with it, is taken to have settled the question.

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_middle::mir::visit::{PlaceContext, Visitor};
use rustc_middle::mir::{self, Local, Operand, PlaceElem, Rvalue, StatementKind, TerminatorKind};
use rustc_middle::ty::{self, Ty, TyCtxt};

use tensor_lint_analyzer::ir::RetiredReachable;
use tensor_lint_analyzer::models::Role;

use crate::files::Files;
use crate::models::Models;
use crate::released_fields::{field_name, FieldPath, THROUGH_DEREF};

/// What one method of a struct, with its closures, does with the struct's fields.
#[derive(Default)]
struct MethodUse {
    /// Field paths it calls a method on or reads (`self.tail.load(..)`, `self.len`).
    touched: Vec<FieldPath>,
    /// Field paths it loads (`load`).
    loads: Vec<(FieldPath, rustc_span::Span)>,
    /// Field paths it loads or hands to a function (`link(&self.tail, ..)`).
    follows: Vec<(FieldPath, rustc_span::Span)>,
    /// Field paths it moves to another node (`compare_exchange`, `store`, `swap`).
    moves: Vec<(FieldPath, rustc_span::Span)>,
    /// Nodes it retires: the node's type, where.
    retires: Vec<(DefId, rustc_span::Span)>,
}

/// The nodes of the crate retired while another field may still point to them.
pub(crate) fn retired_reachable(
    tcx: TyCtxt<'_>,
    models: &Models,
    files: &Files,
) -> Vec<RetiredReachable> {
    // The methods of the crate's structs, each with what it and its closures do.
    let mut methods: Vec<(DefId, LocalDefId)> = Vec::new();
    let mut uses: FxHashMap<LocalDefId, MethodUse> = FxHashMap::default();
    for body in crate::structs::crate_bodies(tcx) {
        let Some(method) = tcx.typeck_root_def_id(body.to_def_id()).as_local() else {
            continue;
        };
        let Some((adt, _)) = crate::structs::struct_of_method(tcx, method) else {
            continue;
        };
        if !uses.contains_key(&method) {
            methods.push((adt, method));
        }
        let found = uses.entry(method).or_default();
        read_body(tcx, models, tcx.optimized_mir(body.to_def_id()), adt, found);
    }
    // Only a method that retires a node can be reported.
    if uses.values().all(|u| u.retires.is_empty()) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut seen: FxHashSet<rustc_span::Span> = FxHashSet::default();
    for &(adt, method) in &methods {
        let here = &uses[&method];
        if here.retires.is_empty() {
            continue;
        }
        let pointers = node_pointers(tcx, adt);
        for &(node, at) in &here.retires {
            for (moved, moved_node) in &pointers {
                if *moved_node != node {
                    continue;
                }
                let Some(&(_, moved_at)) = here.moves.iter().find(|(p, _)| p == moved) else {
                    continue;
                };
                if !here.loads.iter().any(|(p, _)| p == moved) {
                    continue;
                }
                for (still, still_node) in &pointers {
                    if still == moved || *still_node != node {
                        continue;
                    }
                    if here.touched.iter().any(|p| overlaps(p, still)) {
                        continue;
                    }
                    // Another method of the type loads it, and may follow it.
                    let Some((other, used_at)) = methods.iter().find_map(|&(a, m)| {
                        if a != adt || m == method {
                            return None;
                        }
                        let (_, span) = uses[&m].follows.iter().find(|(p, _)| p == still)?;
                        Some((m, *span))
                    }) else {
                        continue;
                    };
                    if !seen.insert(at) {
                        continue;
                    }
                    let (Some(retired_at), Some(moved_at), Some(used_at)) =
                        (files.span(at), files.span(moved_at), files.span(used_at))
                    else {
                        continue;
                    };
                    out.push(RetiredReachable {
                        at: retired_at,
                        node: crate::lower::types::short_name(
                            tcx,
                            tcx.type_of(node).instantiate_identity().skip_norm_wip(),
                        ),
                        moved: field_name(tcx, adt, moved).0,
                        moved_at,
                        still: field_name(tcx, adt, still).0,
                        used_in: tcx.item_name(other.to_def_id()).to_string(),
                        used_at,
                    });
                }
            }
        }
    }
    out
}

/// Whether a use of path `used` reads something of path `field`: the field itself,
/// a part of it, or a whole that holds it.
fn overlaps(used: &FieldPath, field: &FieldPath) -> bool {
    used.starts_with(field) || field.starts_with(used)
}

/// The atomic pointers to nodes a struct holds (a few fields deep, through wrappers
/// such as `CachePadded`), each with the node's type.
fn node_pointers(tcx: TyCtxt<'_>, adt: DefId) -> Vec<(FieldPath, DefId)> {
    let mut out = Vec::new();
    let ty = tcx.type_of(adt).instantiate_identity().skip_norm_wip();
    collect_pointers(tcx, ty, &mut Vec::new(), &mut out);
    out
}

fn collect_pointers<'tcx>(
    tcx: TyCtxt<'tcx>,
    ty: Ty<'tcx>,
    path: &mut FieldPath,
    out: &mut Vec<(FieldPath, DefId)>,
) {
    if let Some(node) = atomic_node(tcx, ty) {
        if !path.is_empty() {
            out.push((path.clone(), node));
        }
        return;
    }
    if path.len() >= 4 {
        return;
    }
    let ty::Adt(def, args) = ty.kind() else {
        return;
    };
    if !def.is_struct() {
        return;
    }
    if def.did().is_local() {
        for (k, field) in def.non_enum_variant().fields.iter().enumerate() {
            path.push(k);
            collect_pointers(tcx, field.ty(tcx, args).skip_normalization(), path, out);
            path.pop();
        }
    } else if let Some(inner) = args.types().next() {
        // A wrapper of another crate (`CachePadded<T>`): what its `Deref` gives.
        path.push(THROUGH_DEREF);
        collect_pointers(tcx, inner, path, out);
        path.pop();
    }
}

/// The node type of an atomic pointer: `Atomic<Node<T>>` (crossbeam-epoch),
/// `AtomicPtr<Node<T>>`, or `Atomic<*mut Node<T>>`.
fn atomic_node<'tcx>(tcx: TyCtxt<'tcx>, ty: Ty<'tcx>) -> Option<DefId> {
    let ty::Adt(def, args) = ty.kind() else {
        return None;
    };
    if !matches!(tcx.item_name(def.did()).as_str(), "Atomic" | "AtomicPtr") {
        return None;
    }
    let inner = args.types().next()?;
    let inner = match inner.kind() {
        ty::RawPtr(pointee, _) => *pointee,
        _ => inner,
    };
    match inner.kind() {
        ty::Adt(node, _) if node.did().is_local() => Some(node.did()),
        _ => None,
    }
}

/// What body `mir` (a method of struct `adt` or one of its closures) does with the
/// struct's fields.
fn read_body<'tcx>(
    tcx: TyCtxt<'tcx>,
    models: &Models,
    mir: &mir::Body<'tcx>,
    adt: DefId,
    found: &mut MethodUse,
) {
    let refs = field_refs(tcx, models, mir, adt);
    for call in crate::structs::direct_calls(mir).filter(|c| !c.cleanup) {
        let role = models.role(tcx, call.callee);
        if role == Some(Role::DeferDestroy) {
            if let Some(ty::Adt(node, _)) = call.generics.types().next().map(|t| t.kind()) {
                found.retires.push((node.did(), call.span));
            }
        }
        if role == Some(Role::Deref) {
            continue;
        }
        // A field handed to a function of the crate, which may follow it.
        if call.callee.is_local() {
            for a in call.args.iter().skip(1) {
                if let Some(path) = ref_path(&refs, &a.node) {
                    found.follows.push((path.clone(), call.span));
                    found.touched.push(path);
                }
            }
        }
        let Some(path) = call.args.first().and_then(|a| ref_path(&refs, &a.node)) else {
            continue;
        };
        if call.callee.is_local() {
            found.follows.push((path.clone(), call.span));
        }
        match role {
            Some(Role::AtomicLoad) => {
                found.loads.push((path.clone(), call.span));
                found.follows.push((path.clone(), call.span));
            }
            Some(Role::AtomicMove) => found.moves.push((path.clone(), call.span)),
            _ => {}
        }
        found.touched.push(path);
    }
    // Fields read in place (`self.len`, `(*tail).next`).
    struct Reads<'a, 'tcx> {
        tcx: TyCtxt<'tcx>,
        mir: &'a mir::Body<'tcx>,
        adt: DefId,
        refs: &'a FxHashMap<Local, FieldPath>,
        touched: &'a mut Vec<FieldPath>,
    }
    impl<'tcx> Visitor<'tcx> for Reads<'_, 'tcx> {
        fn visit_place(&mut self, place: &mir::Place<'tcx>, cx: PlaceContext, _: mir::Location) {
            if !matches!(cx, PlaceContext::NonMutatingUse(_)) {
                return;
            }
            if let Some(path) = place_path(self.tcx, self.mir, self.adt, self.refs, place) {
                // A borrow made only to call a method of the field is the call's.
                if !matches!(
                    cx,
                    PlaceContext::NonMutatingUse(mir::visit::NonMutatingUseContext::SharedBorrow)
                ) {
                    self.touched.push(path);
                }
            }
        }
    }
    Reads {
        tcx,
        mir,
        adt,
        refs: &refs,
        touched: &mut found.touched,
    }
    .visit_body(mir);
}

/// The locals that refer to a field of a value of struct `adt` (`&self.tail`, what a
/// wrapper's `deref` gives of it, copies of those).
fn field_refs<'tcx>(
    tcx: TyCtxt<'tcx>,
    models: &Models,
    mir: &mir::Body<'tcx>,
    adt: DefId,
) -> FxHashMap<Local, FieldPath> {
    let mut refs: FxHashMap<Local, FieldPath> = FxHashMap::default();
    loop {
        let before = refs.len();
        for block in mir.basic_blocks.iter() {
            for stmt in &block.statements {
                let StatementKind::Assign(assign) = &stmt.kind else {
                    continue;
                };
                let (dst, rvalue) = &**assign;
                if !dst.projection.is_empty() || refs.contains_key(&dst.local) {
                    continue;
                }
                let path = match rvalue {
                    Rvalue::Ref(_, _, p) | Rvalue::RawPtr(_, p) => {
                        place_path(tcx, mir, adt, &refs, p)
                    }
                    Rvalue::Use(op, _) | Rvalue::Cast(_, op, _) => ref_path(&refs, op),
                    _ => None,
                };
                if let Some(path) = path {
                    refs.insert(dst.local, path);
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
            if !destination.projection.is_empty() || refs.contains_key(&destination.local) {
                continue;
            }
            let Some((callee, _)) = func.const_fn_def() else {
                continue;
            };
            if !models.is(tcx, callee, Role::Deref) {
                continue;
            }
            if let Some(mut path) = args.first().and_then(|a| ref_path(&refs, &a.node)) {
                path.push(THROUGH_DEREF);
                refs.insert(destination.local, path);
            }
        }
        if refs.len() == before {
            return refs;
        }
    }
}

/// The field path an operand refers to, when it is a local that refers to a field.
fn ref_path(refs: &FxHashMap<Local, FieldPath>, op: &Operand<'_>) -> Option<FieldPath> {
    match op {
        Operand::Copy(p) | Operand::Move(p) if p.projection.is_empty() => {
            refs.get(&p.local).cloned()
        }
        _ => None,
    }
}

/// The field path of struct `adt` a place names: a field of a value of the struct
/// however reached (`(*_1).tail`, `(*(*_3)).head` in a closure that captured `self`), or
/// a field inside one a local refers to (`(*r).block`).
fn place_path<'tcx>(
    tcx: TyCtxt<'tcx>,
    mir: &mir::Body<'tcx>,
    adt: DefId,
    refs: &FxHashMap<Local, FieldPath>,
    place: &mir::Place<'tcx>,
) -> Option<FieldPath> {
    let mut path: Option<FieldPath> = None;
    let mut elems = place.projection.iter().peekable();
    if let Some(base) = refs.get(&place.local) {
        if elems.peek() == Some(&PlaceElem::Deref) {
            elems.next();
            path = Some(base.clone());
        }
    }
    let mut ty = mir::PlaceTy::from_ty(mir.local_decls[place.local].ty);
    for elem in elems {
        match elem {
            PlaceElem::Field(f, _) => match &mut path {
                Some(path) => path.push(f.as_usize()),
                None if matches!(ty.ty.kind(), ty::Adt(def, _) if def.did() == adt) => {
                    path = Some(vec![f.as_usize()]);
                }
                None => {}
            },
            // Further than a field's own value (through a pointer it holds): the
            // field is what is read.
            _ if path.is_some() => break,
            _ => {}
        }
        ty = ty.projection_ty(tcx, elem);
    }
    path
}
