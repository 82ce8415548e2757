//! Raw-pointer conversions: slices and views rebuilt from pointers, casts that keep or
//! drop provenance, and null pointers.

use super::Lowerer;
use crate::ir::{Op, TyClass, ValueId, ValueKind, ViewOp};
use crate::models;
use crate::oracle::Expr;
use crate::source::Span;

impl Lowerer<'_, '_, '_> {
    /// Lowers `e as T`: provenance survives `p as usize` and `addr as *mut T`; a cast to a
    /// number reads the element.
    pub(crate) fn cast(&mut self, c: &syn::ExprCast, span: Span) -> ValueId {
        // Provenance survives `p as usize` and `addr as *mut T`.
        let v = self.expr(&c.expr);
        if self.val(v).kind.is_memory() && is_numeric_value_type(&c.ty) {
            // `*p as f64`: the element is read and becomes a plain number; no
            // address survives a cast to a float or a narrow integer.
            let region = self.val(v).view.clone();
            self.emit(Op::Read { value: v, region }, span);
            self.scalar(None, span)
        } else if self.val(v).kind.is_memory() {
            let out = self.copy_value(v, None, span);
            if matches!(*c.ty, syn::Type::Ptr(_))
                || matches!(self.val(v).kind, ValueKind::RawPtr(_))
            {
                let root = self.val(v).kind.root();
                self.val_mut(out).kind = ValueKind::RawPtr(root);
                self.val_mut(out).ty = TyClass::RawPtr;
            }
            // `p as *mut Private`: the pointer is to a crate struct from here on, whose
            // pointer fields lead to other blocks.
            if let syn::Type::Ptr(ptr) = &*c.ty {
                if let Some(name) = crate::index::type_name(&ptr.elem)
                    .filter(|n| self.ctx.index.struct_named(n).is_some())
                {
                    self.declared.insert(out, name);
                }
            }
            self.emit(
                Op::View {
                    dst: out,
                    src: v,
                    how: ViewOp::Whole,
                },
                span,
            );
            out
        } else {
            let int = self.val(v).int.clone();
            self.scalar(int, span)
        }
    }

    pub(crate) fn view_from_raw(
        &mut self,
        ptr: Option<ValueId>,
        len: Option<ValueId>,
        shape: Option<ValueId>,
        span: Span,
    ) -> ValueId {
        let Some(p) = ptr.filter(|&p| self.val(p).kind.is_memory()) else {
            return self.unknown(span);
        };
        let shape_exprs: Option<Vec<Expr>> = match (len, shape) {
            (Some(l), _) => self.val(l).int.clone().map(|l| vec![l]),
            (None, Some(s)) => self.int_list(s),
            _ => None,
        };
        let strides = shape
            .and_then(|s| self.strides.get(&s).cloned())
            .and_then(|parts| {
                parts
                    .iter()
                    .map(|&v| self.val(v).int.clone())
                    .collect::<Option<Vec<Expr>>>()
            });
        let how = match shape_exprs {
            Some(shape) => ViewOp::FromRaw { shape, strides },
            None => ViewOp::Opaque("from_raw".into()),
        };
        let ty = if shape.is_some() {
            TyClass::ArrayView
        } else {
            TyClass::Slice
        };
        self.rebuilt_view(p, how, ty, span)
    }

    /// A matrix view built from memory with explicit sizes and strides (faer's
    /// `MatMut::from_raw_parts_mut(ptr, rows, cols, row_stride, col_stride)`, nalgebra's
    /// `from_slice_with_strides_mut(data, rows, cols, row_stride, col_stride)`).
    pub(crate) fn view_from_strided(&mut self, args: &[Option<ValueId>], span: Span) -> ValueId {
        let Some(p) = args
            .first()
            .copied()
            .flatten()
            .filter(|&p| self.val(p).kind.is_memory())
        else {
            return self.unknown(span);
        };
        let int = |l: &Self, k: usize| {
            args.get(k)
                .copied()
                .flatten()
                .and_then(|v| l.val(v).int.clone())
        };
        let how = match (int(self, 1), int(self, 2), int(self, 3), int(self, 4)) {
            (Some(rows), Some(cols), Some(rs), Some(cs)) => ViewOp::FromRaw {
                shape: vec![rows, cols],
                strides: Some(vec![rs, cs]),
            },
            _ => ViewOp::Opaque("from_raw".into()),
        };
        self.rebuilt_view(p, how, TyClass::ArrayView, span)
    }

    /// A view of the memory `p` reaches, rebuilt by `how` (from a pointer or a slice).
    fn rebuilt_view(&mut self, p: ValueId, how: ViewOp, ty: TyClass, span: Span) -> ValueId {
        let v = self.derive_view(p, how, span);
        if let Some(r) = self.val(p).kind.root() {
            self.val_mut(v).kind = ValueKind::View(r);
        }
        self.val_mut(v).ty = ty;
        v
    }
}

/// Floats, `bool` and integers narrower than an address: casting to them keeps no
/// provenance.
pub(crate) fn is_numeric_value_type(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    p.path
        .get_ident()
        .is_some_and(|i| models::cast_drops_provenance(&i.to_string()))
}

/// `ptr::null_mut()`, `std::ptr::null()`, `null_mut::<T>()`.
pub(crate) fn is_null_pointer_call(e: &syn::Expr) -> bool {
    let syn::Expr::Call(c) = e else {
        return false;
    };
    let syn::Expr::Path(p) = &*c.func else {
        return false;
    };
    c.args.is_empty()
        && p.path
            .segments
            .last()
            .is_some_and(|s| models::is_null_pointer_fn(&s.ident.to_string()))
}
