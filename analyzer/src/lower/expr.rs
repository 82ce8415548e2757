//! Lowering of expressions: the dispatch over syntax, paths, operators and literals.

use super::control::LoopHead;
use super::tokens::{first_token, last_token};
use super::{IterInfo, Lowerer, MAX_DEPTH};
use crate::ir::{Op, ReleasedBy, TyClass, ValueId, ValueKind};
use crate::models;
use crate::oracle::Expr;
use crate::source::Span;
use crate::syntax::int;

impl Lowerer<'_, '_, '_> {
    pub(crate) fn expr(&mut self, e: &syn::Expr) -> ValueId {
        if self.depth >= MAX_DEPTH {
            self.truncated = true;
            let span = self.span(proc_macro2::Span::call_site());
            return self.unknown(span);
        }
        self.depth += 1;
        let v = self.expr_inner(e);
        self.depth -= 1;
        v
    }

    /// The span of `e` from its first to its last token, found without walking the
    /// whole expression (which would make lowering quadratic).
    pub(crate) fn expr_span(&self, e: &syn::Expr) -> Span {
        self.span_between(first_token(e, 0), last_token(e))
    }

    /// The span from `first` to `last`; either may be the empty call-site span when a
    /// token was not found, and then the other one is used alone.
    pub(crate) fn span_between(&self, first: proc_macro2::Span, last: proc_macro2::Span) -> Span {
        let (a, b) = (self.span(first), self.span(last));
        let (a, b) = match (a.lo == a.hi, b.lo == b.hi) {
            (true, false) => (b, b),
            (false, true) => (a, a),
            _ => (a, b),
        };
        Span::new(self.file, a.lo as usize, (b.hi as usize).max(a.lo as usize))
    }

    pub(crate) fn expr_inner(&mut self, e: &syn::Expr) -> ValueId {
        let span = self.expr_span(e);
        match e {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => self.scalar(int::int_literal(i).map(Expr::int), span),
                syn::Lit::Float(_) | syn::Lit::Bool(_) | syn::Lit::Char(_) | syn::Lit::Byte(_) => {
                    self.scalar(None, span)
                }
                _ => self.unknown(span),
            },
            syn::Expr::Path(p) => self.path_expr(p, span),
            syn::Expr::Paren(p) => self.expr(&p.expr),
            syn::Expr::Group(g) => self.expr(&g.expr),
            syn::Expr::Reference(r) => match &*r.expr {
                // `&mut *x` reborrows x; it reads nothing. Made from a raw pointer to
                // several elements, it claims all of them for as long as it lives: as
                // far as other threads are concerned, a write of the whole region.
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                    let v = self.expr(&u.expr);
                    if r.mutability.is_some() {
                        self.claim_pointee(v, span);
                    }
                    v
                }
                // `&mut s.count` is the field's place, not its value.
                syn::Expr::Field(f) => self.field_value(f),
                inner => self.expr(inner),
            },
            syn::Expr::Cast(c) => self.cast(c, span),
            syn::Expr::Unary(u) => self.unary(u, span),
            syn::Expr::Binary(b) => self.binary(b, span),
            syn::Expr::Assign(a) => self.assign_expr(a, span),
            syn::Expr::Index(ix) => self.index_read(ix, span),
            syn::Expr::Field(f) => self.field_read(f, span),
            syn::Expr::Block(b) => self.labelled_block(b, span),
            syn::Expr::Unsafe(u) => self.block_expr(&u.block),
            syn::Expr::Const(c) => self.block_expr(&c.block),
            syn::Expr::If(i) => self.if_expr(i, span),
            syn::Expr::Match(m) => self.match_expr(m, span),
            syn::Expr::Loop(l) => {
                let label = l.label.as_ref().map(|l| l.name.ident.to_string());
                self.loop_of(label, LoopHead::Always, &l.body, None, span)
            }
            syn::Expr::While(w) => {
                let label = w.label.as_ref().map(|l| l.name.ident.to_string());
                self.loop_of(label, LoopHead::While(&w.cond), &w.body, None, span)
            }
            syn::Expr::ForLoop(f) => {
                let label = f.label.as_ref().map(|l| l.name.ident.to_string());
                let iter = self.expr(&f.expr);
                if !matches!(*f.expr, syn::Expr::Reference(_)) {
                    // `for x in v` consumes `v`.
                    self.mark_moved(iter);
                }
                let out = self.loop_of(label, LoopHead::For(&f.pat, iter), &f.body, None, span);
                self.released_per_element(iter, span);
                out
            }
            syn::Expr::Break(b) => self.break_expr(b, span),
            syn::Expr::Continue(c) => self.continue_expr(c, span),
            syn::Expr::Return(r) => self.return_expr(r, span),
            syn::Expr::Try(t) => self.try_expr(t),
            syn::Expr::Closure(c) => {
                let item: Vec<ValueId> = self.pending_item.take().into_iter().collect();
                let body = self.closure_body(c, &item);
                self.new_value(None, ValueKind::Closure(body), TyClass::Unknown, span)
            }
            syn::Expr::Call(c) => self.call(c, span),
            syn::Expr::MethodCall(m) => self.method_call(m, span),
            syn::Expr::Macro(m) => self.macro_call(&m.mac),
            syn::Expr::Tuple(t) => {
                let parts: Vec<ValueId> = t.elems.iter().map(|e| self.expr(e)).collect();
                parts.iter().for_each(|&p| self.mark_moved(p));
                self.tuple_value(parts, span)
            }
            syn::Expr::Array(a) => {
                let parts: Vec<ValueId> = a.elems.iter().map(|e| self.expr(e)).collect();
                parts.iter().for_each(|&p| self.mark_moved(p));
                self.tuple_value(parts, span)
            }
            syn::Expr::Repeat(r) => {
                // `[0.0; N]`: a stack buffer, released when it goes out of scope.
                self.expr(&r.expr);
                let len = self.expr(&r.len);
                let len = self.val(len).int.clone();
                let bytes = literal_bytes(&r.expr).unwrap_or(8);
                self.alloc_value(
                    "array".into(),
                    bytes,
                    len.map(|l| vec![l]),
                    ReleasedBy::Drop,
                    TyClass::Slice,
                    span,
                )
            }
            syn::Expr::Struct(s) => self.struct_literal(s, span),
            syn::Expr::Range(r) => {
                let lo = r.start.as_ref().map(|e| self.expr(e));
                let hi = r.end.as_ref().map(|e| self.expr(e));
                // An unknown bound is still one value: a symbol of its own.
                let fresh = |l: &mut Self, base: &str| {
                    let sym = l.fresh_symbol(base);
                    l.run_values
                        .push((crate::ir::BodyId(l.cur_body as u32), sym.clone()));
                    Expr::sym(&sym)
                };
                let bound = |l: &mut Self, v: Option<ValueId>, missing: i64, base: &str| match v {
                    None if missing >= 0 => Expr::int(missing),
                    None => fresh(l, base),
                    Some(v) => match l.val(v).int.clone() {
                        Some(i) => i,
                        None => fresh(l, base),
                    },
                };
                let lo_int = bound(self, lo, 0, "lo");
                let hi_int = bound(self, hi, -1, "hi");
                let hi_int = match &r.limits {
                    syn::RangeLimits::Closed(_) => &hi_int + 1,
                    syn::RangeLimits::HalfOpen(_) => hi_int,
                };
                let v = self.scalar(None, span);
                self.iters.insert(
                    v,
                    IterInfo {
                        range: Some((lo_int, hi_int)),
                        ..IterInfo::default()
                    },
                );
                v
            }
            syn::Expr::Let(l) => {
                let v = self.expr(&l.expr);
                self.bind_pat(&l.pat, v);
                let out = self.scalar(None, span);
                // `if let Some(n) = NonNull::new(p)`: where the pattern does not match,
                // `p` is null.
                if let (Some(present), true) = (
                    super::variant_presence(&l.pat),
                    self.val(v).kind.is_memory(),
                ) {
                    self.null_tests.insert(out, (v, !present));
                }
                out
            }
            syn::Expr::Await(a) => self.expr(&a.base),
            syn::Expr::TryBlock(t) => self.block_expr(&t.block),
            _ => self.unknown(span),
        }
    }

    pub(crate) fn path_expr(&mut self, p: &syn::ExprPath, span: Span) -> ValueId {
        if p.qself.is_none() && p.path.segments.len() == 1 {
            let name = p.path.segments[0].ident.to_string();
            if let Some(v) = self.lookup(&name) {
                return v;
            }
            if let Some(v) = self.static_value(&name, span) {
                return v;
            }
            if let Some(c) = self.ctx.index.const_value(&name) {
                if let Ok(c) = i64::try_from(c) {
                    return self.scalar(Some(Expr::int(c)), span);
                }
            }
            if name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
            {
                // A constant: a size symbol the assumptions may bound.
                return self.scalar(Some(Expr::sym(&name)), span);
            }
        }
        self.unknown(span)
    }

    /// `&mut *p` of a raw pointer: a unique reference to the element or elements it
    /// points at.
    fn claim_pointee(&mut self, p: ValueId, span: Span) {
        if matches!(self.val(p).kind, ValueKind::RawPtr(Some(_))) {
            self.claim(p, span);
        }
    }

    /// A `&mut` made from a raw pointer claims all of `v`'s known region, in a buffer
    /// whose root is known.
    pub(crate) fn claim(&mut self, v: ValueId, span: Span) {
        let value = self.val(v);
        let (Some(_), Some(region)) = (value.kind.root(), value.view.clone()) else {
            return;
        };
        self.emit(
            Op::Claim {
                value: v,
                region: Some(region),
            },
            span,
        );
    }

    pub(crate) fn unary(&mut self, u: &syn::ExprUnary, span: Span) -> ValueId {
        let v = self.expr(&u.expr);
        match u.op {
            syn::UnOp::Deref(_) => {
                if self.val(v).kind.is_memory() {
                    let region = self.val(v).view.clone();
                    let element = region.as_ref().is_some_and(|r| r.dims.is_empty());
                    if element || matches!(self.val(v).kind, ValueKind::RawPtr(_)) {
                        self.emit(
                            Op::Read {
                                value: v,
                                region: region.clone(),
                            },
                            span,
                        );
                        // `*p` of a pointer to a `Vec`: that element owns a buffer, which
                        // what is made of it (`.as_mut_slice()`) reaches; two elements
                        // own different ones.
                        let root = self.root_of(v).map(|r| (r.id, r.elem_type.clone()));
                        if let (Some((root, Some(ty))), Some(at)) = (root, region) {
                            if at.dims.is_empty() && models::is_owned_buffer(&ty) {
                                let e = self.copy_value(v, None, span);
                                self.emit(Op::Assign { dst: e, src: v }, span);
                                let ev = self.val_mut(e);
                                ev.kind = ValueKind::View(root);
                                ev.ty = TyClass::Vec;
                                return e;
                            }
                        }
                        return self.scalar(None, span);
                    }
                    // `*vec` / `*boxed`: the same memory, read where it is used.
                    return v;
                }
                let int = self.val(v).int.clone();
                self.scalar(int, span)
            }
            syn::UnOp::Neg(_) => {
                let int = self.val(v).int.clone().map(|x| -x);
                self.scalar(int, span)
            }
            syn::UnOp::Not(_) => {
                let flipped = self.null_tests.get(&v).map(|&(p, t)| (p, !t));
                let out = self.scalar(None, span);
                if let Some(test) = flipped {
                    self.null_tests.insert(out, test);
                }
                out
            }
            _ => self.scalar(None, span),
        }
    }

    pub(crate) fn binary(&mut self, b: &syn::ExprBinary, span: Span) -> ValueId {
        use syn::BinOp as B;
        let compound = matches!(
            b.op,
            B::AddAssign(_)
                | B::SubAssign(_)
                | B::MulAssign(_)
                | B::DivAssign(_)
                | B::RemAssign(_)
                | B::BitXorAssign(_)
                | B::BitAndAssign(_)
                | B::BitOrAssign(_)
                | B::ShlAssign(_)
                | B::ShrAssign(_)
        );
        let rhs = self.expr(&b.right);
        if compound {
            self.compound_assign(&b.left, rhs, op_text(&b.op), span);
            return self.unknown(span);
        }
        let lhs = self.expr(&b.left);
        let (lk, rk) = (
            self.val(lhs).kind.is_memory(),
            self.val(rhs).kind.is_memory(),
        );
        let arithmetic = matches!(
            b.op,
            B::Add(_) | B::Sub(_) | B::Mul(_) | B::Div(_) | B::Rem(_)
        );
        if arithmetic && (lk || rk) && self.is_tensor_operand(lhs, rhs) {
            // `&a + &b` on arrays or tensors makes a new one from both.
            for v in [lhs, rhs] {
                if self.val(v).kind.is_memory() {
                    self.emit(
                        Op::Read {
                            value: v,
                            region: None,
                        },
                        span,
                    );
                }
            }
            let like = if lk { lhs } else { rhs };
            let shape = self.val(like).view.as_ref().map(|v| v.shape());
            let bytes = self.val(like).view.as_ref().map_or(4, |v| v.elem_bytes);
            let ty = self.val(like).ty;
            let v = self.alloc_value(
                format!("({})", op_text(&b.op)),
                bytes,
                shape,
                ReleasedBy::Drop,
                ty,
                span,
            );
            let lhs_ref = match &*b.left {
                syn::Expr::Reference(r) if lk => Some(self.span(r.and_token.span)),
                _ => None,
            };
            let inputs = vec![lhs, rhs];
            let op_span = self.span(syn::spanned::Spanned::span(&b.op));
            self.set_producer(v, op_text(&b.op), inputs, op_span, lhs_ref);
            return v;
        }
        let compares = matches!(
            b.op,
            B::Eq(_) | B::Ne(_) | B::Lt(_) | B::Le(_) | B::Gt(_) | B::Ge(_)
        );
        let mut condition = Vec::new();
        if compares {
            if let (Some(l), Some(r)) = (self.val(lhs).int.clone(), self.val(rhs).int.clone()) {
                self.compared.push((l.clone(), r.clone()));
                if let Some(cmp) = int::cmp_of(&b.op) {
                    condition.push(crate::ir::Assumption {
                        lhs: l,
                        cmp,
                        rhs: r,
                    });
                }
            }
        }
        // `a && b` holds where both do.
        if matches!(b.op, B::And(_)) {
            for side in [lhs, rhs] {
                condition.extend(self.conditions.get(&side).cloned().unwrap_or_default());
            }
        }
        for v in [lhs, rhs] {
            // Comparing pointers compares addresses: nothing is read.
            if compares && matches!(self.val(v).kind, ValueKind::RawPtr(_)) {
                continue;
            }
            // An element reference used as a number is read (`x * 2.0` with `x: &f32`).
            if self.val(v).kind.is_memory() {
                let region = self.val(v).view.clone();
                self.emit(Op::Read { value: v, region }, span);
            }
        }
        let (l, r) = (self.val(lhs).int.clone(), self.val(rhs).int.clone());
        let int = match (l, r) {
            (Some(l), Some(r)) => int::int_binop(&b.op, &l, &r),
            _ => None,
        };
        let out = self.scalar(int, span);
        if !condition.is_empty() {
            self.conditions.insert(out, condition);
        }
        out
    }

    pub(crate) fn is_tensor_operand(&self, a: ValueId, b: ValueId) -> bool {
        [a, b].iter().any(|&v| {
            matches!(
                self.val(v).ty,
                TyClass::Array | TyClass::ArrayView | TyClass::Tensor
            )
        })
    }

    pub(crate) fn tuple_value(&mut self, parts: Vec<ValueId>, span: Span) -> ValueId {
        let v = self.unknown(span);
        self.tuples.insert(v, parts);
        v
    }
}

pub(crate) fn op_text(op: &syn::BinOp) -> &'static str {
    use syn::BinOp as B;
    match op {
        B::Add(_) => "+",
        B::Sub(_) => "-",
        B::Mul(_) => "*",
        B::Div(_) => "/",
        B::Rem(_) => "%",
        B::AddAssign(_) => "+=",
        B::SubAssign(_) => "-=",
        B::MulAssign(_) => "*=",
        B::DivAssign(_) => "/=",
        B::RemAssign(_) => "%=",
        B::BitXorAssign(_) => "^=",
        B::BitAndAssign(_) => "&=",
        B::BitOrAssign(_) => "|=",
        B::ShlAssign(_) => "<<=",
        B::ShrAssign(_) => ">>=",
        _ => "op",
    }
}

/// Bytes of a literal's type suffix (`0.0f32` → 4); unsuffixed floats are `f64`.
pub(crate) fn literal_bytes(e: &syn::Expr) -> Option<u32> {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Float(f) => Some(crate::models::scalar_bytes(f.suffix()).unwrap_or(8)),
            syn::Lit::Int(i) => Some(crate::models::scalar_bytes(i.suffix()).unwrap_or(4)),
            syn::Lit::Bool(_) => Some(1),
            _ => None,
        },
        syn::Expr::Unary(u) => literal_bytes(&u.expr),
        // `()`: a zero-sized element.
        syn::Expr::Tuple(t) if t.elems.is_empty() => Some(0),
        syn::Expr::Cast(c) => crate::syntax::ty::elem_bytes_of_type(&c.ty),
        _ => None,
    }
}
