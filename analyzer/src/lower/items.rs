//! Pointers into the items of an adapter's closure: `xs.iter().map(|s| s.as_ptr())`
//! gives a list of pointers into the items of `xs`, and `.collect()` keeps them. When
//! the closure takes its items by value (`xs.into_iter().map(..)`, `opt.map(|v| ..)`),
//! each item is dropped when the closure returns, and every pointer collected from it
//! dangles.
//!
//! A list of pointers is a raw pointer into the memory its pointers reach: reading the
//! list (handing it to a foreign function) reads what it points to.

use syn::visit::Visit;

use crate::ir::{Op, ReleaseKind, TyClass, ValueId, ValueKind, ViewOp};
use crate::models::{self, Sem};
use crate::source::Span;

use super::Lowerer;

/// How an adapter's closure receives the items it maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ItemPassing {
    /// By reference: the items stay where they are.
    Borrowed,
    /// Each item is moved into the closure (`into_iter()`): an element of the source.
    MovedElements,
    /// The whole source is moved into the closure (`Option::map`).
    MovedWhole,
}

impl Lowerer<'_, '_, '_> {
    /// Before the arguments of `recv.map(closure)` are lowered: when the closure makes
    /// pointers, its parameter is bound to the memory of `recv`, so that the pointers
    /// it returns are known to point there.
    pub(crate) fn bind_mapped_item(&mut self, m: &syn::ExprMethodCall, recv: ValueId, span: Span) {
        let [syn::Expr::Closure(c)] = m.args.iter().collect::<Vec<_>>()[..] else {
            return;
        };
        let recv_val = self.val(recv);
        let tensor_like = matches!(
            recv_val.ty,
            TyClass::Array | TyClass::ArrayView | TyClass::Tensor
        );
        if !recv_val.kind.is_memory() || tensor_like || !self.makes_pointers(&c.body) {
            return;
        }
        let item = self.derive_view(recv, ViewOp::Opaque(m.method.to_string()), span);
        self.val_mut(item).ty = TyClass::Unknown;
        self.pending_item = Some(item);
    }

    /// Whether `body` calls a method that returns a raw pointer (`as_ptr`).
    fn makes_pointers(&self, body: &syn::Expr) -> bool {
        struct Finder<'m> {
            models: &'m crate::models::Models,
            found: bool,
        }
        impl<'ast> Visit<'ast> for Finder<'_> {
            fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
                let name = m.method.to_string();
                if self.models.method(TyClass::Unknown, &name) == Some(Sem::RawPtr) {
                    self.found = true;
                }
                syn::visit::visit_expr_method_call(self, m);
            }
        }
        let mut f = Finder {
            models: self.ctx.models,
            found: false,
        };
        f.visit_expr(body);
        f.found
    }

    /// How `recv.map(..)` (the receiver written as `recv_expr`) passes its items.
    pub(crate) fn item_passing(&self, recv_expr: &syn::Expr, recv: ValueId) -> ItemPassing {
        let owner = matches!(self.val(recv).kind, ValueKind::Root(_))
            || self.owned_by_type.contains_key(&recv);
        if !owner {
            return ItemPassing::Borrowed;
        }
        match recv_expr {
            syn::Expr::MethodCall(inner)
                if models::consumes_receiver(&inner.method.to_string()) =>
            {
                ItemPassing::MovedElements
            }
            // A buffer owner has no `map` of its own: the owner is wrapped in an
            // `Option` (or a `Result`) whose `map` takes it by value.
            syn::Expr::Path(_) | syn::Expr::Field(_) if self.val(recv).ty == TyClass::Vec => {
                ItemPassing::MovedWhole
            }
            _ => ItemPassing::Borrowed,
        }
    }

    /// After `recv.map(closure)`: when the closure returns a pointer into its item (or
    /// a list of such pointers), the result is a list of pointers into `recv`'s memory.
    /// Items moved into the closure are dropped when it returns: the memory the
    /// pointers reach is released there.
    pub(crate) fn mapped_pointers(
        &mut self,
        recv: ValueId,
        closure: Option<crate::ir::BodyId>,
        passing: ItemPassing,
        span: Span,
    ) -> Option<ValueId> {
        let root = self.val(recv).kind.root()?;
        let returned = self.body_returns(closure?);
        let mut into_elements = passing != ItemPassing::MovedWhole;
        let mut any = false;
        for v in returned {
            match (self.val(v).kind.clone(), self.pointer_lists.get(&v)) {
                (ValueKind::RawPtr(Some(r)), Some(_)) if r == root => into_elements = true,
                (ValueKind::RawPtr(Some(r)), None) if r == root => {}
                _ => return None,
            }
            any = true;
        }
        if !any {
            return None;
        }
        let list = self.derive_view(recv, ViewOp::Whole, span);
        self.val_mut(list).kind = ValueKind::RawPtr(Some(root));
        self.val_mut(list).ty = TyClass::Vec;
        self.pointer_lists.insert(list, into_elements);
        // A pointer into an element reaches memory the element owns (the bytes of a
        // `CString`); it dangles only when the element is such an owner.
        let owner_dropped = match passing {
            ItemPassing::Borrowed => false,
            ItemPassing::MovedWhole if !into_elements => true,
            ItemPassing::MovedWhole | ItemPassing::MovedElements => self
                .owned_by_type
                .get(&recv)
                .cloned()
                .flatten()
                .or_else(|| self.root_of(recv).and_then(|r| r.elem_type.clone()))
                .is_some_and(|t| self.owns_memory(&t)),
        };
        if owner_dropped && self.is_live() {
            self.mark_moved(recv);
            self.emit(
                Op::Release {
                    value: recv,
                    how: ReleaseKind::ClosureEnd,
                },
                span,
            );
        }
        Some(list)
    }

    /// The values a body (a closure's, or the function's own) returns.
    pub(crate) fn body_returns(&self, b: crate::ir::BodyId) -> Vec<ValueId> {
        self.bodies
            .get(b.0 as usize)
            .map(|body| {
                body.blocks
                    .iter()
                    .filter_map(|blk| blk.term.returned())
                    .collect()
            })
            .unwrap_or_default()
    }
}
