//! Parallel regions (rayon `join`/`scope`/parallel iterators, `std::thread`,
//! `par_azip!`) and the modelled macros (`s![]`, `vec![]`, `par_azip!`, assertions and
//! formatting). Everything else written as a macro is opaque.

use syn::parse::{ParseStream, Parser};

use super::expr::Arg;
use super::slice_macro::{parse_slice_macro, SliceEntry};
use super::{IterInfo, IterSource, Lowerer, ScopeFrame};
use crate::ir::{
    BodyId, Callee, Iteration, Op, ParallelKind, ParallelRegion, ReleasedBy, SliceSpec, Stmt, Task,
    Terminator, TyClass, ValueId, ValueKind, ViewOp,
};
use crate::models::{ParKind, Sem};
use crate::oracle::Expr;
use crate::source::Span;

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
            Sem::Par(ParKind::ArrayForEach) => {
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
                let params: Vec<ValueId> = if method == "par_mapv_inplace" {
                    vec![self.scalar(None, span)]
                } else {
                    items.clone()
                };
                let body = self.task_body(f, &params)?;
                if method.contains("inplace") {
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
            .unwrap_or_else(|| (Expr::int(0), Expr::sym(&format!("len({sym})"))));
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
                None => None,
            },
            ParKind::Chunks => {
                let chunk = rest.first().and_then(|a| self.val(a.value).int.clone());
                self.val(recv).kind.is_memory().then(|| IterInfo {
                    sources: vec![IterSource {
                        value: recv,
                        axis: 0,
                        chunk: chunk.or_else(|| Some(Expr::sym("chunk"))),
                    }],
                    parallel: true,
                    ..IterInfo::default()
                })
            }
            ParKind::Adapter => match existing {
                Some(mut info) => {
                    match name {
                        "enumerate" => info.enumerate = true,
                        "zip" => {
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
                        _ => {}
                    }
                    self.call_closures(rest, span);
                    Some(info)
                }
                None => {
                    if name == "map" && self.val(recv).kind.is_memory() {
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
                        self.call_closures(rest, span);
                        return self.alloc_value(
                            "map".into(),
                            bytes,
                            shape,
                            ReleasedBy::Drop,
                            TyClass::Array,
                            span,
                        );
                    }
                    self.call_closures(rest, span);
                    None
                }
            },
            ParKind::Consume | ParKind::ArrayForEach => {
                self.call_closures(rest, span);
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

    fn call_closures(&mut self, args: &[Arg], span: Span) {
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

    // ----- macros ----------------------------------------------------------------

    pub(crate) fn macro_call(&mut self, mac: &syn::Macro) -> ValueId {
        let span = self.span(
            mac.path
                .segments
                .last()
                .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        );
        let span = Span::new(
            self.file,
            span.lo as usize,
            self.span(mac.delimiter.span().close()).hi as usize,
        );
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        match name.as_str() {
            "s" => self.slice_macro(mac, span),
            "vec" => self.vec_macro(mac, span),
            "par_azip" | "azip" => self.azip_macro(mac, name == "par_azip", span),
            "panic" | "unreachable" | "todo" | "unimplemented" => {
                self.lower_format_args(mac, span);
                self.terminate(Terminator::Unreachable, span);
                self.unknown(span)
            }
            "assert" | "assert_eq" | "assert_ne" | "debug_assert" | "debug_assert_eq"
            | "debug_assert_ne" | "println" | "print" | "eprintln" | "eprint" | "format"
            | "write" | "writeln" | "dbg" | "matches" | "black_box" => {
                let args = self.lower_format_args(mac, span);
                // Past `assert!(p.is_null())` the allocation `p` would hold did not happen.
                if matches!(name.as_str(), "assert" | "debug_assert") {
                    let tested = args.first().and_then(|c| self.null_tests.get(c)).copied();
                    if let Some((p, true)) = tested {
                        self.emit(Op::AssumeNull { value: p }, span);
                    }
                }
                self.unknown(span)
            }
            _ => self.unknown(span),
        }
    }

    fn slice_macro(&mut self, mac: &syn::Macro, span: Span) -> ValueId {
        let out = self.unknown(span);
        let Some(args) = parse_slice_macro(mac.tokens.clone()) else {
            return out;
        };
        let mut specs = Vec::new();
        for entry in &args.0 {
            let spec = match entry {
                SliceEntry::NewAxis => SliceSpec::NewAxis,
                SliceEntry::Index(e) => {
                    let v = self.expr(e);
                    match self.val(v).int.clone() {
                        Some(i) => SliceSpec::Index(i),
                        None => return out,
                    }
                }
                SliceEntry::Range {
                    start,
                    end,
                    inclusive,
                    step,
                } => {
                    let int_of =
                        |l: &mut Self, e: &Option<Box<syn::Expr>>| -> Result<Option<Expr>, ()> {
                            match e {
                                Some(e) => {
                                    let v = l.expr(e);
                                    l.val(v).int.clone().map(Some).ok_or(())
                                }
                                None => Ok(None),
                            }
                        };
                    let (Ok(s), Ok(e), Ok(st)) =
                        (int_of(self, start), int_of(self, end), int_of(self, step))
                    else {
                        return out;
                    };
                    let e = if *inclusive { e.map(|e| &e + 1) } else { e };
                    SliceSpec::Range {
                        start: s,
                        end: e,
                        step: st.unwrap_or_else(|| Expr::int(1)),
                    }
                }
            };
            specs.push(spec);
        }
        self.slice_specs.insert(out, specs);
        out
    }

    fn vec_macro(&mut self, mac: &syn::Macro, span: Span) -> ValueId {
        let parser = |input: ParseStream| -> syn::Result<(Vec<syn::Expr>, bool)> {
            if input.is_empty() {
                return Ok((Vec::new(), false));
            }
            let first: syn::Expr = input.parse()?;
            if input.peek(syn::Token![;]) {
                let _: syn::Token![;] = input.parse()?;
                let n: syn::Expr = input.parse()?;
                return Ok((vec![first, n], true));
            }
            let mut items = vec![first];
            while input.peek(syn::Token![,]) {
                let _: syn::Token![,] = input.parse()?;
                if input.is_empty() {
                    break;
                }
                items.push(input.parse()?);
            }
            Ok((items, false))
        };
        let Ok((items, repeat)) = parser.parse2(mac.tokens.clone()) else {
            return self.alloc_value("vec!".into(), 4, None, ReleasedBy::Drop, TyClass::Vec, span);
        };
        // `vec![Slot::default(); n]` / `vec![Slot { .. }; n]` of a crate struct: its
        // layout, so padded per-thread slots are known as such.
        let elem_struct = items.first().and_then(|e| self.struct_of_expr(e));
        let bytes = items
            .first()
            .and_then(super::expr::literal_bytes)
            .or_else(|| {
                elem_struct
                    .as_ref()
                    .and_then(|(_, size)| u32::try_from(*size).ok())
            })
            .unwrap_or(8);
        let len = if repeat {
            self.expr(&items[0]);
            let n = self.expr(&items[1]);
            self.val(n).int.clone()
        } else {
            for e in &items {
                self.expr(e);
            }
            Some(Expr::int(items.len() as i64))
        };
        let out = self.alloc_value(
            "vec!".into(),
            bytes,
            len.map(|l| vec![l]),
            ReleasedBy::Drop,
            TyClass::Vec,
            span,
        );
        let elem_type = elem_struct
            .map(|(name, _)| name)
            .or_else(|| items.first().and_then(elem_type_name));
        if let (Some(name), Some(root)) = (elem_type, self.val(out).kind.root()) {
            if let Some(r) = self.roots.get_mut(root.0 as usize) {
                r.elem_type = Some(name);
            }
        }
        out
    }

    /// The crate struct an element expression builds (`Slot::default()`,
    /// `Slot::new(..)`, `Slot { .. }`), with its size when the layout is known.
    /// The crate struct a `vec!` element expression builds, with its size.
    fn struct_of_expr(&self, e: &syn::Expr) -> Option<(String, u64)> {
        let path = match e {
            syn::Expr::Struct(s) => s.path.segments.last()?.ident.to_string(),
            syn::Expr::Call(c) => match &*c.func {
                syn::Expr::Path(p) => {
                    let segs: Vec<_> = p.path.segments.iter().collect();
                    segs.get(segs.len().checked_sub(2)?)?.ident.to_string()
                }
                _ => return None,
            },
            _ => return None,
        };
        let item = self.ctx.index.structs.iter().find(|s| s.name == path)?;
        Some((item.name.clone(), item.size?))
    }

    /// `par_azip!((index i, a in &mut x, &b in &y) body)`: a lock-step iteration.
    fn azip_macro(&mut self, mac: &syn::Macro, parallel: bool, span: Span) -> ValueId {
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
                        .is_ok_and(|i| i == "index")
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

impl Lowerer<'_, '_, '_> {
    /// Lowers the comma-separated expressions of a formatting or assertion macro; memory
    /// values they mention are read.
    /// Lowers the arguments of a format-like macro; their values in order.
    fn lower_format_args(&mut self, mac: &syn::Macro, span: Span) -> Vec<ValueId> {
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        let Ok(args) = parser.parse2(mac.tokens.clone()) else {
            return Vec::new();
        };
        let mut values = Vec::new();
        for a in &args {
            let v = self.expr(a);
            values.push(v);
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
        values
    }
}

/// The element type a `vec!` element expression names: a literal's suffix (`0u64`), a
/// cast's type (`0 as u32`) or the type of a constructor (`CachePadded::new(0)`).
fn elem_type_name(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Lit(l) => {
            let suffix = match &l.lit {
                syn::Lit::Int(i) => i.suffix(),
                syn::Lit::Float(f) => f.suffix(),
                _ => "",
            };
            (!suffix.is_empty()).then(|| suffix.to_string())
        }
        syn::Expr::Unary(u) => elem_type_name(&u.expr),
        syn::Expr::Paren(p) => elem_type_name(&p.expr),
        syn::Expr::Cast(c) => match &*c.ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        },
        syn::Expr::Call(c) => match &*c.func {
            syn::Expr::Path(p) => {
                let segs: Vec<_> = p.path.segments.iter().collect();
                let ty = segs.get(segs.len().checked_sub(2)?)?;
                Some(ty.ident.to_string())
            }
            _ => None,
        },
        _ => None,
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
}
