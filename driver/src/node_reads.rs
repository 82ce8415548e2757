//! Values read out of a node that still owns them: `ptr::read` of a field of a struct
//! the crate's own type (`ptr::read(&(*node).value)`, `ptr::read(t)` with `t` bound by
//! `ref` inside the node), where the crate destroys values of that type with their
//! fields dropped (`Box::from_raw`, `drop_in_place`, crossbeam-epoch's `into_owned` and
//! `defer_destroy`, often deferred until no thread can still see the node).
//!
//! The read makes a second owner of the field's value; nothing gives the node's copy
//! up (the function reaches the node through a pointer or a shared reference, and
//! neither forgets it nor writes over it), so destroying the node drops the value the
//! reader now owns: a double drop. A field wrapped in `ManuallyDrop` or `MaybeUninit`
//! has no drop glue, and is not reported.

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_middle::mir::{self, Local, Operand, Place, PlaceElem, Rvalue, StatementKind};
use rustc_middle::ty::{self, Ty, TyCtxt};

use tensor_lint_analyzer::ir::ReadOutOfNode;
use tensor_lint_analyzer::models::Role;

use crate::files::Files;
use crate::models::Models;

/// Where the crate destroys values of one of its types, dropping their fields.
#[derive(Clone, Copy)]
struct Destroyed {
    span: rustc_span::Span,
    /// The destruction runs later: `defer_destroy`, or in a closure given to `defer`.
    deferred: bool,
}

/// The reads out of nodes of the whole crate.
pub(crate) fn reads_out_of_nodes(
    tcx: TyCtxt<'_>,
    models: &Models,
    files: &Files,
) -> Vec<ReadOutOfNode> {
    let bodies: Vec<LocalDefId> = crate::structs::crate_bodies(tcx);
    let destroyed = destroyed_types(tcx, models, &bodies);
    if destroyed.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for &def in &bodies {
        reads_in(tcx, models, files, def, &destroyed, &mut out);
    }
    out
}

/// The crate's types whose values some function destroys with their fields dropped,
/// with the first place it does.
fn destroyed_types(
    tcx: TyCtxt<'_>,
    models: &Models,
    bodies: &[LocalDefId],
) -> FxHashMap<DefId, Destroyed> {
    // The closures handed to a deferral (`guard.defer(move || node.into_owned())`).
    let mut deferred_closures: FxHashSet<DefId> = FxHashSet::default();
    let mut found: Vec<(DefId, LocalDefId, rustc_span::Span, bool)> = Vec::new();
    for &def in bodies {
        let mir = tcx.optimized_mir(def.to_def_id());
        for call in crate::structs::direct_calls(mir) {
            let (callee, generics) = (call.callee, call.generics);
            let role = models.role(tcx, callee);
            if role == Some(Role::Defer) {
                for a in call.args {
                    if let ty::Closure(closure, _) = a.node.ty(mir, tcx).kind() {
                        deferred_closures.insert(*closure);
                    }
                }
            }
            let destroys = matches!(
                role,
                Some(Role::BoxFromRaw | Role::DropInPlace | Role::IntoOwned | Role::DeferDestroy)
            );
            if !destroys {
                continue;
            }
            let Some(ty) = generics.types().next() else {
                continue;
            };
            let ty::Adt(adt, _) = ty.kind() else {
                continue;
            };
            if !adt.did().is_local() || adt.is_manually_drop() {
                continue;
            }
            found.push((adt.did(), def, call.span, role == Some(Role::DeferDestroy)));
        }
    }
    let mut out: FxHashMap<DefId, Destroyed> = FxHashMap::default();
    for (adt, def, span, deferred) in found {
        let deferred = deferred || deferred_closures.contains(&def.to_def_id());
        out.entry(adt).or_insert(Destroyed { span, deferred });
    }
    out
}

/// The reads out of nodes in body `def`.
fn reads_in<'tcx>(
    tcx: TyCtxt<'tcx>,
    models: &Models,
    files: &Files,
    def: LocalDefId,
    destroyed: &FxHashMap<DefId, Destroyed>,
    out: &mut Vec<ReadOutOfNode>,
) {
    let mir = tcx.optimized_mir(def.to_def_id());
    let env = ty::TypingEnv::post_analysis(tcx, def.to_def_id());
    // A body that gives a value up, writes one in place or frees memory without
    // dropping it settles who owns what itself.
    let settles = crate::structs::direct_calls(mir).any(|call| {
        matches!(
            models.role(tcx, call.callee),
            Some(Role::Forget | Role::BitwiseWrite | Role::Copy { .. } | Role::Swap)
        ) || crate::models::allocator_release(tcx, call.callee).is_some()
    });
    if settles {
        return;
    }
    // The one assignment of each local (MIR temporaries are assigned once).
    let mut assigned: FxHashMap<Local, Vec<&Rvalue<'tcx>>> = FxHashMap::default();
    let mut written_through: FxHashSet<Local> = FxHashSet::default();
    for block in mir.basic_blocks.iter() {
        for stmt in &block.statements {
            if let StatementKind::Assign(assign) = &stmt.kind {
                let (dst, rvalue) = &**assign;
                if dst.projection.is_empty() {
                    assigned.entry(dst.local).or_default().push(rvalue);
                } else if dst.is_indirect() {
                    written_through.insert(dst.local);
                }
            }
        }
    }
    for call in crate::structs::direct_calls(mir).filter(|c| !c.cleanup) {
        let (callee, generics) = (call.callee, call.generics);
        if !models.is(tcx, callee, Role::BitwiseRead) {
            continue;
        }
        let Some(read_ty) = generics.types().next() else {
            continue;
        };
        if !read_ty.needs_drop(tcx, env) {
            continue;
        }
        let Some(Operand::Copy(p) | Operand::Move(p)) = call.args.first().map(|a| &a.node) else {
            continue;
        };
        let Some(place) = borrowed_place(&assigned, *p, 0) else {
            continue;
        };
        let Some((node, field)) = node_field(tcx, mir, place) else {
            continue;
        };
        let ty::Adt(adt, _) = node.kind() else {
            continue;
        };
        let Some(destroy) = destroyed.get(&adt.did()) else {
            continue;
        };
        // Written through the same pointer in this body (`(*node).value = ..`).
        if written_through.contains(&place.local) {
            continue;
        }
        let (Some(at), Some(destroyed_at)) = (files.span(call.span), files.span(destroy.span))
        else {
            continue;
        };
        out.push(ReadOutOfNode {
            at,
            node: short_type(tcx, node),
            field,
            destroyed: destroyed_at,
            deferred: destroy.deferred,
        });
    }
}

/// The place a pointer local was made from: `&place`, `&raw const place`, through
/// copies and casts.
fn borrowed_place<'tcx>(
    assigned: &FxHashMap<Local, Vec<&Rvalue<'tcx>>>,
    p: Place<'tcx>,
    depth: u32,
) -> Option<Place<'tcx>> {
    if depth > 8 || !p.projection.is_empty() {
        return None;
    }
    let [rvalue] = assigned.get(&p.local)?.as_slice() else {
        return None;
    };
    match rvalue {
        // `&raw const *t`, the cast of a reference to a raw pointer: where `t` was made.
        Rvalue::Ref(_, _, place) | Rvalue::RawPtr(_, place)
            if place.projection.as_slice() == [PlaceElem::Deref] =>
        {
            borrowed_place(assigned, Place::from(place.local), depth + 1).or(Some(*place))
        }
        Rvalue::Ref(_, _, place) | Rvalue::RawPtr(_, place) => Some(*place),
        Rvalue::Use(op, _) | Rvalue::Cast(_, op, _) => match op {
            Operand::Copy(q) | Operand::Move(q) => borrowed_place(assigned, *q, depth + 1),
            _ => None,
        },
        Rvalue::CopyForDeref(q) => borrowed_place(assigned, *q, depth + 1),
        _ => None,
    }
}

/// For a place inside a node reached through a pointer or reference (`(*n).f.g`), the
/// node's type and the name of the field read; `None` for a place of the function's
/// own locals or for the whole node.
fn node_field<'tcx>(
    tcx: TyCtxt<'tcx>,
    mir: &mir::Body<'tcx>,
    place: Place<'tcx>,
) -> Option<(Ty<'tcx>, String)> {
    let last_deref = place
        .projection
        .iter()
        .rposition(|e| e == PlaceElem::Deref)?;
    let mut ty = mir::PlaceTy::from_ty(mir.local_decls[place.local].ty);
    for elem in &place.projection[..=last_deref] {
        ty = ty.projection_ty(tcx, *elem);
    }
    let node = ty.ty;
    let ty::Adt(adt, _) = node.kind() else {
        return None;
    };
    if !adt.is_struct() {
        return None;
    }
    let PlaceElem::Field(field, _) = place.projection.get(last_deref + 1)? else {
        return None;
    };
    let name = adt.non_enum_variant().fields[*field].name.to_string();
    Some((node, name))
}

/// A type as the user writes it, without paths: `Node<T>`.
fn short_type(tcx: TyCtxt<'_>, ty: Ty<'_>) -> String {
    let ty::Adt(adt, args) = ty.kind() else {
        return ty.to_string();
    };
    let name = tcx.item_name(adt.did()).to_string();
    let params: Vec<String> = args.types().map(|t| t.to_string()).collect();
    if params.is_empty() {
        name
    } else {
        format!("{name}<{}>", params.join(", "))
    }
}
