//! Lowering of control flow: blocks with labels, `if`, `match`, loops and what one
//! iteration of a loop binds.

use super::{pat_ident, LoopCtx, Lowerer};
use crate::ir::{Op, ReturnKind, Terminator, ValueId, ValueKind, ViewOp};
use crate::oracle::Expr;
use crate::source::Span;

/// What a loop's header tests: nothing (`loop`), a condition (`while`), or whether the
/// iterator still has an item, bound to a pattern (`for`).
#[derive(Clone, Copy)]
pub(crate) enum LoopHead<'a> {
    Always,
    While(&'a syn::Expr),
    For(&'a syn::Pat, ValueId),
}

impl Lowerer<'_, '_, '_> {
    /// Lowers `break` with its label and value.
    pub(crate) fn break_expr(&mut self, b: &syn::ExprBreak, span: Span) -> ValueId {
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

    /// Lowers `continue` with its label.
    pub(crate) fn continue_expr(&mut self, c: &syn::ExprContinue, span: Span) -> ValueId {
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

    /// Lowers `return`: the value escapes to the caller and every scope drops.
    pub(crate) fn return_expr(&mut self, r: &syn::ExprReturn, span: Span) -> ValueId {
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

    /// Lowers `e?`: the error path returns, dropping every scope.
    pub(crate) fn try_expr(&mut self, t: &syn::ExprTry) -> ValueId {
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
        // On the error path there is no value: the memory it would hold (an
        // allocation that failed, `NonNull::new(p)?`) does not exist there.
        if self.val(v).kind.is_memory() {
            self.emit(Op::AssumeNull { value: v }, q);
        }
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

    pub(crate) fn labelled_block(&mut self, b: &syn::ExprBlock, span: Span) -> ValueId {
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

    pub(crate) fn if_expr(&mut self, i: &syn::ExprIf, span: Span) -> ValueId {
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
        // What the condition says holds for the writes of the `then` branch.
        let guard = self.conditions.get(&cond).cloned().unwrap_or_default();
        let depth = self.guard_stack.len();
        self.guard_stack.extend(guard);
        let tv = self.block_expr(&i.then_branch);
        self.guard_stack.truncate(depth);
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
    pub(crate) fn join_arm(
        &mut self,
        result: ValueId,
        v: ValueId,
        join: crate::ir::BlockId,
        span: Span,
    ) {
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

    pub(crate) fn match_expr(&mut self, m: &syn::ExprMatch, span: Span) -> ValueId {
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
            // A `None` or `Err(..)` arm runs where the value is not there.
            if super::variant_presence(&arm.pat) == Some(false) && self.val(scrut).kind.is_memory()
            {
                self.emit(Op::AssumeNull { value: scrut }, span);
            }
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

    pub(crate) fn find_loop(&self, label: Option<&str>) -> Option<LoopCtx> {
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
    pub(crate) fn loop_of(
        &mut self,
        label: Option<String>,
        head: LoopHead<'_>,
        body: &syn::Block,
        claim_result: Option<Span>,
        span: Span,
    ) -> ValueId {
        let header = self.new_block(span);
        self.goto(header, span);
        let exit = self.new_block(span);
        let result = self.unknown(span);
        self.push_scope();
        let mut iteration = None;
        if let LoopHead::While(c) = head {
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
        } else if let LoopHead::For(pat, iter) = head {
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
                if let Some((start, _)) = self.iters.get(&iter).and_then(|i| i.range.clone()) {
                    self.loop_starts.push((sym.clone(), start));
                }
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
        let value = self.block_expr(body);
        // What each iteration hands out as a `&mut` (the items of a producer piece).
        if let Some(at) = claim_result {
            self.claim(value, at);
        }
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
}
