//! Drops: the compiler says where every value is dropped (at the end of its scope, on
//! assignment over it, by `drop(x)`), after elaboration has removed the drops of moved
//! values. A dropped owner releases its memory; a struct of the crate runs its `Drop`
//! (through the summary of its `drop`) and then drops the fields it was built with.

use rustc_middle::mir;
use rustc_middle::ty::{self, Ty};

use tensor_lint_analyzer::ir::{
    EscapeKind, LeakKind, Op, ReleaseKind, ReleasedBy, RootOrigin, TyClass, ValueId, ValueKind,
};
use tensor_lint_analyzer::source::Span;

use super::places::Loc;
use super::types;
use super::{BodyCx, FnLowerer};

/// How deep a drop follows fields of fields.
const MAX_FIELD_DEPTH: u32 = 4;

impl<'tcx> FnLowerer<'_, 'tcx> {
    /// The `Drop` terminator of `place`.
    pub(crate) fn drop_place(
        &mut self,
        b: &mut BodyCx<'tcx>,
        place: &mir::Place<'tcx>,
        span: Span,
    ) {
        let ty = place.ty(b.mir, self.tcx).ty;
        // A temporary is dropped where it was made (at the end of its statement).
        let local = self.local(b, place.local);
        let span = if place.projection.is_empty() && self.value(local).name.is_none() {
            self.span_or_fn(b.mir.local_decls[place.local].source_info.span)
        } else {
            span
        };
        if let Loc::Value(v) = self.place(b, place, span) {
            self.drop_value(b, v, ty, ReleaseKind::ScopeEnd, span);
        }
    }

    /// The drop an assignment does of the value it replaces (`*p = v`, `v[i] = x`):
    /// of a place in memory, the value stored there is dropped in place. (An
    /// assignment to a variable of this function drops its old value as any drop does.)
    pub(crate) fn drop_stored(
        &mut self,
        b: &mut BodyCx<'tcx>,
        place: &mir::Place<'tcx>,
        span: Span,
    ) {
        match self.place(b, place, span) {
            Loc::Memory { base, region } => {
                self.emit(
                    b,
                    Op::DropStored {
                        value: base,
                        region,
                    },
                    span,
                );
            }
            _ => self.drop_place(b, place, span),
        }
    }

    /// Drops value `v` of type `ty`.
    pub(crate) fn drop_value(
        &mut self,
        b: &mut BodyCx<'tcx>,
        v: ValueId,
        ty: Ty<'tcx>,
        how: ReleaseKind,
        span: Span,
    ) {
        self.drop_value_at(b, v, ty, how, span, 0);
    }

    fn drop_value_at(
        &mut self,
        b: &mut BodyCx<'tcx>,
        v: ValueId,
        ty: Ty<'tcx>,
        how: ReleaseKind,
        span: Span,
        depth: u32,
    ) {
        if depth > MAX_FIELD_DEPTH {
            return;
        }
        if types::owns_memory(self.tcx, ty) {
            // A tch tensor is one handle of a reference-counted storage, which other
            // handles (a `shallow_clone`, the tensor `set_requires_grad` returns) may
            // keep: dropping one frees nothing the code can see.
            if types::adt_is(self.tcx, ty, "tch", "Tensor") {
                return;
            }
            // A collection of handles owed a release each does not release them.
            if self.value(v).kind.is_memory() && !self.holds_handles(v) {
                self.emit(b, Op::Release { value: v, how }, span);
            }
            return;
        }
        // A second owner built here (see `OwnerCopy`) releases its pointer again.
        if let Some(&copy) = self.second_owners.get(&self.canonical(v)) {
            self.emit(
                b,
                Op::Release {
                    value: copy,
                    how: how.clone(),
                },
                span,
            );
        }
        let ty::Adt(adt, _) = ty.kind() else {
            if let ty::Tuple(parts) = ty.kind() {
                for (k, part) in parts.iter().enumerate() {
                    if let Some(f) = self.field_of(v, 0, k as u32) {
                        self.drop_value_at(b, f, part, how.clone(), span, depth + 1);
                    }
                }
            }
            return;
        };
        // The type's own `Drop`, when the crate wrote it: its summary says what it
        // releases of the value's fields.
        if let Some(destructor) = self.tcx.adt_destructor(adt.did()) {
            if let Some(local) = destructor.did.as_local() {
                if let Some(&id) = self.cx.fn_ids.get(&local) {
                    self.destructor_call(b, id, v, how.clone(), span);
                }
            }
        }
        // Then the fields, in declaration order.
        let variant = 0u32;
        let field_tys: Vec<Ty<'tcx>> = match ty.kind() {
            ty::Adt(adt, args) if adt.is_struct() => adt
                .non_enum_variant()
                .fields
                .iter()
                .map(|f| f.ty(self.tcx, args).skip_normalization())
                .collect(),
            _ => Vec::new(),
        };
        for (k, field_ty) in field_tys.into_iter().enumerate() {
            if let Some(f) = self.field_of(v, variant, k as u32) {
                self.drop_value_at(b, f, field_ty, how.clone(), span, depth + 1);
            }
        }
    }
}

impl<'tcx> FnLowerer<'_, 'tcx> {
    /// Whether dropping a value of type `ty` releases memory it holds: its type has a
    /// `Drop` of this crate whose summary frees what the value holds.
    pub(crate) fn drop_releases(&self, ty: Ty<'tcx>) -> bool {
        let ty::Adt(adt, _) = ty.kind() else {
            return false;
        };
        let Some(destructor) = self.tcx.adt_destructor(adt.did()) else {
            return false;
        };
        let Some(id) = destructor
            .did
            .as_local()
            .and_then(|local| self.cx.fn_ids.get(&local))
        else {
            return false;
        };
        self.computed_summary(*id)
            .is_some_and(|s| s.frees.contains(&0))
    }
}

impl<'tcx> FnLowerer<'_, 'tcx> {
    /// `mem::forget(x)` of a struct of the crate: each field that owns something of its
    /// own (an owner of memory, an `Arc`, a value whose type has a `Drop`) is given up
    /// with it, unless the function reached that field (it may have been taken out with
    /// `ptr::read`). A field that borrows (its type has a lifetime) owns nothing.
    pub(crate) fn forget_fields(
        &mut self,
        b: &BodyCx<'tcx>,
        v: ValueId,
        ty: Ty<'tcx>,
        api: &str,
        span: Span,
    ) {
        let tcx = self.tcx;
        let ty::Adt(adt, args) = ty.kind() else {
            return;
        };
        if !adt.is_struct() || !adt.did().is_local() {
            return;
        }
        let owner = self.canonical(v);
        let owner_name = self.display_name(owner);
        for (k, field) in adt.non_enum_variant().fields.iter().enumerate() {
            let field_ty = field.ty(tcx, args).skip_normalization();
            if self.mentioned_fields.contains(&(owner, k as u32))
                || borrows(field_ty)
                || !self.drop_owns(field_ty)
            {
                continue;
            }
            let name = format!("{owner_name}.{}", field.name);
            let value = self.new_value(
                Some(name.clone()),
                ValueKind::Unknown,
                TyClass::LocalStruct,
                span,
            );
            let root = self.new_root(&name, RootOrigin::Alloc, field_ty, ReleasedBy::Drop, span);
            self.emit(
                b,
                Op::Alloc {
                    dst: value,
                    root,
                    size: None,
                },
                span,
            );
            self.value_mut(value).kind = ValueKind::Root(root);
            self.emit(
                b,
                Op::Escape {
                    value,
                    how: EscapeKind::Leaked {
                        api: api.to_string(),
                        kind: LeakKind::Forget,
                    },
                },
                span,
            );
        }
    }

    /// Whether dropping a value of type `ty` gives something back: an owner of memory,
    /// a shared owner, a type with a `Drop` of its own, or an `Option` or `Pin` of one.
    fn drop_owns(&self, ty: Ty<'tcx>) -> bool {
        let tcx = self.tcx;
        if types::owns_memory(tcx, ty)
            || types::adt_is(tcx, ty, "alloc", "Arc")
            || types::adt_is(tcx, ty, "alloc", "Rc")
        {
            return true;
        }
        let ty::Adt(adt, args) = ty.kind() else {
            return false;
        };
        if tcx
            .adt_destructor(adt.did())
            .is_some_and(|d| d.did.is_local())
        {
            return true;
        }
        let wraps = tcx.is_diagnostic_item(rustc_span::sym::Option, adt.did())
            || types::adt_is(tcx, ty, "core", "Pin");
        wraps
            && args
                .types()
                .next()
                .is_some_and(|inner| self.drop_owns(inner))
    }
}

/// Whether a value of type `ty` holds a borrow (a reference, or a type with a lifetime).
fn borrows(ty: Ty<'_>) -> bool {
    ty.walk()
        .any(|arg| arg.as_region().is_some_and(|r| !r.is_static()))
}
