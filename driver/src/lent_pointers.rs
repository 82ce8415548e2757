//! Pointers a foreign getter lends, made owners of: a C API's `*_get_*` function
//! returns a pointer its argument keeps (`pa_stream_get_context(s)` is the stream's
//! context, with no reference taken for the caller), and the crate hands it to one of
//! its constructors that builds an owner of it: a struct whose `Drop` releases the
//! pointer unless a flag says it is borrowed (`Context { ptr, weak: false }`). The
//! owner's `Drop` then releases what it never held, and the lender releases it again.
//!
//! Only types that tell owned from borrowed pointers by such a flag are read: the
//! crate's own constructors say which way each builds them, so the finding is that
//! the owning one was used where the borrowing one was meant. (Getters of some APIs
//! do hand a new reference over, as Python's `PyObject_GetAttr` does; a wrapper with no
//! borrowed form says nothing here.)

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::def::DefKind;
use rustc_hir::def_id::{DefId, LocalDefId};
use rustc_middle::mir::{self, Local, Operand, Rvalue, StatementKind};
use rustc_middle::ty::TyCtxt;

use tensor_lint_analyzer::ir::LentPointerOwned;

use crate::files::Files;
use crate::models::Models;
use crate::release_flags::ReleaseFlag;

/// A constructor of the crate that builds a flagged owner around one of its
/// parameters.
#[derive(Clone)]
struct Builds {
    adt: DefId,
    param: usize,
    /// The field of the struct the parameter is stored in.
    field: usize,
    /// The flag as the constructor sets it, and whether the value then releases.
    flag_value: bool,
    owns: bool,
}

/// The pointers lent by foreign getters that the crate makes owners of.
pub(crate) fn lent_pointers_owned(
    tcx: TyCtxt<'_>,
    models: &Models,
    files: &Files,
    flags: &FxHashMap<DefId, ReleaseFlag>,
) -> Vec<LentPointerOwned> {
    if flags.is_empty() {
        return Vec::new();
    }
    let bodies: Vec<LocalDefId> = crate::structs::crate_bodies(tcx);
    let mut builders: FxHashMap<DefId, Builds> = FxHashMap::default();
    for &def in &bodies {
        if tcx.def_kind(def) == DefKind::Closure {
            continue;
        }
        if let Some(builds) = builds_owner(tcx, def.to_def_id(), flags) {
            builders.insert(def.to_def_id(), builds);
        }
    }
    if !builders.values().any(|b| b.owns) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for &def in &bodies {
        let mir = tcx.optimized_mir(def.to_def_id());
        let lent = lent_locals(tcx, mir);
        if lent.is_empty() {
            continue;
        }
        for call in crate::structs::direct_calls(mir).filter(|c| !c.cleanup) {
            let Some(builds) = builders.get(&call.callee).filter(|b| b.owns) else {
                continue;
            };
            let Some(Operand::Copy(p) | Operand::Move(p)) =
                call.args.get(builds.param).map(|a| &a.node)
            else {
                continue;
            };
            if !p.projection.is_empty() {
                continue;
            }
            let Some(&(getter, getter_span)) = lent.get(&p.local) else {
                continue;
            };
            let Some(&(_, release, drop_release)) =
                crate::released_fields::drop_field_releases(tcx, models, builds.adt)
                    .iter()
                    .find(|(field, _, _)| *field == builds.field)
            else {
                continue;
            };
            let flag = &flags[&builds.adt];
            let borrowing = builders
                .iter()
                .filter(|(_, b)| b.adt == builds.adt && !b.owns)
                .map(|(&f, _)| written_name(tcx, f))
                .min();
            let (Some(at), Some(getter_at), Some(drop_release)) = (
                files.span(call.span),
                files.span(getter_span),
                files.span(drop_release),
            ) else {
                continue;
            };
            out.push(LentPointerOwned {
                at,
                constructor: written_name(tcx, call.callee),
                getter_at,
                getter: tcx.item_name(getter).to_string(),
                owner: tcx.item_name(builds.adt).to_string(),
                release: tcx.item_name(release).to_string(),
                drop_release,
                flag: flag.name.clone(),
                flag_value: builds.flag_value,
                borrowing,
            });
        }
    }
    out
}

/// A function or method as a user writes its call: `Context::from_raw`.
fn written_name(tcx: TyCtxt<'_>, f: DefId) -> String {
    let name = tcx.item_name(f);
    let owner = tcx.impl_of_assoc(f).and_then(|imp| {
        tcx.type_of(imp)
            .skip_binder()
            .ty_adt_def()
            .map(|adt| tcx.item_name(adt.did()))
    });
    match owner {
        Some(ty) => format!("{ty}::{name}"),
        None => name.to_string(),
    }
}

/// Whether a foreign function's name says it lends what it returns: one of its words
/// is `get` (`pa_stream_get_context`, `SDL_GetWindowSurface`), and none says it makes
/// something new.
fn is_getter(name: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut word = String::new();
        for c in part.chars() {
            if c.is_uppercase() && !word.is_empty() && !word.chars().all(char::is_uppercase) {
                words.push(std::mem::take(&mut word).to_lowercase());
            }
            word.push(c);
        }
        words.push(word.to_lowercase());
    }
    words.iter().any(|w| w == "get")
        && !words.iter().any(|w| {
            matches!(
                w.as_str(),
                "new" | "create" | "copy" | "dup" | "alloc" | "ref"
            )
        })
}

/// The locals of `mir` that hold a pointer a foreign getter returned (through copies,
/// casts and `transmute`), with the getter and its call.
fn lent_locals(
    tcx: TyCtxt<'_>,
    mir: &mir::Body<'_>,
) -> FxHashMap<Local, (DefId, rustc_span::Span)> {
    let mut lent: FxHashMap<Local, (DefId, rustc_span::Span)> = FxHashMap::default();
    for block in mir.basic_blocks.iter() {
        let mir::TerminatorKind::Call {
            func,
            destination,
            fn_span,
            ..
        } = &block.terminator().kind
        else {
            continue;
        };
        let Some((callee, _)) = func.const_fn_def() else {
            continue;
        };
        if !tcx.is_foreign_item(callee) || !destination.projection.is_empty() {
            continue;
        }
        // An accessor: one pointer to the object read from, a pointer to another
        // object out (`pa_stream_get_context(const pa_stream *)`). A getter given
        // more (a callback, a key, an index) may make what it returns.
        let sig = tcx.fn_sig(callee).skip_binder().skip_binder();
        let output = sig.output();
        let accessor = match sig.inputs() {
            [input] => {
                input.is_raw_ptr()
                    && output.is_raw_ptr()
                    && input.builtin_deref(true) != output.builtin_deref(true)
            }
            _ => false,
        };
        if accessor && is_getter(tcx.item_name(callee).as_str()) {
            lent.insert(destination.local, (callee, *fn_span));
        }
    }
    if lent.is_empty() {
        return lent;
    }
    // Through copies and casts, and calls of `transmute`.
    loop {
        let before = lent.len();
        for block in mir.basic_blocks.iter() {
            for stmt in &block.statements {
                let StatementKind::Assign(assign) = &stmt.kind else {
                    continue;
                };
                let (dst, rvalue) = &**assign;
                let (Rvalue::Use(Operand::Copy(src) | Operand::Move(src), _)
                | Rvalue::Cast(_, Operand::Copy(src) | Operand::Move(src), _)) = rvalue
                else {
                    continue;
                };
                if dst.projection.is_empty() && src.projection.is_empty() {
                    if let Some(&from) = lent.get(&src.local) {
                        lent.entry(dst.local).or_insert(from);
                    }
                }
            }
            if let mir::TerminatorKind::Call {
                func,
                args,
                destination,
                ..
            } = &block.terminator().kind
            {
                let transmute = func
                    .const_fn_def()
                    .is_some_and(|(d, _)| tcx.is_diagnostic_item(rustc_span::sym::transmute, d));
                if let (true, [arg]) = (transmute, &args[..]) {
                    if let Operand::Copy(src) | Operand::Move(src) = &arg.node {
                        if let Some(&from) = lent.get(&src.local) {
                            lent.entry(destination.local).or_insert(from);
                        }
                    }
                }
            }
        }
        if lent.len() == before {
            break;
        }
    }
    lent
}

/// What constructor `f` builds, when it returns a literal of a flagged struct of the
/// crate with the flag set by a constant and a field taken from one of its parameters.
fn builds_owner(
    tcx: TyCtxt<'_>,
    f: DefId,
    flags: &FxHashMap<DefId, ReleaseFlag>,
) -> Option<Builds> {
    let mir = tcx.optimized_mir(f);
    let mut found = None;
    for block in mir.basic_blocks.iter() {
        for stmt in &block.statements {
            let StatementKind::Assign(assign) = &stmt.kind else {
                continue;
            };
            let (dst, rvalue) = &**assign;
            if dst.local != mir::RETURN_PLACE || !dst.projection.is_empty() {
                continue;
            }
            let Rvalue::Aggregate(kind, operands) = rvalue else {
                continue;
            };
            let mir::AggregateKind::Adt(adt, _, _, _, None) = **kind else {
                continue;
            };
            let Some(flag) = flags.get(&adt) else {
                continue;
            };
            let flag_value = operands
                .iter_enumerated()
                .find(|(k, _)| k.as_usize() == flag.field)
                .and_then(|(_, op)| op.constant())
                .and_then(|c| c.const_.try_to_bool())?;
            let (field, param) = operands
                .iter_enumerated()
                .filter(|(k, _)| k.as_usize() != flag.field)
                .find_map(|(k, op)| Some((k.as_usize(), param_of(mir, op)?)))?;
            found = Some(Builds {
                adt,
                param,
                field,
                flag_value,
                owns: flag_value == flag.frees_when,
            });
        }
    }
    found
}

/// The parameter (0-based) an operand is, through copies, casts and reborrows
/// (`&mut *ptr`).
fn param_of(mir: &mir::Body<'_>, op: &Operand<'_>) -> Option<usize> {
    let (Operand::Copy(p) | Operand::Move(p)) = op else {
        return None;
    };
    let mut local = p.local;
    if !p.projection.is_empty() {
        return None;
    }
    let mut seen: FxHashSet<Local> = FxHashSet::default();
    loop {
        if (1..=mir.arg_count).contains(&local.as_usize()) {
            return Some(local.as_usize() - 1);
        }
        if !seen.insert(local) {
            return None;
        }
        // The one assignment of a temporary.
        let source = mir
            .basic_blocks
            .iter()
            .flat_map(|b| &b.statements)
            .find_map(|stmt| {
                let StatementKind::Assign(assign) = &stmt.kind else {
                    return None;
                };
                let (dst, rvalue) = &**assign;
                (dst.local == local && dst.projection.is_empty()).then_some(rvalue)
            })?;
        local = match source {
            Rvalue::Use(Operand::Copy(s) | Operand::Move(s), _)
            | Rvalue::Cast(_, Operand::Copy(s) | Operand::Move(s), _)
                if s.projection.is_empty() =>
            {
                s.local
            }
            Rvalue::Ref(_, _, s) | Rvalue::RawPtr(_, s)
                if s.projection.as_slice() == [mir::PlaceElem::Deref] =>
            {
                s.local
            }
            _ => return None,
        };
    }
}
