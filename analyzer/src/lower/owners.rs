//! Raw owners: crate types whose `Drop` releases a raw pointer they hold
//! ([`crate::index::ItemIndex::raw_owner`]). The compiler drops each such value once,
//! but it cannot see that two of them hold the same pointer: a destructuring pattern or
//! a field read copies the pointer out of an owner that stays whole. Each new owner
//! built from such a copy is recorded as an [`OwnerCopy`](crate::ir::OwnerCopy). (A
//! derived `Clone` of a raw owner is a fault of the type itself, reported at the derive.)

use crate::ir::{OwnerCopy, ReleasedBy, RootOrigin, TyClass, ValueId, ValueKind};
use crate::source::Span;

use super::Lowerer;

impl Lowerer<'_, '_, '_> {
    /// The raw-owner type `v` is declared with (`Self` resolved).
    pub(crate) fn raw_owner_type(&self, v: ValueId) -> Option<String> {
        let ty = self.declared.get(&v)?;
        let ty = match ty.as_str() {
            "Self" => self.item.self_ty.clone()?,
            _ => ty.clone(),
        };
        self.ctx.index.raw_owner(&ty).then_some(ty)
    }

    /// A parameter of a raw-owner type: by value it is this function's to drop (a root
    /// released at the end of its scope unless moved); by reference its owner releases
    /// it after the call.
    pub(crate) fn raw_owner_param(&mut self, v: ValueId, by_ref: bool, index: usize, span: Span) {
        let Some(ty) = self.raw_owner_type(v) else {
            return;
        };
        if by_ref {
            self.borrowed_owners.insert(v);
            return;
        }
        if self.val(v).kind.is_memory() {
            return;
        }
        let name = self.val(v).name.clone().unwrap_or_else(|| ty.clone());
        let root = self.new_root(
            name,
            RootOrigin::Param(index),
            1,
            None,
            ReleasedBy::Drop,
            span,
        );
        self.val_mut(v).kind = ValueKind::Root(root);
    }

    /// A raw owner passed by value: its root stands for the value's own drop, not for
    /// memory its fields lead to.
    pub(crate) fn is_owned_param(&self, v: ValueId) -> bool {
        self.root_of(v).is_some_and(|r| {
            matches!(r.origin, RootOrigin::Param(_)) && r.released_by == ReleasedBy::Drop
        })
    }

    /// A pointer `part` copied out of `owner` (a field read, a destructuring pattern).
    pub(crate) fn note_owner_part(&mut self, owner: ValueId, part: ValueId) {
        if part != owner && self.raw_owner_type(owner).is_some() {
            self.owner_parts.insert(part, owner);
        }
    }

    /// A raw owner of type `ty` built (`Owned(p, ..)`, `Owned { ptr: p, .. }`) from a
    /// pointer copied out of another raw owner.
    pub(crate) fn owner_rebuilt(
        &mut self,
        ty: &str,
        args: &[ValueId],
        span: Span,
    ) -> Option<ValueId> {
        let ty = match ty {
            "Self" => self.item.self_ty.clone()?,
            _ => ty.to_string(),
        };
        if !self.ctx.index.raw_owner(&ty) {
            return None;
        }
        let (part, source) = args
            .iter()
            .find_map(|a| self.owner_parts.get(a).map(|s| (*a, *s)))?;
        let part_span = self.val(part).span;
        Some(self.second_owner(ty, source, part, part_span, span))
    }

    fn second_owner(
        &mut self,
        ty: String,
        source: ValueId,
        part: ValueId,
        part_span: Span,
        span: Span,
    ) -> ValueId {
        let copy = self.owned_value_of(&ty, span);
        self.owner_copies.push(OwnerCopy {
            source,
            source_borrowed: self.borrowed_owners.contains(&source),
            copy,
            ty,
            part,
            part_span,
            span,
        });
        copy
    }

    /// The crate struct every crate method named `method` returns by value, when it
    /// holds a buffer (a `Vec`, `Box` or `String` field): a trait method called on a
    /// generic receiver (`shape.into_shape()`), whose impl is not known, still makes
    /// such a value.
    pub(crate) fn owned_result_of_methods(&self, method: &str) -> Option<String> {
        let candidates = self.ctx.index.methods_named(None, method);
        let mut ty: Option<&str> = None;
        for &i in &candidates {
            let f = self.ctx.index.fn_item(i)?;
            let ret = f.returns_owned.as_deref().filter(|_| f.has_receiver)?;
            if ty.is_some_and(|t| t != ret) {
                return None;
            }
            ty = Some(ret);
        }
        let ty = ty?;
        let s = self.ctx.index.struct_named(ty)?;
        s.fields
            .iter()
            .any(|f| f.ty == TyClass::Vec && !f.borrows_storage)
            .then(|| ty.to_string())
    }

    /// A new value of crate struct `ty` that owns what it holds (raw memory, buffers),
    /// dropped with it at the end of its scope.
    pub(crate) fn owned_value_of(&mut self, ty: &str, span: Span) -> ValueId {
        let root = self.new_root(
            ty.to_string(),
            RootOrigin::Alloc,
            1,
            None,
            ReleasedBy::Drop,
            span,
        );
        let v = self.new_value(None, ValueKind::Root(root), TyClass::LocalStruct, span);
        self.declared.insert(v, ty.to_string());
        v
    }
}
