//! Parallel regions: rayon `join`/`scope` and parallel iterators, `std::thread`
//! spawns and scopes, `Zip::par_for_each` and `par_azip!`.

use syn::parse::{ParseStream, Parser};

use super::call::Arg;
use super::control::LoopHead;
use super::{IterInfo, IterSource, Lowerer, ScopeFrame};
use crate::ir::{
    BodyId, Callee, Iteration, Op, ParallelKind, ParallelRegion, ReleasedBy, Stmt, Task, TyClass,
    ValueId, ValueKind, ViewOp,
};
use crate::models::{self, Adapter, ForEach, ParKind, Sem};
use crate::oracle::Expr;
use crate::source::Span;
use crate::syntax::built_fields::FieldSource;

impl Lowerer<'_, '_, '_> {
    /// The body a closure argument runs: a closure literal lowered here with
    /// `params`, or a closure value bound earlier.
    fn task_body(&mut self, e: &syn::Expr, params: &[ValueId]) -> Option<BodyId> {
        match e {
            syn::Expr::Closure(c) => Some(self.closure_body(c, params)),
            syn::Expr::Paren(p) => self.task_body(&p.expr, params),
            other => {
                let v = self.expr(other);
                match self.val(v).kind {
                    ValueKind::Closure(b) => Some(b),
                    _ => None,
                }
            }
        }
    }

    /// The first `for` loop of the current body at or after `base` in the loop stack.
    fn loop_base_of_current_body(&self) -> usize {
        self.loops
            .iter()
            .position(|l| l.body == self.cur_body)
            .unwrap_or(self.loops.len())
    }

    /// `rayon::join`, `rayon::scope`/`thread::scope`, `thread::spawn`, `no_grad`.
    pub(crate) fn parallel_call(
        &mut self,
        sem: Sem,
        args: &[&syn::Expr],
        name: &str,
        span: Span,
    ) -> ValueId {
        match sem {
            Sem::Join => {
                let mut tasks = Vec::new();
                for a in args.iter().take(2) {
                    if let Some(body) = self.task_body(a, &[]) {
                        tasks.push(Task {
                            body,
                            iteration: None,
                            span: self.expr_span(a),
                        });
                    }
                }
                self.emit(
                    Op::Parallel(ParallelRegion {
                        kind: ParallelKind::Join,
                        tasks,
                    }),
                    span,
                );
                let (a, b) = (self.unknown(span), self.unknown(span));
                self.tuple_value(vec![a, b], span)
            }
            Sem::Scope => {
                let handle = self.new_value(
                    Some("scope".into()),
                    ValueKind::ScopeHandle,
                    TyClass::Unknown,
                    span,
                );
                self.scope_frames.push(ScopeFrame {
                    tasks: Vec::new(),
                    loop_base: self.loops.len(),
                });
                let body = args.first().and_then(|a| self.task_body(a, &[handle]));
                let frame = self.scope_frames.pop();
                let mut tasks = Vec::new();
                if let Some(body) = body {
                    // The scope's own closure runs alongside the tasks it spawns.
                    tasks.push(Task {
                        body,
                        iteration: None,
                        span,
                    });
                }
                tasks.extend(frame.map(|f| f.tasks).unwrap_or_default());
                self.emit(
                    Op::Parallel(ParallelRegion {
                        kind: ParallelKind::Scope,
                        tasks,
                    }),
                    span,
                );
                self.unknown(span)
            }
            Sem::ThreadSpawn => {
                let base = self.loop_base_of_current_body();
                let iteration = self.enclosing_iteration(base);
                if let Some(body) = args.first().and_then(|a| self.task_body(a, &[])) {
                    let task = Task {
                        body,
                        iteration,
                        span,
                    };
                    self.emit(
                        Op::Parallel(ParallelRegion {
                            kind: ParallelKind::ThreadSpawn,
                            tasks: vec![task],
                        }),
                        span,
                    );
                }
                self.unknown(span)
            }
            Sem::NoGrad => {
                if let Some(body) = args.first().and_then(|a| self.task_body(a, &[])) {
                    if let Some(b) = self.bodies.get_mut(body.0 as usize) {
                        b.no_grad = true;
                    }
                    self.emit(
                        Op::Call {
                            dst: None,
                            callee: Callee::Closure(body),
                            args: Vec::new(),
                        },
                        span,
                    );
                }
                self.unknown(span)
            }
            _ => {
                let lowered: Vec<Arg> = args
                    .iter()
                    .map(|a| Arg {
                        value: self.expr(a),
                        by_ref: matches!(a, syn::Expr::Reference(_)),
                    })
                    .collect();
                self.apply_sem(sem, name, None, &lowered, TyClass::Unknown, None, span)
            }
        }
    }

    /// `for_each` on an iterator, `par_for_each`/`par_mapv_inplace` on arrays, and
    /// `spawn` on a scope handle; `None` when the receiver is none of these.
    pub(crate) fn parallel_method(
        &mut self,
        sem: Sem,
        recv: ValueId,
        method: &str,
        args: &[&syn::Expr],
        span: Span,
    ) -> Option<ValueId> {
        match sem {
            Sem::Spawn => {
                if self.val(recv).kind != ValueKind::ScopeHandle {
                    return None;
                }
                let handle = self.new_value(
                    Some("scope".into()),
                    ValueKind::ScopeHandle,
                    TyClass::Unknown,
                    span,
                );
                let body = args.first().and_then(|a| self.task_body(a, &[handle]))?;
                let base = self.scope_frames.last().map_or(0, |f| f.loop_base);
                let iteration = self.enclosing_iteration(base);
                let task = Task {
                    body,
                    iteration,
                    span,
                };
                self.emit(
                    Op::Spawn {
                        scope: recv,
                        task: task.clone(),
                    },
                    span,
                );
                if let Some(frame) = self.scope_frames.last_mut() {
                    frame.tasks.push(task);
                }
                Some(self.unknown(span))
            }
            Sem::Par(ParKind::Consume) => {
                let info = self.iters.get(&recv).cloned()?;
                let f = args.last()?;
                let sym = self.fresh_symbol("it");
                let item = self.iteration_item(recv, &sym, span);
                let mut params: Vec<ValueId> = Vec::new();
                for a in &args[..args.len() - 1] {
                    params.push(self.expr(a));
                }
                params.push(item);
                let body = self.task_body(f, &params)?;
                self.finish_iteration(info.parallel, recv, body, sym, item, span);
                Some(self.unknown(span))
            }
            Sem::Par(ParKind::ArrayForEach(each)) => {
                let info = match self.iters.get(&recv).cloned() {
                    Some(info) => info,
                    None if self.val(recv).kind.is_memory() => {
                        let info = IterInfo {
                            sources: vec![IterSource {
                                value: recv,
                                axis: 0,
                                chunk: None,
                            }],
                            ..IterInfo::default()
                        };
                        self.iters.insert(recv, info.clone());
                        info
                    }
                    None => return None,
                };
                let f = args.first()?;
                let sym = self.fresh_symbol("it");
                let index = Expr::sym(&sym);
                let items: Vec<ValueId> = info
                    .sources
                    .iter()
                    .map(|s| {
                        self.derive_view(
                            s.value,
                            ViewOp::Iter {
                                axis: s.axis,
                                chunk: None,
                                index: index.clone(),
                            },
                            span,
                        )
                    })
                    .collect();
                let params: Vec<ValueId> = if each == ForEach::MapvInPlace {
                    vec![self.scalar(None, span)]
                } else {
                    items.clone()
                };
                let body = self.task_body(f, &params)?;
                if each != ForEach::Items {
                    if let Some(&dst) = items.first() {
                        let stmt = Stmt {
                            op: Op::InPlace {
                                dst,
                                srcs: Vec::new(),
                                method: method.to_string(),
                            },
                            span,
                        };
                        if let Some(entry) = self.bodies[body.0 as usize].blocks.first_mut() {
                            entry.stmts.insert(0, stmt);
                        }
                    }
                }
                let item = items.first().copied().unwrap_or(recv);
                self.finish_iteration(true, recv, body, sym, item, span);
                Some(self.unknown(span))
            }
            _ => None,
        }
    }

    /// Emits the op of an iteration whose body is `body`: a parallel region when the
    /// iterator is parallel, a closure call otherwise.
    fn finish_iteration(
        &mut self,
        parallel: bool,
        iter: ValueId,
        body: BodyId,
        sym: String,
        item: ValueId,
        span: Span,
    ) {
        if !parallel {
            // A serial `for_each` runs its closure once per item: a loop around it.
            if let Some(b) = self.bodies.get_mut(body.0 as usize) {
                for block in &mut b.blocks {
                    block.loop_depth += 1;
                }
            }
            self.emit(
                Op::Call {
                    dst: None,
                    callee: Callee::Closure(body),
                    args: vec![item],
                },
                span,
            );
            return;
        }
        let (lo, hi) = self
            .iteration_range(iter)
            .unwrap_or_else(|| (Expr::int(0), self.unknown_len(iter)));
        let iteration = Some(Iteration {
            symbol: sym,
            lo,
            hi,
            value: Some(item),
        });
        let task = Task {
            body,
            iteration,
            span,
        };
        self.emit(
            Op::Parallel(ParallelRegion {
                kind: ParallelKind::ParIter,
                tasks: vec![task],
            }),
            span,
        );
    }

    /// Parallel iterator sources and adapters (`par_iter_mut`, `par_chunks_mut(k)`,
    /// `into_par_iter`, `enumerate`, `zip`); serial ones keep `parallel` as it was.
    pub(crate) fn par_source(
        &mut self,
        kind: ParKind,
        name: &str,
        recv: Option<ValueId>,
        rest: &[Arg],
        span: Span,
    ) -> ValueId {
        let Some(recv) = recv else {
            return self.unknown(span);
        };
        let existing = self.iters.get(&recv).cloned();
        let info = match kind {
            ParKind::Elements => match existing {
                Some(mut info) => {
                    info.parallel = true;
                    Some(info)
                }
                None if self.val(recv).kind.is_memory() => Some(IterInfo {
                    sources: vec![IterSource {
                        value: recv,
                        axis: 0,
                        chunk: None,
                    }],
                    parallel: true,
                    ..IterInfo::default()
                }),
                // The elements of a collection nothing is known of (a `Vec` of ranges a
                // helper made): each iteration gets one, its memory unknown.
                None => Some(IterInfo {
                    parallel: true,
                    ..IterInfo::default()
                }),
            },
            ParKind::Chunks | ParKind::ColumnChunks => {
                let chunk = rest.first().and_then(|a| self.val(a.value).int.clone());
                self.val(recv).kind.is_memory().then(|| IterInfo {
                    sources: vec![IterSource {
                        value: recv,
                        axis: usize::from(kind == ParKind::ColumnChunks),
                        chunk: chunk.or_else(|| Some(Expr::sym("chunk"))),
                    }],
                    parallel: true,
                    ..IterInfo::default()
                })
            }
            ParKind::Adapter(adapter) => match existing {
                Some(mut info) => {
                    match adapter {
                        Adapter::Enumerate => info.enumerate = true,
                        Adapter::Zip => {
                            if let Some(other) = rest.first().map(|a| a.value) {
                                match self.iters.get(&other).cloned() {
                                    Some(o) => info.sources.extend(o.sources),
                                    None if self.val(other).kind.is_memory() => {
                                        info.sources.push(IterSource {
                                            value: other,
                                            axis: 0,
                                            chunk: None,
                                        })
                                    }
                                    None => {}
                                }
                            }
                        }
                        Adapter::Map | Adapter::Keep => {}
                    }
                    self.call_closure_args(rest, span);
                    Some(info)
                }
                None => {
                    if adapter == Adapter::Map && self.val(recv).kind.is_memory() {
                        // ndarray `a.map(f)`: a new array of the same shape.
                        let shape = self.val(recv).view.as_ref().map(|v| v.shape());
                        let bytes = self.val(recv).view.as_ref().map_or(4, |v| v.elem_bytes);
                        self.emit(
                            Op::Read {
                                value: recv,
                                region: None,
                            },
                            span,
                        );
                        self.call_closure_args(rest, span);
                        return self.alloc_value(
                            name.to_string(),
                            bytes,
                            shape,
                            ReleasedBy::Drop,
                            TyClass::Array,
                            span,
                        );
                    }
                    self.call_closure_args(rest, span);
                    None
                }
            },
            ParKind::Consume | ParKind::ArrayForEach(_) => {
                self.call_closure_args(rest, span);
                None
            }
        };
        let out = if self.val(recv).kind.is_memory() {
            let v = self.derive_view(recv, ViewOp::Whole, span);
            self.val_mut(v).ty = self.val(recv).ty;
            v
        } else {
            self.unknown(span)
        };
        if let Some(info) = info {
            self.iters.insert(out, info);
        }
        out
    }

    /// `Zip::from(&mut a)` and `.and(&b)`: a lock-step iteration over all sources.
    pub(crate) fn zip_from(&mut self, all: &[Arg], span: Span) -> ValueId {
        let mut info = all
            .first()
            .and_then(|a| self.iters.get(&a.value).cloned())
            .unwrap_or_default();
        let start = usize::from(
            all.first()
                .is_some_and(|a| self.iters.contains_key(&a.value)),
        );
        for a in &all[start..] {
            if self.val(a.value).kind.is_memory() {
                info.sources.push(IterSource {
                    value: a.value,
                    axis: 0,
                    chunk: None,
                });
            }
        }
        let out = self.unknown(span);
        self.iters.insert(out, info);
        out
    }

    /// `par_azip!((index i, a in &mut x, &b in &y) body)`: a lock-step iteration.
    pub(crate) fn azip_macro(&mut self, mac: &syn::Macro, parallel: bool, span: Span) -> ValueId {
        type Producer = (Option<syn::Pat>, Option<syn::Expr>);
        let parser = |input: ParseStream| -> syn::Result<(Vec<Producer>, syn::Expr)> {
            let content;
            syn::parenthesized!(content in input);
            let mut producers = Vec::new();
            while !content.is_empty() {
                if content.peek(syn::Ident)
                    && content
                        .fork()
                        .parse::<syn::Ident>()
                        .is_ok_and(|i| i == models::table::AZIP_INDEX)
                {
                    let _: syn::Ident = content.parse()?;
                    let pat = syn::Pat::parse_single(&content)?;
                    producers.push((Some(pat), None));
                } else {
                    let pat = syn::Pat::parse_single(&content)?;
                    let _: syn::Token![in] = content.parse()?;
                    let e: syn::Expr = content.parse()?;
                    producers.push((Some(pat), Some(e)));
                }
                if content.is_empty() {
                    break;
                }
                let _: syn::Token![,] = content.parse()?;
            }
            let body: syn::Expr = input.parse()?;
            Ok((producers, body))
        };
        let Ok((producers, body)) = parser.parse2(mac.tokens.clone()) else {
            return self.unknown(span);
        };
        let sym = self.fresh_symbol("it");
        let index = Expr::sym(&sym);
        let mut bindings: Vec<(syn::Pat, ValueId)> = Vec::new();
        let mut first_source = None;
        for (pat, e) in producers {
            let Some(pat) = pat else { continue };
            let item = match e {
                Some(e) => {
                    let src = self.expr(&e);
                    first_source.get_or_insert(src);
                    self.derive_view(
                        src,
                        ViewOp::Iter {
                            axis: 0,
                            chunk: None,
                            index: index.clone(),
                        },
                        span,
                    )
                }
                None => self.scalar(Some(index.clone()), span),
            };
            bindings.push((pat, item));
        }
        let body_id = self.nested_body(&bindings, &body, span);
        let item = bindings
            .first()
            .map_or_else(|| self.unknown(span), |(_, v)| *v);
        let iter = first_source.unwrap_or(item);
        if let Some(src) = first_source {
            self.iters.entry(src).or_insert_with(|| IterInfo {
                sources: vec![IterSource {
                    value: src,
                    axis: 0,
                    chunk: None,
                }],
                ..IterInfo::default()
            });
        }
        self.finish_iteration(parallel, iter, body_id, sym, item, span);
        self.unknown(span)
    }
}

/// What the pieces of a rayon producer share, while its `fold_with` is lowered.
#[derive(Clone, Debug)]
pub(crate) struct PieceCtx {
    /// Field paths of `self` with the same value in every piece: the fields every
    /// `split` of the producer keeps (see [`crate::syntax::built_fields`]).
    pub shared: Vec<Vec<String>>,
    /// The name of the folder parameter the items are handed to.
    pub folder: String,
    /// The items are `&mut` borrows (`type Item = &'a mut [T]`).
    pub yields_mut: bool,
    /// The body each piece runs.
    pub body: BodyId,
}

impl Lowerer<'_, '_, '_> {
    /// The body of a rayon producer's `fold_with`: rayon splits the producer into
    /// pieces and runs this on each of them at once, so it is lowered as a task with
    /// one instance per piece. Each piece has its own values of the fields `split`
    /// changes; the items it hands to the folder are what it gives the consumer.
    pub(crate) fn producer_pieces(&mut self, block: &syn::Block) -> ValueId {
        let span = self.span(block.brace_token.span.join());
        let shared = self.shared_piece_fields();
        if let Some(me) = self.lookup("self") {
            self.piece_paths.insert(me, Vec::new());
        }
        self.piece = Some(PieceCtx {
            shared,
            folder: self.item.params.get(1).cloned().unwrap_or_default(),
            yields_mut: self.item.yields_mut,
            body: BodyId(self.bodies.len() as u32),
        });
        let expr = syn::Expr::Block(syn::ExprBlock {
            attrs: Vec::new(),
            label: None,
            block: block.clone(),
        });
        let body = self.nested_body(&[], &expr, span);
        self.piece = None;
        let iteration = Iteration {
            symbol: self.fresh_symbol("piece"),
            lo: Expr::int(0),
            hi: Expr::sym(&self.fresh_symbol("pieces")),
            value: None,
        };
        self.emit(
            Op::Parallel(ParallelRegion {
                kind: ParallelKind::Pieces,
                tasks: vec![Task {
                    body,
                    iteration: Some(iteration),
                    span,
                }],
            }),
            span,
        );
        self.unknown(span)
    }

    /// The field paths of `self` that every `split` of this producer keeps: a field it
    /// copies (`world: self.world`), and the parts of a field that the field's own
    /// method it splits with keeps (`index` of `result: self.result.split_at(k).0`).
    fn shared_piece_fields(&self) -> Vec<Vec<String>> {
        let Some(ty) = self.item.self_ty.as_deref() else {
            return Vec::new();
        };
        let index = self.ctx.index;
        let field_type = |field: &str| {
            index
                .struct_named(ty)
                .and_then(|s| s.fields.iter().find(|f| f.name == field))
                .map(|f| f.ty_name.clone())
        };
        let mut shared: Option<Vec<Vec<String>>> = None;
        let splits = index.fns.iter().filter(|f| {
            f.self_ty.as_deref() == Some(ty)
                && f.trait_name
                    .as_deref()
                    .is_some_and(|t| models::is_producer_split(t, &f.name))
        });
        for split in splits {
            let mut kept = Vec::new();
            for (field, source) in &split.built_fields {
                match source {
                    FieldSource::Kept => kept.push(vec![field.clone()]),
                    FieldSource::Via(method) => {
                        let Some(fty) = field_type(field) else {
                            continue;
                        };
                        let candidates = index.methods_named(Some(&fty), method);
                        let [one] = candidates.as_slice() else {
                            continue;
                        };
                        let Some(m) = index
                            .fn_item(*one)
                            .filter(|m| m.self_ty.as_deref() == Some(&fty))
                        else {
                            continue;
                        };
                        for (sub, s) in &m.built_fields {
                            if *s == FieldSource::Kept {
                                kept.push(vec![field.clone(), sub.clone()]);
                            }
                        }
                    }
                    FieldSource::Changed => {}
                }
            }
            shared = Some(match shared {
                None => kept,
                Some(prev) => prev.into_iter().filter(|p| kept.contains(p)).collect(),
            });
        }
        shared.unwrap_or_default()
    }

    /// Field `member` of a producer piece's `self` (or of a field of it at `path`),
    /// whose value is `v`: the same in every piece when `split` keeps it; otherwise
    /// each piece has its own, so its integers are values the piece computes at run
    /// time, and where its memory lies is not known.
    pub(crate) fn piece_field(&mut self, v: ValueId, mut path: Vec<String>, member: String) {
        let Some(piece) = self.piece.clone() else {
            return;
        };
        path.push(member);
        if piece.shared.iter().any(|s| path.starts_with(s)) {
            return;
        }
        let partly_shared = piece.shared.iter().any(|s| s.starts_with(&path));
        self.piece_paths.insert(v, path);
        if partly_shared {
            return;
        }
        if self.val(v).kind.is_memory() {
            self.val_mut(v).view = None;
        } else if let Some(int) = self.val(v).int.clone() {
            for s in int.symbols() {
                if !self
                    .run_values
                    .iter()
                    .any(|(b, x)| *b == piece.body && *x == s)
                {
                    self.run_values.push((piece.body, s));
                }
            }
        }
    }

    /// `folder.consume_iter(items)` and `folder.consume(item)` in a producer piece: the
    /// items handed to the consumer. A `&mut` item is a claim on what it borrows.
    pub(crate) fn folder_call(&mut self, m: &syn::ExprMethodCall, span: Span) -> Option<ValueId> {
        let piece = self.piece.as_ref()?;
        let syn::Expr::Path(p) = &*m.receiver else {
            return None;
        };
        if !p.path.is_ident(&piece.folder) {
            return None;
        }
        let every = models::folder_takes(&m.method.to_string())?;
        let claim = piece.yields_mut;
        let [arg] = m.args.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        self.expr(&m.receiver);
        if !every {
            let item = self.expr(arg);
            if claim {
                self.claim(item, self.expr_span(arg));
            }
            return Some(self.unknown(span));
        }
        // `items.map(|x| make(x))`: one iteration per item, binding the closure's
        // parameter, whose result is handed out.
        let mapped = match arg {
            syn::Expr::MethodCall(inner)
                if models::maps_items(&inner.method.to_string()) && inner.args.len() == 1 =>
            {
                match &inner.args[0] {
                    syn::Expr::Closure(c) if c.inputs.len() == 1 => Some((&inner.receiver, c)),
                    _ => None,
                }
            }
            _ => None,
        };
        let (source, pat, result): (&syn::Expr, syn::Pat, syn::Expr) = match mapped {
            Some((source, c)) => (source, c.inputs[0].clone(), (*c.body).clone()),
            None => {
                let item: syn::Ident = syn::parse_quote!(item);
                (arg, syn::parse_quote!(#item), syn::parse_quote!(#item))
            }
        };
        let items = self.expr(source);
        let result_span = self.expr_span(&result);
        let block = syn::Block {
            brace_token: Default::default(),
            stmts: vec![syn::Stmt::Expr(result, None)],
        };
        let tail = claim.then_some(result_span);
        self.loop_of(None, LoopHead::For(&pat, items), &block, tail, span);
        Some(self.unknown(span))
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{FnIr, Op, ParallelKind};
    use crate::models::THREAD_COUNT;
    use crate::oracle::Expr;

    fn function(text: &str) -> FnIr {
        let (ir, _) = crate::program::analyze_text(text);
        ir.functions().last().cloned().expect("a function")
    }

    fn par_iter_hi(f: &FnIr) -> Expr {
        f.stmts()
            .find_map(|(_, _, s)| match &s.op {
                Op::Parallel(r) if r.kind == ParallelKind::ParIter => {
                    r.tasks.first()?.iteration.as_ref().map(|it| it.hi.clone())
                }
                _ => None,
            })
            .expect("a parallel iteration")
    }

    #[test]
    fn per_thread_slots_are_counted_in_worker_threads() {
        let f = function(
            "fn k(pts: &[f32]) {
                 let mut hits = vec![0u64; rayon::current_num_threads()];
                 hits.par_iter_mut().for_each(|h| *h += 1);
             }",
        );
        assert_eq!(par_iter_hi(&f), Expr::sym(THREAD_COUNT));
    }

    #[test]
    fn a_zip_stops_with_its_shortest_source() {
        let f = function(
            "fn k(a: &mut [f32], b: &[f32]) {
                 a.par_iter_mut().zip(b.par_iter()).for_each(|(x, y)| *x = *y);
             }",
        );
        let (a, b) = (Expr::sym("a.len"), Expr::sym("b.len"));
        assert_eq!(par_iter_hi(&f), a.minimum(&b));
    }

    #[test]
    fn vec_elements_keep_the_type_their_expression_names() {
        let types = |text: &str| -> Vec<Option<String>> {
            function(text)
                .roots
                .iter()
                .map(|r| r.elem_type.clone())
                .collect()
        };
        assert!(types("fn k(n: usize) { let v = vec![0u64; n]; }").contains(&Some("u64".into())));
        assert!(
            types("fn k(n: usize) { let v = vec![CachePadded::new(0u64); n]; }")
                .contains(&Some("CachePadded".into()))
        );
        assert!(!types("fn k(n: usize) { let v = vec![0; n]; }")
            .iter()
            .any(Option::is_some));
    }

    fn named<'a>(ir: &'a crate::program::CrateIr, name: &str) -> &'a FnIr {
        ir.functions()
            .find(|f| f.name == name)
            .expect("the function")
    }

    const PRODUCER: &str = "
        struct Cells(*mut Vec<f32>);
        #[derive(Clone)]
        struct Picked<'a> { ids: &'a [usize], span: std::ops::Range<usize> }
        impl<'a> Picked<'a> {
            fn halves(self) -> (Self, Self) {
                let mid = self.span.start + 1;
                (Picked { ids: self.ids, span: self.span.start..mid },
                 Picked { ids: self.ids, span: mid..self.span.end })
            }
        }
        struct P<'a> { cells: Cells, picked: Picked<'a>, len: usize }
        impl<'a> UnindexedProducer for P<'a> {
            type Item = &'a mut Vec<f32>;
            fn split(self) -> (Self, Option<Self>) {
                let (a, b) = self.picked.halves();
                let cells = self.cells;
                (P { cells, picked: a, len: self.len / 2 }, Some(P { cells, picked: b, len: 0 }))
            }
            fn fold_with<F: Folder<Self::Item>>(self, folder: F) -> F {
                let cells = self.cells;
                let n = self.len;
                folder.consume_iter(self.picked.ids.iter().map(move |&v| unsafe { &mut *cells.0.add(v) }))
            }
        }";

    #[test]
    fn a_producer_fold_runs_once_per_piece_and_claims_what_it_hands_out() {
        let (ir, _) = crate::program::analyze_text(PRODUCER);
        let f = named(&ir, "fold_with");
        let region = f
            .stmts()
            .find_map(|(_, _, s)| match &s.op {
                Op::Parallel(r) => Some(r.clone()),
                _ => None,
            })
            .expect("a parallel region");
        assert_eq!(region.kind, ParallelKind::Pieces);
        let claims: Vec<_> = f
            .stmts()
            .filter_map(|(_, _, s)| match &s.op {
                Op::Claim { region, .. } => region.clone(),
                _ => None,
            })
            .collect();
        assert!(!claims.is_empty());
        // The element claimed is the number read from the shared list.
        let (read, at) = f.element_values.first().expect("an element value");
        assert!(
            claims.iter().all(|c| c.offset == Expr::sym(read)),
            "{claims:?}"
        );
        assert_eq!(f.roots[at.root.0 as usize].name, "self.picked.ids");
    }

    #[test]
    fn fields_split_changes_are_another_value_in_each_piece() {
        let (ir, _) = crate::program::analyze_text(PRODUCER);
        let f = named(&ir, "fold_with");
        // `len` is halved by `split`: each piece's own, a value of the piece.
        assert!(
            f.run_values.iter().any(|(_, s)| s.starts_with("self.len")),
            "{:?}",
            f.run_values
        );
        // `ids` is kept by the split of the field it lives in: one list for all.
        assert!(!f.run_values.iter().any(|(_, s)| s.contains("ids")));
    }
}
