//! Owners that free only sometimes: a struct whose own `Drop` releases its memory only
//! under a `bool` field (`if self.owned { TF_DeleteBuffer(self.inner) }`, `if
//! !self.weak { unref(self.ptr) }`), the flag a wrapper uses to tell memory it owns from
//! memory it borrows.
//!
//! Read from the `Drop`'s MIR: every call that releases (a foreign function, `dealloc`,
//! a `from_raw`) sits on one side of a branch on the same field of `self`, the side
//! entered only through that branch. A value built with the flag on the other side
//! frees nothing when dropped.

use rustc_data_structures::fx::FxHashMap;
use rustc_hir::def::DefKind;
use rustc_hir::def_id::DefId;
use rustc_middle::mir::{self, BasicBlock, Operand, PlaceElem, Rvalue, StatementKind};
use rustc_middle::ty::TyCtxt;

use crate::models::Models;

/// The field a struct's `Drop` tests before releasing anything, and the value that
/// releases.
#[derive(Clone, Debug)]
pub(crate) struct ReleaseFlag {
    pub field: usize,
    pub name: String,
    pub frees_when: bool,
}

/// The release flags of the crate's structs.
pub(crate) fn release_flags(tcx: TyCtxt<'_>, models: &Models) -> FxHashMap<DefId, ReleaseFlag> {
    tcx.hir_crate_items(())
        .definitions()
        .filter(|&def| tcx.def_kind(def) == DefKind::Struct)
        .filter_map(|def| Some((def.to_def_id(), release_flag(tcx, models, def.to_def_id())?)))
        .collect()
}

fn release_flag(tcx: TyCtxt<'_>, models: &Models, adt: DefId) -> Option<ReleaseFlag> {
    let destructor = tcx.adt_destructor(adt)?;
    let local = destructor.did.as_local()?;
    if !tcx.is_mir_available(local.to_def_id()) {
        return None;
    }
    let mir = tcx.optimized_mir(local.to_def_id());
    let releases: Vec<BasicBlock> = crate::structs::direct_calls(mir)
        .filter(|c| !c.cleanup && crate::structs::releases_what_it_is_given(tcx, models, c.callee))
        .map(|c| c.block)
        .collect();
    if releases.is_empty() {
        return None;
    }
    let dominators = mir.basic_blocks.dominators();
    let predecessors = mir.basic_blocks.predecessors();
    let fields = &tcx.adt_def(adt).non_enum_variant().fields;
    let mut found: Option<(usize, bool)> = None;
    for &release in &releases {
        // The branch on a flag of `self` whose one side alone leads to this release.
        let guard = mir.basic_blocks.iter_enumerated().find_map(|(bb, data)| {
            let mir::TerminatorKind::SwitchInt { discr, targets } = &data.terminator().kind else {
                return None;
            };
            let (field, negated) = flag_of(mir, data, discr)?;
            let [(0, when_false)] = targets.iter().collect::<Vec<_>>()[..] else {
                return None;
            };
            let when_true = targets.otherwise();
            if when_true == when_false {
                return None;
            }
            let only_through = |t: BasicBlock| predecessors[t].as_slice() == [bb];
            let side = |t: BasicBlock| only_through(t) && dominators.dominates(t, release);
            let frees_when = match (side(when_true), side(when_false)) {
                (true, false) => true,
                (false, true) => false,
                _ => return None,
            };
            Some((field, frees_when != negated))
        })?;
        match found {
            None => found = Some(guard),
            Some(seen) if seen == guard => {}
            Some(_) => return None,
        }
    }
    let (field, frees_when) = found?;
    Some(ReleaseFlag {
        field,
        name: fields.iter().nth(field)?.name.to_string(),
        frees_when,
    })
}

/// The `bool` field of `self` a branch tests (`(*self).owned`, or its negation), as
/// the local the branch reads was assigned in its block.
fn flag_of<'tcx>(
    mir: &mir::Body<'tcx>,
    data: &mir::BasicBlockData<'tcx>,
    discr: &Operand<'tcx>,
) -> Option<(usize, bool)> {
    let mut local = discr.place()?.as_local()?;
    let mut negated = false;
    for stmt in data.statements.iter().rev() {
        let StatementKind::Assign(assign) = &stmt.kind else {
            continue;
        };
        let (dst, rvalue) = &**assign;
        if dst.as_local() != Some(local) {
            continue;
        }
        match rvalue {
            Rvalue::UnaryOp(mir::UnOp::Not, op) => {
                negated = !negated;
                local = op.place()?.as_local()?;
            }
            Rvalue::Use(Operand::Copy(place) | Operand::Move(place), _) => {
                if let Some(l) = place.as_local() {
                    local = l;
                    continue;
                }
                return self_field(mir, place).map(|f| (f, negated));
            }
            _ => return None,
        }
    }
    None
}

/// `(*self).f` of a `bool` field: `f`.
fn self_field<'tcx>(mir: &mir::Body<'tcx>, place: &mir::Place<'tcx>) -> Option<usize> {
    let [_, PlaceElem::Field(_, ty)] = place.projection.as_slice() else {
        return None;
    };
    if mir.arg_count == 0 || !ty.is_bool() {
        return None;
    }
    crate::released_fields::self_field(place, true)
}
