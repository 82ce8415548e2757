//! Raw owners: crate types whose `Drop` releases a raw pointer they hold
//! ([`crate::index::ItemIndex::raw_owner`]). The compiler drops each such value once,
//! but it cannot see that two of them hold the same pointer: a destructuring pattern or
//! a field read copies the pointer out of an owner that stays whole. Each new owner
//! built from such a copy is recorded as an [`OwnerCopy`](crate::ir::OwnerCopy). (A
//! derived `Clone` of a raw owner is a fault of the type itself, reported at the derive.)

use crate::ir::{Op, OwnerCopy, ReleasedBy, RootOrigin, TyClass, ValueId, ValueKind};
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

    /// After `for h in handles { release(h) }` over a collection of owed handles: the
    /// loop released each of them, so the collection's duty is done.
    pub(crate) fn released_per_element(&mut self, iter: ValueId, span: Span) {
        let Some(root) = self
            .root_of(iter)
            .filter(|r| r.origin == RootOrigin::Alloc && r.released_by.is_owed())
            .map(|r| r.id)
        else {
            return;
        };
        if let Some(how) = self.released_elements.remove(&root) {
            if self.is_live() {
                self.emit(Op::Release { value: iter, how }, span);
            }
        }
    }

    /// `xs.iter().map(f)` where `f` (a closure lowered as body `closure`, or the crate
    /// function written as `path`) returns a handle the caller must release: the
    /// iterator's items are owed.
    pub(crate) fn note_owed_items(
        &mut self,
        out: ValueId,
        closure: Option<crate::ir::BodyId>,
        path: Option<&syn::Path>,
    ) {
        let from_closure = closure.and_then(|b| {
            self.body_returns(b).into_iter().find_map(|v| {
                self.root_of(v)
                    .filter(|r| r.origin == RootOrigin::Alloc && r.released_by.is_owed())
                    .map(|r| r.released_by.clone())
            })
        });
        let from_fn = path.and_then(|p| {
            let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
            let crate::index::Resolved::Local(idx) =
                self.ctx
                    .index
                    .resolve_path(&self.item.module, self.item.self_ty.as_deref(), &segs)
            else {
                return None;
            };
            // The adapter calls it: an edge of the call graph, so a recursive function
            // is lowered again once its own summary is known.
            self.callees.push(crate::ir::FnId(idx as u32));
            match &self.ctx.summaries.get(idx)?.as_ref()?.returns {
                crate::summary::ReturnSummary::Alloc(rb) if rb.is_owed() => Some(rb.clone()),
                _ => None,
            }
        });
        // Handles owed to a releasing function (a C API's `*_free`), not boxes handed out
        // with `Box::into_raw`, which are usually stored in a structure that owns them.
        if let Some(rb @ ReleasedBy::Function(_)) = from_closure.or(from_fn) {
            self.owed_items.insert(out, rb);
        }
    }

    /// `.collect()` of owed items: a new collection of handles, each owed, held from
    /// its first use (a `collect` into `Result` that fails makes none).
    pub(crate) fn collected_handles(&mut self, recv: ValueId, span: Span) -> Option<ValueId> {
        let rb = self.owed_items.get(&recv)?.clone();
        let v = self.alloc_value("collect".into(), 8, None, rb, TyClass::Vec, span);
        if let Some(r) = self.val(v).kind.root().and_then(|r| self.root_mut(r)) {
            r.held_from_use = true;
        }
        Some(v)
    }

    /// Where the next statement of the current block goes.
    pub(crate) fn stmt_mark(&self) -> (usize, crate::ir::BlockId, usize) {
        let len = self.bodies[self.cur_body]
            .blocks
            .get(self.cur_block.0 as usize)
            .map_or(0, |b| b.stmts.len());
        (self.cur_body, self.cur_block, len)
    }

    /// The closure called by a statement emitted in the current block since `mark`.
    pub(crate) fn closure_called_since(
        &self,
        (body, block, len): (usize, crate::ir::BlockId, usize),
    ) -> Option<crate::ir::BodyId> {
        if (body, block) != (self.cur_body, self.cur_block) {
            return None;
        }
        let stmts = &self.bodies[body].blocks.get(block.0 as usize)?.stmts;
        stmts.get(len..)?.iter().find_map(|s| match &s.op {
            Op::Call {
                callee: crate::ir::Callee::Closure(b),
                ..
            } => Some(*b),
            _ => None,
        })
    }
}
