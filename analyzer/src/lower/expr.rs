//! Lowering of expressions and control flow, and of calls through models and summaries.

use super::{int, pat_ident, IterInfo, LoopCtx, Lowerer, MAX_DEPTH};
use crate::index::Resolved;
use crate::ir::{
    Callee, EscapeKind, FnId, Op, ReleaseKind, ReleasedBy, ReturnKind, RootOrigin, Terminator,
    TyClass, ValueId, ValueKind, ViewOp,
};
use crate::models::{self, Ctor, ParKind, ReleaseHow, Sem, ViewKind};
use crate::oracle::Expr;
use crate::source::Span;
use crate::summary::ReturnSummary;

/// An argument as the call saw it: its value and whether it was passed by reference.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arg {
    pub value: ValueId,
    pub by_ref: bool,
}

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

    fn expr_inner(&mut self, e: &syn::Expr) -> ValueId {
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
                // `&mut *x` reborrows x; it reads nothing.
                syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.expr(&u.expr),
                // `&mut s.count` is the field's place, not its value.
                syn::Expr::Field(f) => self.field_value(f),
                inner => self.expr(inner),
            },
            syn::Expr::Cast(c) => {
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
            syn::Expr::Unary(u) => self.unary(u, span),
            syn::Expr::Binary(b) => self.binary(b, span),
            syn::Expr::Assign(a) => {
                let rhs = self.expr(&a.right);
                if matches!(*a.right, syn::Expr::Path(_)) {
                    self.mark_moved(rhs);
                }
                self.assign_to(&a.left, rhs, span);
                // `p = ptr::null_mut()` (after a release): `p` holds no allocation now.
                if is_null_pointer_call(&a.right) {
                    if let syn::Expr::Path(lhs) = &*a.left {
                        let name = lhs.path.get_ident().map(ToString::to_string);
                        if let Some(p) = name.and_then(|n| self.lookup(&n)) {
                            if self.val(p).kind.is_memory() {
                                self.emit(Op::AssumeNull { value: p }, span);
                            }
                        }
                    }
                }
                self.unknown(span)
            }
            syn::Expr::Index(ix) => self.index_read(ix, span),
            syn::Expr::Field(f) => self.field_read(f, span),
            syn::Expr::Block(b) => self.labelled_block(b, span),
            syn::Expr::Unsafe(u) => self.block_expr(&u.block),
            syn::Expr::Const(c) => self.block_expr(&c.block),
            syn::Expr::If(i) => self.if_expr(i, span),
            syn::Expr::Match(m) => self.match_expr(m, span),
            syn::Expr::Loop(l) => {
                let label = l.label.as_ref().map(|l| l.name.ident.to_string());
                self.loop_of(label, None, None, None, &l.body, span)
            }
            syn::Expr::While(w) => {
                let label = w.label.as_ref().map(|l| l.name.ident.to_string());
                self.loop_of(label, Some(&w.cond), None, None, &w.body, span)
            }
            syn::Expr::ForLoop(f) => {
                let label = f.label.as_ref().map(|l| l.name.ident.to_string());
                let iter = self.expr(&f.expr);
                if !matches!(*f.expr, syn::Expr::Reference(_)) {
                    // `for x in v` consumes `v`.
                    self.mark_moved(iter);
                }
                self.loop_of(label, None, Some(&f.pat), Some(iter), &f.body, span)
            }
            syn::Expr::Break(b) => {
                let value = b.expr.as_ref().map(|e| self.expr(e));
                let label = b.label.as_ref().map(|l| l.ident.to_string());
                if let Some(ctx) = self.find_loop(label.as_deref()) {
                    if let Some(v) = value {
                        if self.val(v).kind.is_memory() {
                            self.emit(
                                Op::Assign {
                                    dst: ctx.result,
                                    src: v,
                                },
                                span,
                            );
                            let kind = self.val(v).kind.clone();
                            self.val_mut(ctx.result).kind = kind;
                        }
                        // The loop's result owns what `break` carries out.
                        self.mark_moved(v);
                    }
                    self.drop_scopes_on_exit(ctx.scope_depth, value, span);
                    self.terminate(Terminator::Goto(ctx.break_to), span);
                } else {
                    self.terminate(Terminator::Unreachable, span);
                }
                self.unknown(span)
            }
            syn::Expr::Continue(c) => {
                let label = c.label.as_ref().map(|l| l.ident.to_string());
                match self.find_loop(label.as_deref()) {
                    Some(ctx) => {
                        self.drop_scopes_on_exit(ctx.scope_depth, None, span);
                        self.terminate(Terminator::Goto(ctx.continue_to), span)
                    }
                    None => self.terminate(Terminator::Unreachable, span),
                }
                self.unknown(span)
            }
            syn::Expr::Return(r) => {
                let value = r.expr.as_ref().map(|e| self.expr(e));
                if let Some(v) = value {
                    self.emit_return_escape(v, span);
                    self.mark_moved(v);
                }
                self.drop_scopes_on_exit(0, value, span);
                self.terminate(
                    Terminator::Return {
                        value,
                        kind: ReturnKind::Early,
                    },
                    span,
                );
                self.unknown(span)
            }
            syn::Expr::Try(t) => {
                let v = self.expr(&t.expr);
                let q = self.span(t.question_token.span);
                let ok = self.new_block(q);
                let err = self.new_block(q);
                self.terminate(
                    Terminator::Branch {
                        cond: Some(v),
                        targets: vec![ok, err],
                    },
                    q,
                );
                self.switch_to(err);
                self.drop_scopes_on_exit(0, Some(v), q);
                self.terminate(
                    Terminator::Return {
                        value: None,
                        kind: ReturnKind::Try,
                    },
                    q,
                );
                self.switch_to(ok);
                v
            }
            syn::Expr::Closure(c) => {
                let body = self.closure_body(c, &[]);
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
                let bound = |l: &mut Self, v: Option<ValueId>, missing: i64, base: &str| match v {
                    None if missing >= 0 => Expr::int(missing),
                    None => Expr::sym(&l.fresh_symbol(base)),
                    Some(v) => match l.val(v).int.clone() {
                        Some(i) => i,
                        None => Expr::sym(&l.fresh_symbol(base)),
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
                self.scalar(None, span)
            }
            syn::Expr::Await(a) => self.expr(&a.base),
            syn::Expr::TryBlock(t) => self.block_expr(&t.block),
            _ => self.unknown(span),
        }
    }

    fn path_expr(&mut self, p: &syn::ExprPath, span: Span) -> ValueId {
        if p.qself.is_none() && p.path.segments.len() == 1 {
            let name = p.path.segments[0].ident.to_string();
            if let Some(v) = self.lookup(&name) {
                return v;
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

    fn unary(&mut self, u: &syn::ExprUnary, span: Span) -> ValueId {
        let v = self.expr(&u.expr);
        match u.op {
            syn::UnOp::Deref(_) => {
                if self.val(v).kind.is_memory() {
                    let region = self.val(v).view.clone();
                    let element = region.as_ref().is_some_and(|r| r.dims.is_empty());
                    if element || matches!(self.val(v).kind, ValueKind::RawPtr(_)) {
                        self.emit(Op::Read { value: v, region }, span);
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

    fn binary(&mut self, b: &syn::ExprBinary, span: Span) -> ValueId {
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
        for v in [lhs, rhs] {
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
        self.scalar(int, span)
    }

    fn is_tensor_operand(&self, a: ValueId, b: ValueId) -> bool {
        [a, b].iter().any(|&v| {
            matches!(
                self.val(v).ty,
                TyClass::Array | TyClass::ArrayView | TyClass::Tensor
            )
        })
    }

    fn labelled_block(&mut self, b: &syn::ExprBlock, span: Span) -> ValueId {
        let Some(label) = &b.label else {
            return self.block_expr(&b.block);
        };
        // A labelled block is a loop that runs once: `break 'a` leaves it.
        let exit = self.new_block(span);
        let result = self.unknown(span);
        self.loops.push(LoopCtx {
            label: Some(label.name.ident.to_string()),
            break_to: exit,
            continue_to: exit,
            result,
            iteration: None,
            body: self.cur_body,
            is_block: true,
            scope_depth: self.scopes.len(),
        });
        let v = self.block_expr(&b.block);
        self.loops.pop();
        if self.val(v).kind.is_memory() {
            self.emit(
                Op::Assign {
                    dst: result,
                    src: v,
                },
                span,
            );
        }
        self.goto(exit, span);
        result
    }

    fn if_expr(&mut self, i: &syn::ExprIf, span: Span) -> ValueId {
        self.push_scope();
        let cond = self.expr(&i.cond);
        let then_b = self.new_block(span);
        let else_b = self.new_block(span);
        let join = self.new_block(span);
        let result = self.unknown(span);
        self.terminate(
            Terminator::Branch {
                cond: Some(cond),
                targets: vec![then_b, else_b],
            },
            span,
        );
        let null_test = self.null_tests.get(&cond).copied();
        self.switch_to(then_b);
        if let Some((p, true)) = null_test {
            self.emit(Op::AssumeNull { value: p }, span);
        }
        let tv = self.block_expr(&i.then_branch);
        self.pop_scope();
        self.join_arm(result, tv, join, span);
        self.switch_to(else_b);
        if let Some((p, false)) = null_test {
            self.emit(Op::AssumeNull { value: p }, span);
        }
        if let Some((_, e)) = &i.else_branch {
            let ev = self.expr(e);
            self.join_arm(result, ev, join, span);
        } else {
            self.goto(join, span);
        }
        self.switch_to(join);
        result
    }

    /// Ends an arm of `if`/`match`: its value flows into `result`, control into `join`.
    fn join_arm(&mut self, result: ValueId, v: ValueId, join: crate::ir::BlockId, span: Span) {
        if self.is_live() {
            let first = self.join_seen.insert(result);
            let src = self.val(v).clone();
            if src.kind.is_memory() {
                self.emit(
                    Op::Assign {
                        dst: result,
                        src: v,
                    },
                    span,
                );
            }
            let r = self.val_mut(result);
            if first {
                r.kind = match src.kind {
                    ValueKind::Root(root) => ValueKind::View(root),
                    k => k,
                };
                r.view = src.view;
                r.ty = src.ty;
                r.int = src.int;
            } else {
                // Arms that disagree leave the merged value less known; the points-to
                // sets keep every root it may reach.
                if r.kind.root() != src.kind.root() || r.view != src.view {
                    r.view = None;
                }
                if !r.kind.is_memory() && src.kind.is_memory() {
                    r.kind = match src.kind {
                        ValueKind::Root(root) => ValueKind::View(root),
                        k => k,
                    };
                }
                if r.int != src.int {
                    r.int = None;
                }
            }
        }
        self.terminate(Terminator::Goto(join), span);
    }

    fn match_expr(&mut self, m: &syn::ExprMatch, span: Span) -> ValueId {
        let scrut = self.expr(&m.expr);
        let join = self.new_block(span);
        let result = self.unknown(span);
        let arms: Vec<_> = m.arms.iter().map(|_| self.new_block(span)).collect();
        self.terminate(
            Terminator::Branch {
                cond: Some(scrut),
                targets: arms.clone(),
            },
            span,
        );
        for (arm, block) in m.arms.iter().zip(arms) {
            self.switch_to(block);
            self.push_scope();
            self.bind_pat(&arm.pat, scrut);
            if let Some((_, guard)) = &arm.guard {
                let g = self.expr(guard);
                self.emit(Op::Use { value: g }, span);
            }
            let v = self.expr(&arm.body);
            self.pop_scope();
            self.join_arm(result, v, join, span);
        }
        self.switch_to(join);
        result
    }

    fn find_loop(&self, label: Option<&str>) -> Option<LoopCtx> {
        self.loops
            .iter()
            .rev()
            .take_while(|l| l.body == self.cur_body)
            // An unlabelled `break`/`continue` belongs to the innermost loop, never to a
            // labelled block.
            .find(|l| match label {
                None => !l.is_block,
                Some(_) => l.label.as_deref() == label,
            })
            .cloned()
    }

    /// `loop`, `while` and `for`: a header that tests, a body that jumps back.
    fn loop_of(
        &mut self,
        label: Option<String>,
        cond: Option<&syn::Expr>,
        pat: Option<&syn::Pat>,
        iter: Option<ValueId>,
        body: &syn::Block,
        span: Span,
    ) -> ValueId {
        let header = self.new_block(span);
        self.goto(header, span);
        let exit = self.new_block(span);
        let result = self.unknown(span);
        self.push_scope();
        let mut iteration = None;
        if let Some(c) = cond {
            let cv = self.expr(c);
            let body_b = self.new_block(span);
            self.terminate(
                Terminator::Branch {
                    cond: Some(cv),
                    targets: vec![body_b, exit],
                },
                span,
            );
            self.switch_to(body_b);
        } else if let (Some(pat), Some(iter)) = (pat, iter) {
            let body_b = self.new_block(span);
            self.terminate(
                Terminator::Branch {
                    cond: Some(iter),
                    targets: vec![body_b, exit],
                },
                span,
            );
            self.switch_to(body_b);
            let base = pat_ident(pat).unwrap_or_else(|| "it".into());
            let sym = self.fresh_symbol(&base);
            let item = self.iteration_item(iter, &sym, span);
            iteration = self.iteration_range(iter).map(|(lo, hi)| (sym, lo, hi));
            if let Some((sym, lo, hi)) = &iteration {
                let range = crate::ir::Iteration {
                    symbol: sym.clone(),
                    lo: lo.clone(),
                    hi: hi.clone(),
                    value: None,
                };
                self.loop_ranges
                    .push((crate::ir::BodyId(self.cur_body as u32), range));
            }
            self.bind_pat(pat, item);
        }
        // `continue` goes back to the header, which tests again.
        self.loops.push(LoopCtx {
            label,
            break_to: exit,
            continue_to: header,
            result,
            iteration,
            body: self.cur_body,
            is_block: false,
            scope_depth: self.scopes.len().saturating_sub(1),
        });
        // The header and the body's entry were made before the loop was pushed, yet run
        // on every iteration.
        let depth = self
            .loops
            .iter()
            .filter(|l| l.body == self.cur_body && !l.is_block)
            .count();
        for b in [header, self.cur_block] {
            if let Some(block) = self.bodies[self.cur_body].blocks.get_mut(b.0 as usize) {
                block.loop_depth = depth as u32;
            }
        }
        self.block_expr(body);
        self.loops.pop();
        self.pop_scope();
        if self.is_live() {
            self.terminate(Terminator::Goto(header), span);
        }
        self.switch_to(exit);
        result
    }

    /// The item one iteration of `iter` binds, for iteration symbol `sym`.
    pub(crate) fn iteration_item(&mut self, iter: ValueId, sym: &str, span: Span) -> ValueId {
        let Some(info) = self.iters.get(&iter).cloned() else {
            // Iterating a collection directly (`for x in &mut v`): its elements.
            if self.val(iter).kind.is_memory() {
                return self.derive_view(
                    iter,
                    ViewOp::Iter {
                        axis: 0,
                        chunk: None,
                        index: Expr::sym(sym),
                    },
                    span,
                );
            }
            return self.unknown(span);
        };
        let index = Expr::sym(sym);
        let mut items: Vec<ValueId> = Vec::new();
        if let Some((lo, _)) = &info.range {
            let i = self.scalar(Some(lo + &index), span);
            items.push(i);
        }
        for src in &info.sources {
            let v = self.derive_view(
                src.value,
                ViewOp::Iter {
                    axis: src.axis,
                    chunk: src.chunk.clone(),
                    index: index.clone(),
                },
                span,
            );
            items.push(v);
        }
        let item = match items.len() {
            0 => self.unknown(span),
            1 => items[0],
            _ => self.tuple_value(items, span),
        };
        if info.enumerate {
            let i = self.scalar(Some(index), span);
            return self.tuple_value(vec![i, item], span);
        }
        item
    }

    /// `lo..hi` of the iteration symbol of `iter`.
    pub(crate) fn iteration_range(&self, iter: ValueId) -> Option<(Expr, Expr)> {
        let info = self.iters.get(&iter);
        if let Some((lo, hi)) = info.and_then(|i| i.range.clone()) {
            return Some((Expr::int(0), &hi - &lo));
        }
        let count = |value: ValueId, axis: usize, chunk: Option<Expr>| {
            let len = self.val(value).view.as_ref()?.dims.get(axis)?.len.clone();
            Some(match chunk {
                Some(c) => (&len + &(&c - 1)).div_floor(c),
                None => len,
            })
        };
        let Some(sources) = info.map(|i| &i.sources).filter(|s| !s.is_empty()) else {
            return Some((Expr::int(0), count(iter, 0, None)?));
        };
        // A zip stops with its shortest source; the other sources' counts, when known,
        // bound it further.
        let mut hi = count(sources[0].value, sources[0].axis, sources[0].chunk.clone())?;
        for s in &sources[1..] {
            if let Some(other) = count(s.value, s.axis, s.chunk.clone()) {
                if other != hi {
                    hi = hi.minimum(&other);
                }
            }
        }
        Some((Expr::int(0), hi))
    }

    pub(crate) fn tuple_value(&mut self, parts: Vec<ValueId>, span: Span) -> ValueId {
        let v = self.unknown(span);
        self.tuples.insert(v, parts);
        v
    }

    /// A bitwise copy of `src` (`mem::transmute_copy(&x)`, `ptr::read(&x)`). The copy of
    /// an owner owns the same memory: whichever of the two is forgotten, the other one
    /// carries the duty to release it, and if neither is, both release it.
    fn bit_copy(&mut self, src: Option<ValueId>, span: Span) -> ValueId {
        let Some(src) = src.filter(|&v| self.val(v).kind.is_memory()) else {
            return self.unknown(span);
        };
        let owner = self.val(src).kind.clone();
        let copy = self.derive_view(src, ViewOp::Whole, span);
        if let ValueKind::Root(r) = owner {
            self.val_mut(copy).kind = ValueKind::Root(r);
        }
        copy
    }

    /// A value owning new memory of `root`, with an `Alloc` op.
    pub(crate) fn alloc_value(
        &mut self,
        name: String,
        elem_bytes: u32,
        shape: Option<Vec<Expr>>,
        released_by: ReleasedBy,
        ty: TyClass,
        span: Span,
    ) -> ValueId {
        let size = shape
            .as_ref()
            .map(|s| s.iter().fold(Expr::int(1), |acc, d| &acc * d));
        let root = self.new_root(
            name,
            RootOrigin::Alloc,
            elem_bytes,
            shape.clone(),
            released_by,
            span,
        );
        let v = self.new_value(None, ValueKind::Root(root), ty, span);
        self.val_mut(v).view = shape.map(|s| crate::oracle::View::contiguous(root, elem_bytes, s));
        self.emit(Op::Alloc { dst: v, root, size }, span);
        v
    }

    /// Records which op computed the memory `v` owns (see [`crate::ir::Producer`]).
    fn set_producer(
        &mut self,
        v: ValueId,
        op: &str,
        inputs: Vec<ValueId>,
        op_span: Span,
        lhs_ref: Option<Span>,
    ) {
        let Some(root) = self.val(v).kind.root() else {
            return;
        };
        let producer = crate::ir::Producer {
            op: op.to_string(),
            inputs,
            op_span,
            lhs_ref,
            inplace_form: models::inplace_form(op).map(str::to_string),
            saves_output: models::saves_output(op),
        };
        if let Some(r) = self.root_mut(root) {
            r.producer = Some(producer);
        }
    }

    /// A view of `src` derived by `how`, with an op; not memory when `src` is not.
    pub(crate) fn derive_view(&mut self, src: ValueId, how: ViewOp, span: Span) -> ValueId {
        let s = self.val(src).clone();
        if !s.kind.is_memory() {
            return self.unknown(span);
        }
        let kind = match s.kind {
            ValueKind::Root(r) => ValueKind::View(r),
            k => k,
        };
        let view = s
            .view
            .as_ref()
            .and_then(|v| super::geometry::apply(v, &how));
        // One element of a buffer is a number in memory, not a tensor.
        let element = matches!(how, ViewOp::Iter { chunk: None, .. })
            && (view.as_ref().is_some_and(|v| v.dims.is_empty())
                || matches!(s.ty, TyClass::Slice | TyClass::Vec));
        let ty = if element { TyClass::Unknown } else { s.ty };
        let dst = self.new_value(None, kind, ty, span);
        self.val_mut(dst).view = view;
        self.emit(Op::View { dst, src, how }, span);
        dst
    }

    // ----- calls -----------------------------------------------------------------

    fn lower_args<'e>(&mut self, args: impl Iterator<Item = &'e syn::Expr>) -> Vec<Arg> {
        args.map(|a| {
            let by_ref = matches!(a, syn::Expr::Reference(_));
            let value = self.expr(a);
            if !by_ref {
                self.mark_moved(value);
            }
            Arg { value, by_ref }
        })
        .collect()
    }

    /// An owner used by value is moved: its scope does not drop it.
    pub(crate) fn mark_moved(&mut self, v: ValueId) {
        if matches!(self.val(v).kind, ValueKind::Root(_)) {
            self.moved.insert(v);
        }
    }

    fn call(&mut self, c: &syn::ExprCall, span: Span) -> ValueId {
        let syn::Expr::Path(p) = &*c.func else {
            let f = self.expr(&c.func);
            let args = self.lower_args(c.args.iter());
            return self.call_value(f, &args, span);
        };
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if segs.len() == 1 {
            if let Some(f) = self.lookup(&segs[0]) {
                let args = self.lower_args(c.args.iter());
                return self.call_value(f, &args, span);
            }
        }
        let resolved =
            self.ctx
                .index
                .resolve_path(&self.item.module, self.item.self_ty.as_deref(), &segs);
        // Closures passed to parallel APIs are lowered as tasks, not as values.
        if let Resolved::External(path) = &resolved {
            if let Some(sem) = models::path_sem(self.ctx.models, path) {
                if matches!(sem, Sem::Join | Sem::Scope | Sem::ThreadSpawn | Sem::NoGrad) {
                    let args: Vec<&syn::Expr> = c.args.iter().collect();
                    return self.parallel_call(sem, &args, &path.join("::"), span);
                }
            }
        }
        let args = self.lower_args(c.args.iter());
        match resolved {
            Resolved::Local(idx) => self.local_call(idx, &args, span),
            Resolved::External(path) => {
                if let Some(v) = self.value_constructor(&p.path, &path, &args, span) {
                    return v;
                }
                let name = path.join("::");
                if let Some(sem) = models::path_sem(self.ctx.models, &path) {
                    let elem = path_elem_bytes(&p.path);
                    let ty = path_class(&path);
                    return self.apply_sem(sem, &name, None, &args, ty, elem, span);
                }
                if let Some(last) = path.last() {
                    if self.ctx.index.struct_named(last).is_some() {
                        return self.wrap(&args, span);
                    }
                    // `Type::method(recv, ..)`: a method model called by path.
                    if !args.is_empty() {
                        let recv_ty = self.val(args[0].value).ty;
                        if let Some(sem) = models::method_sem(self.ctx.models, recv_ty, last) {
                            let recv = args[0];
                            return self.apply_sem(
                                sem,
                                last,
                                Some(recv),
                                &args[1..],
                                TyClass::Unknown,
                                None,
                                span,
                            );
                        }
                    }
                }
                self.unknown_call(name, &args, span)
            }
        }
    }

    /// Calls that only build a value the lowering tracks: `Axis(k)`, `Layout`s, and
    /// `Box::new(buf)` / `Arc::new(buf)`, which move a buffer behind a pointer.
    fn value_constructor(
        &mut self,
        written: &syn::Path,
        path: &[String],
        args: &[Arg],
        span: Span,
    ) -> Option<ValueId> {
        let tail: Vec<&str> = path
            .iter()
            .rev()
            .take(2)
            .rev()
            .map(String::as_str)
            .collect();
        let arg_int = |l: &Self, k: usize| args.get(k).and_then(|a| l.val(a.value).int.clone());
        let layout = match tail.as_slice() {
            [.., "Axis"] => return args.first().map(|a| a.value),
            ["Layout", "array"] => Some((path_elem_bytes(written).unwrap_or(1), arg_int(self, 0)?)),
            ["Layout", "new"] => Some((path_elem_bytes(written).unwrap_or(1), Expr::int(1))),
            ["Layout", "from_size_align" | "from_size_align_unchecked"] => {
                Some((1, arg_int(self, 0)?))
            }
            ["Box" | "Arc" | "Rc" | "ManuallyDrop" | "Pin", "new"] => {
                let a = args.first()?;
                let ValueKind::Root(root) = self.val(a.value).kind else {
                    return None;
                };
                let v = self.copy_value(a.value, None, span);
                self.val_mut(v).kind = ValueKind::Root(root);
                if tail[0] == "ManuallyDrop" {
                    // Nothing drops a `ManuallyDrop` at the end of its scope.
                    self.moved.insert(v);
                    self.emit(
                        Op::Escape {
                            value: a.value,
                            how: EscapeKind::Leaked(path.join("::")),
                        },
                        span,
                    );
                }
                self.emit(
                    Op::Assign {
                        dst: v,
                        src: a.value,
                    },
                    span,
                );
                return Some(v);
            }
            _ => None,
        }?;
        let v = self.scalar(None, span);
        self.layouts.insert(v, layout);
        Some(v)
    }

    /// A newtype or struct wrapping memory (`SendPtr(p)`) carries its memory through.
    fn wrap(&mut self, args: &[Arg], span: Span) -> ValueId {
        match args.iter().find(|a| self.val(a.value).kind.is_memory()) {
            Some(a) => {
                let v = self.copy_value(a.value, None, span);
                self.emit(
                    Op::View {
                        dst: v,
                        src: a.value,
                        how: ViewOp::Whole,
                    },
                    span,
                );
                v
            }
            None => self.new_value(None, ValueKind::Unknown, TyClass::LocalStruct, span),
        }
    }

    fn struct_literal(&mut self, s: &syn::ExprStruct, span: Span) -> ValueId {
        let mut fields = Vec::new();
        for f in &s.fields {
            let v = self.expr(&f.expr);
            let name = match &f.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            fields.push((name, v));
        }
        if let Some(rest) = &s.rest {
            self.expr(rest);
        }
        for (_, v) in &fields {
            self.mark_moved(*v);
        }
        if let Some(name) = s.path.segments.last().map(|seg| seg.ident.to_string()) {
            if let Some(out) = self.struct_memory(&name, &fields, span) {
                return out;
            }
        }
        let args: Vec<Arg> = fields
            .iter()
            .map(|(_, v)| Arg {
                value: *v,
                by_ref: false,
            })
            .collect();
        let out = self.wrap(&args, span);
        for (name, v) in fields {
            self.fields.insert((out, name), v);
        }
        out
    }

    fn call_value(&mut self, f: ValueId, args: &[Arg], span: Span) -> ValueId {
        let callee = match self.val(f).kind {
            ValueKind::Closure(b) => Callee::Closure(b),
            _ => Callee::Unknown(self.val(f).name.clone().unwrap_or_else(|| "closure".into())),
        };
        let dst = self.unknown(span);
        self.emit(
            Op::Call {
                dst: Some(dst),
                callee,
                args: args.iter().map(|a| a.value).collect(),
            },
            span,
        );
        dst
    }

    fn unknown_call(&mut self, name: String, args: &[Arg], span: Span) -> ValueId {
        if models::is_thread_count_call(&name) {
            return self.scalar(Some(Expr::sym(models::THREAD_COUNT)), span);
        }
        let dst = self.unknown(span);
        self.emit(
            Op::Call {
                dst: Some(dst),
                callee: Callee::Unknown(name.clone()),
                args: args.iter().map(|a| a.value).collect(),
            },
            span,
        );
        self.pass_on(&name, args, span);
        dst
    }

    /// Memory with a release obligation moved into an opaque call is the callee's now.
    fn pass_on(&mut self, name: &str, args: &[Arg], span: Span) {
        for a in args.iter().filter(|a| !a.by_ref) {
            let v = self.val(a.value);
            let owned = matches!(v.kind, ValueKind::Root(_) | ValueKind::RawPtr(Some(_)));
            let obligation = v
                .kind
                .root()
                .and_then(|r| self.roots.get(r.0 as usize))
                .is_some_and(|r| !matches!(r.released_by, ReleasedBy::Drop | ReleasedBy::NotOwned));
            if owned && obligation {
                self.emit(
                    Op::Escape {
                        value: a.value,
                        how: EscapeKind::PassedOn(name.to_string()),
                    },
                    span,
                );
            }
        }
    }

    /// A call to a crate-local function: its summary's effects happen here.
    pub(crate) fn local_call(&mut self, idx: usize, args: &[Arg], span: Span) -> ValueId {
        let fid = FnId(idx as u32);
        self.callees.push(fid);
        let dst = self.unknown(span);
        self.emit(
            Op::Call {
                dst: Some(dst),
                callee: Callee::Local(fid),
                args: args.iter().map(|a| a.value).collect(),
            },
            span,
        );
        let summary = match self.ctx.summaries.get(idx).and_then(|s| s.clone()) {
            Some(s) => s,
            None => match self.ctx.index.fn_item(idx) {
                Some(item) => crate::summary::FnSummary::from_annotations(&item.annotations),
                None => return dst,
            },
        };
        let name = self
            .ctx
            .index
            .fn_item(idx)
            .map_or_else(String::new, |f| f.path());
        let arg = |i: usize| args.get(i).map(|a| a.value);
        // The arguments at `params` that reach memory, in parameter order.
        let memory_args = |params: &std::collections::BTreeSet<usize>| -> Vec<ValueId> {
            params
                .iter()
                .filter_map(|&i| arg(i))
                .filter(|&v| self.val(v).kind.is_memory())
                .collect()
        };
        let mut effects: Vec<Op> = Vec::new();
        effects.extend(
            memory_args(&summary.reads)
                .into_iter()
                .map(|value| Op::Read {
                    value,
                    region: None,
                }),
        );
        effects.extend(
            memory_args(&summary.writes)
                .into_iter()
                .map(|value| Op::Write {
                    value,
                    region: None,
                }),
        );
        for dst in memory_args(&summary.inplace) {
            let srcs = args
                .iter()
                .map(|a| a.value)
                .filter(|&a| a != dst && self.val(a).kind.is_memory())
                .collect();
            effects.push(Op::InPlace {
                dst,
                srcs,
                method: name.clone(),
            });
        }
        effects.extend(
            memory_args(&summary.escapes)
                .into_iter()
                .map(|value| Op::Escape {
                    value,
                    how: EscapeKind::PassedOn(name.clone()),
                }),
        );
        effects.extend(
            memory_args(&summary.frees)
                .into_iter()
                .map(|value| Op::Release {
                    value,
                    how: ReleaseKind::Function(name.clone()),
                }),
        );
        for op in effects {
            self.emit(op, span);
        }
        // A method that takes an owner by value and returns its own type
        // (`Buffer::new(n).filled(x)`) hands the same owner back: the result carries the
        // duty to release it, so neither the argument's drop nor a leak is reported here.
        if summary.returns == ReturnSummary::Nothing {
            let handed_back = self.ctx.index.fn_item(idx).and_then(|item| item.hands_back);
            let owner = handed_back
                .and_then(arg)
                .filter(|&v| matches!(self.val(v).kind, ValueKind::Root(_)));
            if let Some(v) = owner {
                self.mark_moved(v);
                return self.bit_copy(Some(v), span);
            }
        }
        match summary.returns {
            ReturnSummary::Nothing => dst,
            ReturnSummary::ViewOf(i) => match arg(i) {
                Some(src) => {
                    let how = if summary.returns_whole {
                        ViewOp::Whole
                    } else {
                        ViewOp::Opaque(name)
                    };
                    self.derive_view(src, how, span)
                }
                None => dst,
            },
            ReturnSummary::Alloc(released_by) => {
                let released_by = if self.returns_drop_type(idx) {
                    ReleasedBy::Drop
                } else {
                    released_by
                };
                self.alloc_value(name, 4, None, released_by, TyClass::Unknown, span)
            }
        }
    }

    /// Whether crate-local function `idx` returns, unannotated, a value of a type the
    /// crate implements `Drop` for: that value frees its memory when it is dropped, on
    /// every path the compiler sees, as a `Vec` does (`Buffer::new` wrapping
    /// `std::alloc::alloc`, released in `impl Drop for Buffer`).
    fn returns_drop_type(&self, idx: usize) -> bool {
        let Some(item) = self.ctx.index.fn_item(idx) else {
            return false;
        };
        if item.annotations.alloc {
            return false;
        }
        let Some(ty) = item.returns_owned.clone() else {
            return false;
        };
        self.ctx
            .index
            .methods_named(Some(&ty), "drop")
            .into_iter()
            .filter_map(|m| self.ctx.index.fn_item(m))
            .any(|m| m.trait_name.as_deref() == Some("Drop") && m.self_ty.as_deref() == Some(&ty))
    }

    fn method_call(&mut self, m: &syn::ExprMethodCall, span: Span) -> ValueId {
        let method = m.method.to_string();
        let recv = self.expr(&m.receiver);
        if method.starts_with("into_") || method == "leak" {
            self.mark_moved(recv);
        }
        let recv_ty = self.val(recv).ty;
        let sem = models::method_sem(self.ctx.models, recv_ty, &method);
        // Parallel consumers lower their closure argument as a task.
        if let Some(Sem::Par(ParKind::Consume | ParKind::ArrayForEach)) | Some(Sem::Spawn) = sem {
            let args: Vec<&syn::Expr> = m.args.iter().collect();
            if let Some(v) =
                self.parallel_method(sem.unwrap_or(Sem::Read), recv, &method, &args, span)
            {
                return v;
            }
        }
        if method == "is_null" && m.args.is_empty() && self.val(recv).kind.is_memory() {
            let v = self.scalar(None, span);
            self.null_tests.insert(v, (recv, true));
            return v;
        }
        if let Some(v) = self.int_method(recv, &method, &m.args, span) {
            return v;
        }
        if TRANSPARENT_METHODS.contains(&method.as_str()) {
            for a in &m.args {
                self.expr(a);
            }
            return recv;
        }
        if method == "strides" || method == "f" {
            // `(n, m).strides((s0, s1))` / `.f()`: a shape with strides for from_shape_ptr.
            let args = self.lower_args(m.args.iter());
            let out = self.copy_value(recv, None, span);
            if let Some(a) = args.first() {
                let parts = self
                    .tuples
                    .get(&a.value)
                    .cloned()
                    .unwrap_or_else(|| vec![a.value]);
                self.strides.insert(out, parts);
            }
            return out;
        }
        let args = self.lower_args(m.args.iter());
        let local = self.local_method(recv, &method);
        // A crate's own `flatten_` is what it defines, not tch's in-place naming rule.
        let naming_only = models::in_place_by_naming_only(self.ctx.models, &method);
        let modelled = if naming_only { None } else { sem };
        if let (Some(idx), None | Some(Sem::Read)) = (local, modelled) {
            let mut all = vec![Arg {
                value: recv,
                by_ref: true,
            }];
            all.extend(args);
            return self.local_call(idx, &all, span);
        }
        match sem {
            Some(sem) => {
                let roots_before = self.roots.len();
                let v = self.apply_sem(
                    sem,
                    &method,
                    Some(Arg {
                        value: recv,
                        by_ref: true,
                    }),
                    &args,
                    recv_ty,
                    None,
                    span,
                );
                if let ValueKind::Root(r) = self.val(v).kind {
                    if r.0 as usize >= roots_before {
                        let inputs = std::iter::once(recv)
                            .chain(args.iter().map(|a| a.value))
                            .filter(|&x| self.val(x).kind.is_memory())
                            .collect();
                        let op_span = self.span(m.method.span());
                        self.set_producer(v, &method, inputs, op_span, None);
                    }
                }
                v
            }
            None => {
                if let Some(idx) = local {
                    let mut all = vec![Arg {
                        value: recv,
                        by_ref: true,
                    }];
                    all.extend(args);
                    return self.local_call(idx, &all, span);
                }
                let mut all = vec![Arg {
                    value: recv,
                    by_ref: true,
                }];
                all.extend(args);
                self.unknown_call(method, &all, span)
            }
        }
    }

    /// Integer methods on sizes and indices (`n.min(k)`, `n.div_ceil(k)`).
    fn int_method(
        &mut self,
        recv: ValueId,
        method: &str,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        span: Span,
    ) -> Option<ValueId> {
        const INT_METHODS: &[&str] = &[
            "min",
            "max",
            "div_ceil",
            "saturating_sub",
            "saturating_add",
            "wrapping_add",
            "checked_add",
            "pow",
        ];
        if !INT_METHODS.contains(&method)
            || self.val(recv).kind != ValueKind::Scalar
            || args.len() != 1
        {
            return None;
        }
        let a = self.expr(&args[0]);
        let (l, r) = (self.val(recv).int.clone(), self.val(a).int.clone());
        let int = match (l, r) {
            (Some(l), Some(r)) => match method {
                "min" => Some(l.minimum(&r)),
                "max" => Some(l.maximum(&r)),
                "div_ceil" if r.as_const().is_some_and(|c| c > 0) || r.as_const().is_none() => {
                    Some((&l + &(&r - 1)).div_floor(r))
                }
                "saturating_sub" => Some((&l - &r).maximum(&Expr::int(0))),
                "saturating_add" | "wrapping_add" | "checked_add" => Some(&l + &r),
                "pow" => match r.as_const() {
                    Some(k @ 0..=8) => Some((0..k).fold(Expr::int(1), |acc, _| &acc * &l)),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        Some(self.scalar(int, span))
    }

    /// A crate-local method this call may mean: on the receiver's known local type,
    /// or the only method of that name in the crate.
    fn local_method(&self, recv: ValueId, method: &str) -> Option<usize> {
        // `self.helper()` inside `impl T` means `T::helper`.
        let own_type = match self.val(recv).name.as_deref() {
            Some("self") => self.item.self_ty.as_deref(),
            _ => None,
        };
        let candidates = self.ctx.index.methods_named(own_type, method);
        let with_self: Vec<usize> = candidates
            .into_iter()
            .filter(|&i| self.ctx.index.fn_item(i).is_some_and(|f| f.has_receiver))
            .collect();
        match with_self.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Applies a model's semantics to a call.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn apply_sem(
        &mut self,
        sem: Sem,
        name: &str,
        recv: Option<Arg>,
        args: &[Arg],
        path_ty: TyClass,
        elem: Option<u32>,
        span: Span,
    ) -> ValueId {
        // Argument `n` counts the receiver as 0 for methods.
        let all: Vec<Arg> = recv.into_iter().chain(args.iter().copied()).collect();
        let nth = |n: usize| all.get(n).map(|a| a.value);
        let mem = |l: &Self, v: Option<ValueId>| v.filter(|&v| l.val(v).kind.is_memory());
        match sem {
            Sem::Alloc(ctor) => {
                if let Some(r) = recv {
                    let rv = self.val(r.value).clone();
                    // Cloning a view or a shared handle shares; cloning an owner copies.
                    if name == "clone"
                        && (matches!(rv.kind, ValueKind::View(_) | ValueKind::RawPtr(_))
                            && rv.ty != TyClass::Vec
                            || rv.ty == TyClass::Shared)
                    {
                        return self.derive_view(r.value, ViewOp::Whole, span);
                    }
                    if !rv.kind.is_memory() && name == "clone" {
                        return self.copy_value(r.value, None, span);
                    }
                }
                let (shape, bytes, ty) = self.ctor_shape(ctor, &all, path_ty);
                let read: Vec<ValueId> = all
                    .iter()
                    .map(|a| a.value)
                    .filter(|&v| self.val(v).kind.is_memory())
                    .collect();
                for v in read {
                    self.emit(
                        Op::Read {
                            value: v,
                            region: None,
                        },
                        span,
                    );
                }
                let ty = if ty == TyClass::Unknown { path_ty } else { ty };
                self.alloc_value(
                    name.to_string(),
                    elem.unwrap_or(bytes),
                    shape,
                    ReleasedBy::Drop,
                    ty,
                    span,
                )
            }
            Sem::OwedAlloc => self.alloc_value(
                name.to_string(),
                elem.unwrap_or(4),
                None,
                ReleasedBy::Function("a modelled release".into()),
                path_ty,
                span,
            ),
            Sem::RawAlloc => {
                let (bytes, size) = match args.first().and_then(|a| self.layouts.get(&a.value)) {
                    Some((bytes, count)) => (*bytes, Some(count.clone())),
                    None => (1, None),
                };
                let v = self.alloc_value(
                    name.to_string(),
                    bytes,
                    size.map(|s| vec![s]),
                    ReleasedBy::Dealloc,
                    TyClass::RawPtr,
                    span,
                );
                let root = self.val(v).kind.root();
                let view = self
                    .val(v)
                    .view
                    .as_ref()
                    .map(super::geometry::pointer_to_start);
                let val = self.val_mut(v);
                val.kind = ValueKind::RawPtr(root);
                val.view = view;
                v
            }
            Sem::Realloc => {
                if let Some(p) = mem(self, nth(0)) {
                    self.emit(
                        Op::Release {
                            value: p,
                            how: ReleaseKind::Dealloc,
                        },
                        span,
                    );
                }
                self.apply_sem(
                    Sem::RawAlloc,
                    name,
                    None,
                    &args[args.len().min(2)..],
                    path_ty,
                    elem,
                    span,
                )
            }
            Sem::View(kind) => match nth(0) {
                Some(src) => self.model_view(kind, src, &all[1..], span),
                None => self.unknown(span),
            },
            Sem::ViewOfArg(n) => match mem(self, nth(n)) {
                Some(src) => self.derive_view(src, ViewOp::Opaque(name.to_string()), span),
                None => self.unknown(span),
            },
            Sem::Share => match nth(0) {
                Some(src) => self.derive_view(src, ViewOp::Whole, span),
                None => self.unknown(span),
            },
            Sem::RawPtr => match mem(self, nth(0)) {
                Some(src) => {
                    let v = self.derive_view(src, ViewOp::Whole, span);
                    let root = self.val(v).kind.root();
                    let view = self
                        .val(v)
                        .view
                        .as_ref()
                        .map(super::geometry::pointer_to_start);
                    let val = self.val_mut(v);
                    val.kind = ValueKind::RawPtr(root);
                    val.view = view;
                    val.ty = TyClass::RawPtr;
                    v
                }
                None => self.unknown(span),
            },
            Sem::PtrStep(sign) => match (mem(self, nth(0)), nth(1)) {
                (Some(p), Some(n)) => {
                    let delta = self
                        .val(n)
                        .int
                        .clone()
                        .map(|d| if sign < 0 { -d } else { d });
                    let how = match delta {
                        Some(d) => ViewOp::Offset(d),
                        None => ViewOp::Opaque(name.to_string()),
                    };
                    let v = self.derive_view(p, how, span);
                    let root = self.val(p).kind.root();
                    if matches!(self.val(p).kind, ValueKind::RawPtr(_)) {
                        self.val_mut(v).kind = ValueKind::RawPtr(root);
                    }
                    v
                }
                _ => {
                    // Integer `a.add(b)` (std::ops::Add): plain arithmetic.
                    let (l, r) = (
                        nth(0).and_then(|v| self.val(v).int.clone()),
                        nth(1).and_then(|v| self.val(v).int.clone()),
                    );
                    let int = match (l, r) {
                        (Some(l), Some(r)) if sign < 0 => Some(&l - &r),
                        (Some(l), Some(r)) => Some(&l + &r),
                        _ => None,
                    };
                    self.scalar(int, span)
                }
            },
            Sem::FromRawParts => self.view_from_raw(nth(0), nth(1), None, span),
            Sem::FromShapePtr => self.view_from_raw(nth(1), None, nth(0), span),
            Sem::PtrRead
                if recv.is_none()
                    && mem(self, nth(0))
                        .is_some_and(|v| matches!(self.val(v).kind, ValueKind::Root(_))) =>
            {
                // `ptr::read(&v)` reads the owner itself, not an element through it; a
                // method named `read` on an owner (`lock.read()`) is no such copy.
                self.bit_copy(nth(0), span)
            }
            Sem::BitCopy(n) => self.bit_copy(nth(n), span),
            Sem::PtrRead => {
                if let Some(p) = mem(self, nth(0)) {
                    let region = self.val(p).view.clone();
                    self.emit(Op::Read { value: p, region }, span);
                }
                self.scalar(None, span)
            }
            Sem::PtrWrite => {
                if let Some(p) = mem(self, nth(0)) {
                    let region = self.val(p).view.clone();
                    self.emit(Op::Write { value: p, region }, span);
                }
                self.unknown(span)
            }
            Sem::InPlace(n) => match mem(self, nth(n)) {
                Some(dst) => {
                    let srcs = all
                        .iter()
                        .map(|a| a.value)
                        .filter(|&a| a != dst && self.val(a).kind.is_memory())
                        .collect();
                    self.emit(
                        Op::InPlace {
                            dst,
                            srcs,
                            method: name.to_string(),
                        },
                        span,
                    );
                    self.call_closure_args(args, span);
                    // tch: an in-place method returns an alias of its receiver.
                    self.derive_view(dst, ViewOp::Whole, span)
                }
                None => {
                    self.call_closure_args(args, span);
                    self.unknown(span)
                }
            },
            Sem::Overwrite(n) => {
                for (k, a) in all.iter().enumerate() {
                    if k != n && self.val(a.value).kind.is_memory() {
                        self.emit(
                            Op::Read {
                                value: a.value,
                                region: None,
                            },
                            span,
                        );
                    }
                }
                if let Some(dst) = mem(self, nth(n)) {
                    self.emit(
                        Op::Write {
                            value: dst,
                            region: None,
                        },
                        span,
                    );
                }
                self.unknown(span)
            }
            Sem::ReadArg(n) | Sem::WriteArg(n) => {
                if let Some(v) = mem(self, nth(n)) {
                    let op = if matches!(sem, Sem::ReadArg(_)) {
                        Op::Read {
                            value: v,
                            region: None,
                        }
                    } else {
                        Op::Write {
                            value: v,
                            region: None,
                        }
                    };
                    self.emit(op, span);
                }
                self.unknown(span)
            }
            Sem::Release(ReleaseHow::Drop, n)
                if mem(self, nth(n)).is_some_and(|v| match self.val(v).kind {
                    ValueKind::RawPtr(_) => true,
                    ValueKind::View(_) => name.contains("drop_in_place"),
                    _ => false,
                }) =>
            {
                // `ptr::drop_in_place(p)` runs the pointee's destructor and frees no
                // buffer: of a borrowed slice it drops the elements, and the memory stays
                // with its owner. `drop(p)` of a raw pointer does nothing to its memory.
                if let Some(p) = mem(self, nth(n)).filter(|_| name.contains("drop_in_place")) {
                    let region = self.val(p).view.clone();
                    self.emit(Op::Write { value: p, region }, span);
                }
                self.unknown(span)
            }
            Sem::Release(how, n) => {
                if let Some(v) = mem(self, nth(n)) {
                    let how = match how {
                        ReleaseHow::Drop => ReleaseKind::Drop,
                        ReleaseHow::Dealloc => ReleaseKind::Dealloc,
                        ReleaseHow::BoxFromRaw => ReleaseKind::BoxFromRaw,
                        ReleaseHow::Function => ReleaseKind::Function(name.to_string()),
                    };
                    let reclaim = how == ReleaseKind::BoxFromRaw;
                    self.emit(Op::Release { value: v, how }, span);
                    if reclaim {
                        // The box owns the memory again and frees it when dropped.
                        return self.derive_view(v, ViewOp::Whole, span);
                    }
                }
                self.unknown(span)
            }
            Sem::Leak(n) => match mem(self, nth(n)) {
                Some(v) => {
                    self.emit(
                        Op::Escape {
                            value: v,
                            how: EscapeKind::Leaked(name.to_string()),
                        },
                        span,
                    );
                    let out = self.derive_view(v, ViewOp::Whole, span);
                    if name.contains("into_raw") {
                        let root = self.val(v).kind.root();
                        self.val_mut(out).kind = ValueKind::RawPtr(root);
                        if let Some(r) = root.and_then(|r| self.root_mut(r)) {
                            r.released_by = ReleasedBy::BoxFromRaw;
                        }
                    }
                    out
                }
                None => self.unknown(span),
            },
            Sem::StoreArg(n) => {
                if let Some(v) = mem(self, nth(n)) {
                    self.emit(
                        Op::Escape {
                            value: v,
                            how: EscapeKind::Stored,
                        },
                        span,
                    );
                }
                if let Some(r) = mem(self, nth(0)) {
                    self.emit(
                        Op::Write {
                            value: r,
                            region: None,
                        },
                        span,
                    );
                }
                self.unknown(span)
            }
            Sem::Par(kind) => self.par_source(kind, name, nth(0), &all[1.min(all.len())..], span),
            Sem::ZipFrom => self.zip_from(&all, span),
            Sem::RequiresGrad => match mem(self, nth(0)) {
                Some(v) => {
                    let on = !matches!(
                        nth(1)
                            .and_then(|b| self.val(b).int.clone())
                            .and_then(|e| e.as_const()),
                        Some(0)
                    );
                    self.emit(Op::RequiresGrad { value: v, on }, span);
                    if let Some(r) = self.val(v).kind.root().and_then(|r| self.root_mut(r)) {
                        r.requires_grad |= on;
                    }
                    self.derive_view(v, ViewOp::Whole, span)
                }
                None => self.unknown(span),
            },
            Sem::Read => {
                if METADATA_METHODS.contains(&name) {
                    return self.metadata(name, nth(0), span);
                }
                if let Some(v) = mem(self, nth(0)) {
                    self.emit(
                        Op::Read {
                            value: v,
                            region: None,
                        },
                        span,
                    );
                }
                self.call_closure_args(args, span);
                self.scalar(None, span)
            }
            Sem::Join | Sem::Scope | Sem::ThreadSpawn | Sem::NoGrad | Sem::Spawn => {
                self.unknown_call(name.to_string(), &all, span)
            }
        }
    }

    /// `len()`, `dim()`, `shape()` of a value with a known geometry.
    fn metadata(&mut self, name: &str, v: Option<ValueId>, span: Span) -> ValueId {
        let lens: Option<Vec<Expr>> = v.and_then(|v| self.val(v).view.as_ref()).map(|w| w.shape());
        match (name, lens) {
            ("len" | "numel", Some(lens)) => {
                let total = lens.iter().fold(Expr::int(1), |acc, l| &acc * l);
                self.scalar(Some(total), span)
            }
            // ndarray's matrix sizes.
            ("nrows", Some(lens)) if lens.len() == 2 => self.scalar(lens.first().cloned(), span),
            ("ncols", Some(lens)) if lens.len() == 2 => self.scalar(lens.get(1).cloned(), span),
            ("dim" | "shape" | "size" | "raw_dim", Some(lens)) => {
                let parts: Vec<ValueId> = lens
                    .into_iter()
                    .map(|l| self.scalar(Some(l), span))
                    .collect();
                if parts.len() == 1 && name == "dim" {
                    return parts[0];
                }
                self.tuple_value(parts, span)
            }
            _ => self.scalar(None, span),
        }
    }

    /// Closures handed to a serial API run during the call.
    fn call_closure_args(&mut self, args: &[Arg], span: Span) {
        for a in args {
            if let ValueKind::Closure(b) = self.val(a.value).kind {
                self.emit(
                    Op::Call {
                        dst: None,
                        callee: Callee::Closure(b),
                        args: Vec::new(),
                    },
                    span,
                );
            }
        }
    }

    fn view_from_raw(
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
        let v = self.derive_view(p, how, span);
        let root = self.val(p).kind.root();
        if let Some(r) = root {
            self.val_mut(v).kind = ValueKind::View(r);
        }
        self.val_mut(v).ty = if shape.is_some() {
            TyClass::ArrayView
        } else {
            TyClass::Slice
        };
        v
    }

    /// The integers of a shape argument: a tuple/array of sizes or a single size.
    pub(crate) fn int_list(&self, v: ValueId) -> Option<Vec<Expr>> {
        match self.tuples.get(&v) {
            Some(parts) => parts.iter().map(|&p| self.val(p).int.clone()).collect(),
            None => self.val(v).int.clone().map(|i| vec![i]),
        }
    }

    fn ctor_shape(
        &self,
        ctor: Ctor,
        all: &[Arg],
        path_ty: TyClass,
    ) -> (Option<Vec<Expr>>, u32, TyClass) {
        let arg = |n: usize| all.get(n).map(|a| a.value);
        match ctor {
            Ctor::Shape(n) => (arg(n).and_then(|v| self.int_list(v)), 4, path_ty),
            Ctor::Len(n) => (
                arg(n)
                    .and_then(|v| self.val(v).int.clone())
                    .map(|l| vec![l]),
                4,
                TyClass::Vec,
            ),
            Ctor::Like(n) => match arg(n) {
                Some(v) => {
                    let val = self.val(v);
                    let shape = val.view.as_ref().map(|w| w.shape());
                    let bytes = val.view.as_ref().map_or(4, |w| w.elem_bytes);
                    let ty = match val.ty {
                        TyClass::ArrayView => TyClass::Array,
                        TyClass::Slice => TyClass::Vec,
                        t => t,
                    };
                    (shape, bytes, ty)
                }
                None => (None, 4, path_ty),
            },
            Ctor::Literal(n) => {
                let len = arg(n)
                    .and_then(|v| self.tuples.get(&v))
                    .map(|p| vec![Expr::int(p.len() as i64)]);
                (len, 8, TyClass::Array)
            }
            Ctor::Unknown => (None, 4, path_ty),
        }
    }

    /// A view method of a model: computes the view op from the arguments.
    fn model_view(&mut self, kind: ViewKind, src: ValueId, args: &[Arg], span: Span) -> ValueId {
        let int = |l: &Self, k: usize| args.get(k).and_then(|a| l.val(a.value).int.clone());
        let axis_arg = |l: &Self, k: usize| {
            int(l, k)
                .and_then(|e| e.as_const())
                .and_then(|c| usize::try_from(c).ok())
        };
        let how = match kind {
            ViewKind::Whole => ViewOp::Whole,
            ViewKind::SliceMacro => match args
                .first()
                .and_then(|a| self.slice_specs.get(&a.value))
                .cloned()
            {
                Some(specs) => ViewOp::Slice(specs),
                None => ViewOp::Opaque("slice".into()),
            },
            ViewKind::Narrow => match (axis_arg(self, 0), int(self, 1), int(self, 2)) {
                (Some(axis), Some(start), Some(len)) => {
                    slice_on_axis(axis, Some(start.clone()), Some(&start + &len), Expr::int(1))
                }
                _ => ViewOp::Opaque("narrow".into()),
            },
            ViewKind::TchSlice => match (axis_arg(self, 0), int(self, 3)) {
                (Some(axis), Some(step)) => slice_on_axis(axis, int(self, 1), int(self, 2), step),
                _ => ViewOp::Opaque("slice".into()),
            },
            ViewKind::Transpose => ViewOp::Transpose,
            ViewKind::TransposeDims => match (
                axis_arg(self, 0),
                axis_arg(self, 1),
                self.val(src).view.as_ref().map(|v| v.ndim()),
            ) {
                (Some(a), Some(b), Some(n)) if a < n && b < n => {
                    let mut order: Vec<usize> = (0..n).collect();
                    order.swap(a, b);
                    ViewOp::Permute(order)
                }
                _ => ViewOp::Opaque("transpose".into()),
            },
            ViewKind::Permute => match args.first().and_then(|a| self.int_list(a.value)) {
                Some(list) => match list
                    .iter()
                    .map(|e| e.as_const().and_then(|c| usize::try_from(c).ok()))
                    .collect()
                {
                    Some(order) => ViewOp::Permute(order),
                    None => ViewOp::Opaque("permute".into()),
                },
                None => ViewOp::Opaque("permute".into()),
            },
            ViewKind::Broadcast => match args.first().and_then(|a| self.int_list(a.value)) {
                Some(shape) => ViewOp::Broadcast(shape),
                None => ViewOp::Opaque("broadcast".into()),
            },
            ViewKind::Reshape => match args.first().and_then(|a| self.int_list(a.value)) {
                Some(shape) => ViewOp::Reshape(shape),
                None => ViewOp::Opaque("reshape".into()),
            },
            ViewKind::Diag => ViewOp::Diag,
            ViewKind::IndexAxis(fixed) => {
                let (axis, idx) = match fixed {
                    Some(axis) => (Some(axis), int(self, 0)),
                    None => (self.axis_of(args.first()), int(self, 1)),
                };
                match (axis, idx) {
                    (Some(axis), Some(i)) => ViewOp::Iter {
                        axis,
                        chunk: None,
                        index: i,
                    },
                    _ => ViewOp::Opaque("index_axis".into()),
                }
            }
            ViewKind::SplitAt => {
                let (axis, at) = if args.len() >= 2 {
                    (self.axis_of(args.first()), int(self, 1))
                } else {
                    (Some(0), int(self, 0))
                };
                let (Some(axis), Some(at)) = (axis, at) else {
                    let a = self.derive_view(src, ViewOp::Opaque("split_at".into()), span);
                    let b = self.derive_view(src, ViewOp::Opaque("split_at".into()), span);
                    return self.tuple_value(vec![a, b], span);
                };
                let a = self.derive_view(
                    src,
                    ViewOp::Split {
                        axis,
                        at: at.clone(),
                        second: false,
                    },
                    span,
                );
                let b = self.derive_view(
                    src,
                    ViewOp::Split {
                        axis,
                        at,
                        second: true,
                    },
                    span,
                );
                return self.tuple_value(vec![a, b], span);
            }
            ViewKind::Chunks | ViewKind::AxisIter => {
                let (axis, chunk) = match (kind, args.len()) {
                    (ViewKind::Chunks, 1) => (Some(0), int(self, 0)),
                    (ViewKind::Chunks, _) => (self.axis_of(args.first()), int(self, 1)),
                    (_, 0) => (Some(0), None),
                    _ => (self.axis_of(args.first()), None),
                };
                // A chunk size not known is still one size for all chunks.
                let chunk = match (kind, chunk) {
                    (ViewKind::Chunks, None) => Some(Expr::sym(&self.fresh_symbol("chunk"))),
                    (_, c) => c,
                };
                let v = self.derive_view(src, ViewOp::Whole, span);
                if let Some(axis) = axis {
                    if kind == ViewKind::AxisIter || chunk.is_some() {
                        self.iters.insert(
                            v,
                            IterInfo {
                                sources: vec![super::IterSource {
                                    value: v,
                                    axis,
                                    chunk,
                                }],
                                ..IterInfo::default()
                            },
                        );
                    }
                }
                return v;
            }
            ViewKind::Other => ViewOp::Opaque("view".into()),
        };
        self.derive_view(src, how, span)
    }

    /// The axis an `Axis(k)` argument names.
    fn axis_of(&self, a: Option<&Arg>) -> Option<usize> {
        let v = a?.value;
        self.val(v)
            .int
            .as_ref()?
            .as_const()
            .and_then(|c| usize::try_from(c).ok())
    }
}

/// Methods whose result is their receiver as far as memory is concerned.
const TRANSPARENT_METHODS: &[&str] = &[
    "unwrap",
    "expect",
    "unwrap_unchecked",
    "into_iter",
    "copied",
    "cloned",
    "by_ref",
    "as_deref",
    "as_deref_mut",
];

/// Methods that read a buffer's metadata (length, shape), not its elements.
const METADATA_METHODS: &[&str] = &[
    "len", "is_empty", "shape", "dim", "strides", "raw_dim", "ndim", "size", "numel", "nrows",
    "ncols",
];

fn slice_on_axis(axis: usize, start: Option<Expr>, end: Option<Expr>, step: Expr) -> ViewOp {
    let mut specs: Vec<crate::ir::SliceSpec> = (0..axis)
        .map(|_| crate::ir::SliceSpec::Range {
            start: None,
            end: None,
            step: Expr::int(1),
        })
        .collect();
    specs.push(crate::ir::SliceSpec::Range { start, end, step });
    ViewOp::Slice(specs)
}

/// Floats, `bool` and integers narrower than an address: casting to them keeps no
/// provenance.
fn is_numeric_value_type(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    p.path.get_ident().is_some_and(|i| {
        matches!(
            i.to_string().as_str(),
            "f32" | "f64" | "bool" | "i8" | "i16" | "i32" | "u8" | "u16" | "u32"
        )
    })
}

/// `ptr::null_mut()`, `std::ptr::null()`, `null_mut::<T>()`.
fn is_null_pointer_call(e: &syn::Expr) -> bool {
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
            .is_some_and(|s| s.ident == "null_mut" || s.ident == "null")
}

fn op_text(op: &syn::BinOp) -> &'static str {
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

/// Element bytes written in a path's generics (`Array2::<f64>::zeros`).
fn path_elem_bytes(path: &syn::Path) -> Option<u32> {
    path.segments.iter().find_map(|s| match &s.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => super::ty::elem_bytes_of_type(t),
            _ => None,
        }),
        _ => None,
    })
}

/// The class a constructor path gives its result (`Array2::zeros` → array).
fn path_class(path: &[String]) -> TyClass {
    let ty = path
        .iter()
        .rev()
        .skip(1)
        .map(|s| models::class_of_type_name(s))
        .find(|c| *c != TyClass::Unknown);
    match ty {
        Some(TyClass::Shared) => TyClass::Shared,
        Some(c) => c,
        None if path.first().is_some_and(|s| s == "ndarray") || path.len() == 1 => TyClass::Array,
        None => TyClass::Unknown,
    }
}

/// Bytes of a literal's type suffix (`0.0f32` → 4); unsuffixed floats are `f64`.
pub(crate) fn literal_bytes(e: &syn::Expr) -> Option<u32> {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Float(f) => Some(super::ty::scalar_bytes(f.suffix()).unwrap_or(8)),
            syn::Lit::Int(i) => Some(super::ty::scalar_bytes(i.suffix()).unwrap_or(4)),
            syn::Lit::Bool(_) => Some(1),
            _ => None,
        },
        syn::Expr::Unary(u) => literal_bytes(&u.expr),
        syn::Expr::Cast(c) => super::ty::elem_bytes_of_type(&c.ty),
        _ => None,
    }
}

/// The first token of an expression, looking down the left spine a bounded distance.
pub(crate) fn first_token(e: &syn::Expr, depth: u32) -> proc_macro2::Span {
    if depth > 32 {
        return last_token(e);
    }
    let d = depth + 1;
    match e {
        syn::Expr::MethodCall(m) => first_token(&m.receiver, d),
        syn::Expr::Call(c) => first_token(&c.func, d),
        syn::Expr::Binary(b) => first_token(&b.left, d),
        syn::Expr::Assign(a) => first_token(&a.left, d),
        syn::Expr::Index(i) => first_token(&i.expr, d),
        syn::Expr::Field(f) => first_token(&f.base, d),
        syn::Expr::Try(t) => first_token(&t.expr, d),
        syn::Expr::Cast(c) => first_token(&c.expr, d),
        syn::Expr::Await(a) => first_token(&a.base, d),
        syn::Expr::Range(r) => match &r.start {
            Some(s) => first_token(s, d),
            None => last_token(e),
        },
        syn::Expr::Path(p) => p
            .path
            .segments
            .first()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        syn::Expr::Lit(l) => l.lit.span(),
        syn::Expr::Unary(u) => match u.op {
            syn::UnOp::Deref(t) => t.span,
            syn::UnOp::Not(t) => t.span,
            syn::UnOp::Neg(t) => t.span,
            _ => first_token(&u.expr, d),
        },
        syn::Expr::Reference(r) => r.and_token.span,
        syn::Expr::Paren(p) => p.paren_token.span.open(),
        syn::Expr::Tuple(t) => t.paren_token.span.open(),
        syn::Expr::Array(a) => a.bracket_token.span.open(),
        syn::Expr::Block(b) => b.block.brace_token.span.open(),
        syn::Expr::Unsafe(u) => u.unsafe_token.span,
        syn::Expr::If(i) => i.if_token.span,
        syn::Expr::Match(m) => m.match_token.span,
        syn::Expr::ForLoop(f) => f.for_token.span,
        syn::Expr::While(w) => w.while_token.span,
        syn::Expr::Loop(l) => l.loop_token.span,
        syn::Expr::Return(r) => r.return_token.span,
        syn::Expr::Break(b) => b.break_token.span,
        syn::Expr::Continue(c) => c.continue_token.span,
        syn::Expr::Closure(c) => c.or1_token.span,
        syn::Expr::Macro(m) => m
            .mac
            .path
            .segments
            .first()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        syn::Expr::Struct(s) => s
            .path
            .segments
            .first()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        syn::Expr::Let(l) => l.let_token.span,
        _ => last_token(e),
    }
}

/// The last token of an expression (its closing delimiter, method name or operand).
fn last_token(e: &syn::Expr) -> proc_macro2::Span {
    match e {
        syn::Expr::MethodCall(m) => m.paren_token.span.close(),
        syn::Expr::Call(c) => c.paren_token.span.close(),
        syn::Expr::Index(i) => i.bracket_token.span.close(),
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => n.span(),
            syn::Member::Unnamed(i) => i.span,
        },
        syn::Expr::Try(t) => t.question_token.span,
        syn::Expr::Path(p) => p
            .path
            .segments
            .last()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        syn::Expr::Lit(l) => l.lit.span(),
        syn::Expr::Paren(p) => p.paren_token.span.close(),
        syn::Expr::Tuple(t) => t.paren_token.span.close(),
        syn::Expr::Array(a) => a.bracket_token.span.close(),
        syn::Expr::Block(b) => b.block.brace_token.span.close(),
        syn::Expr::Unsafe(u) => u.block.brace_token.span.close(),
        syn::Expr::If(i) => match &i.else_branch {
            Some((_, e)) => last_token_shallow(e),
            None => i.then_branch.brace_token.span.close(),
        },
        syn::Expr::Match(m) => m.brace_token.span.close(),
        syn::Expr::ForLoop(f) => f.body.brace_token.span.close(),
        syn::Expr::While(w) => w.body.brace_token.span.close(),
        syn::Expr::Loop(l) => l.body.brace_token.span.close(),
        syn::Expr::Macro(m) => match &m.mac.delimiter {
            syn::MacroDelimiter::Paren(p) => p.span.close(),
            syn::MacroDelimiter::Brace(b) => b.span.close(),
            syn::MacroDelimiter::Bracket(b) => b.span.close(),
        },
        syn::Expr::Struct(s) => s.brace_token.span.close(),
        syn::Expr::Repeat(r) => r.bracket_token.span.close(),
        syn::Expr::Binary(b) => last_token_shallow(&b.right),
        syn::Expr::Assign(a) => last_token_shallow(&a.right),
        syn::Expr::Unary(u) => last_token_shallow(&u.expr),
        syn::Expr::Reference(r) => last_token_shallow(&r.expr),
        syn::Expr::Cast(c) => match &*c.ty {
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .map_or(c.as_token.span, |s| s.ident.span()),
            _ => c.as_token.span,
        },
        syn::Expr::Return(r) => r.return_token.span,
        syn::Expr::Break(b) => b.break_token.span,
        syn::Expr::Continue(c) => c.continue_token.span,
        syn::Expr::Closure(c) => c.or2_token.span,
        syn::Expr::Range(r) => match &r.end {
            Some(e) => last_token_shallow(e),
            None => match r.limits {
                syn::RangeLimits::HalfOpen(t) => t.spans[1],
                syn::RangeLimits::Closed(t) => t.spans[2],
            },
        },
        syn::Expr::Await(a) => a.await_token.span,
        syn::Expr::Let(l) => last_token_shallow(&l.expr),
        _ => proc_macro2::Span::call_site(),
    }
}

/// `last_token` one level down, without recursing further (operands of operands keep
/// the span to the operator's right operand's own last token).
fn last_token_shallow(e: &syn::Expr) -> proc_macro2::Span {
    match e {
        syn::Expr::Binary(b) => match &*b.right {
            syn::Expr::Binary(_) | syn::Expr::Assign(_) => proc_macro2::Span::call_site(),
            syn::Expr::Unary(syn::ExprUnary { expr, .. })
            | syn::Expr::Reference(syn::ExprReference { expr, .. }) => last_token_leaf(expr),
            r => last_token(r),
        },
        syn::Expr::Unary(syn::ExprUnary { expr, .. })
        | syn::Expr::Reference(syn::ExprReference { expr, .. }) => last_token_leaf(expr),
        syn::Expr::Assign(_) | syn::Expr::Let(_) | syn::Expr::If(_) => {
            proc_macro2::Span::call_site()
        }
        other => last_token(other),
    }
}

/// The last token of the operand of `&x` / `*x` / `-x` (`&a.t()` in `b += &a.t()`),
/// without recursing into further operators.
fn last_token_leaf(e: &syn::Expr) -> proc_macro2::Span {
    match e {
        syn::Expr::Binary(_)
        | syn::Expr::Assign(_)
        | syn::Expr::Unary(_)
        | syn::Expr::Reference(_)
        | syn::Expr::Let(_)
        | syn::Expr::If(_) => proc_macro2::Span::call_site(),
        other => last_token(other),
    }
}

/// The parameter (the receiver first) that `sig` takes by value and whose type it
/// returns: a builder-style method (`fn filled(mut self, x: T) -> Self`) gives back the
/// owner it was handed.
pub(crate) fn param_handed_back(sig: &syn::Signature, self_ty: Option<&str>) -> Option<usize> {
    let syn::ReturnType::Type(_, ret) = &sig.output else {
        return None;
    };
    let ret = owned_type_name(ret, self_ty)?;
    sig.inputs.iter().position(|input| match input {
        syn::FnArg::Receiver(r) => {
            r.reference.is_none() && owned_type_name(&r.ty, self_ty).as_ref() == Some(&ret)
        }
        syn::FnArg::Typed(t) => owned_type_name(&t.ty, self_ty).as_ref() == Some(&ret),
    })
}

/// The name of an owned path type, with `Self` spelled as the `impl`'s type; `None` for
/// references, pointers and anything that is not a plain path.
pub(crate) fn owned_type_name(ty: &syn::Type, self_ty: Option<&str>) -> Option<String> {
    match ty {
        syn::Type::Paren(p) => owned_type_name(&p.elem, self_ty),
        syn::Type::Group(g) => owned_type_name(&g.elem, self_ty),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?.ident.to_string();
            if last == "Self" {
                self_ty.map(str::to_string)
            } else {
                Some(last)
            }
        }
        _ => None,
    }
}
