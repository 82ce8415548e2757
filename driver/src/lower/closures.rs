//! Closures and the parallel regions they run in.
//!
//! A closure's body is lowered once it is known how it runs: when a modelled call
//! hands it to rayon or a thread (its parameters are then the scope handle or the item
//! of the iteration), when the function calls it, or, for a closure handed to code this
//! lowering does not follow, at the end of the function. Until then its body is a
//! reserved slot and its value says which.
//!
//! Loops are found in the MIR's control flow (natural loops of back edges); a loop that
//! takes its items from `Iterator::next` of a range or of a modelled iterator names
//! its item after the variable it is bound to, with the range it walks.

use rustc_data_structures::fx::FxHashMap;
use rustc_hir::def_id::LocalDefId;
use rustc_middle::mir::{self, BasicBlock};
use rustc_middle::ty::Ty;

use tensor_lint_analyzer::ir::{
    Body, BodyId, BodyKind, Iteration, Op, ParallelKind, ParallelRegion, Task, TyClass, ValueId,
    ValueKind, ViewOp,
};
use tensor_lint_analyzer::models::{Adapter, ForEach, ParKind, Sem};
use tensor_lint_analyzer::oracle::Expr;
use tensor_lint_analyzer::source::Span;

use super::calls::Arg;
use super::{BodyCx, FnLowerer};
use tensor_lint_analyzer::ir::geometry;

/// How an iterator value walks memory.
#[derive(Clone, Debug)]
pub(crate) struct IterInfo {
    /// The memory iterated.
    pub source: ValueId,
    /// The axis walked (0 for slices and vectors).
    pub axis: usize,
    /// Items are chunks of this many elements; `None` for single elements (sub-views
    /// along the axis).
    pub chunk: Option<Expr>,
    pub parallel: bool,
    /// What the adapters after it made of each item, in the order they apply.
    pub wraps: Vec<ItemWrap>,
}

/// An adapter that makes each item a pair.
#[derive(Clone, Debug)]
pub(crate) enum ItemWrap {
    /// `enumerate()`: (index, item).
    Enumerate,
    /// `zip(other)`: (item, the item of `other` at the same step).
    Zip(ValueId),
}

/// A closure whose body is not lowered yet.
pub(crate) struct PendingClosure {
    def: LocalDefId,
    parent: BodyId,
    captures: Vec<ValueId>,
}

/// A natural loop of one MIR body: its header and the blocks inside.
pub(crate) struct NaturalLoop {
    pub header: BasicBlock,
    pub blocks: Vec<bool>,
}

impl<'tcx> FnLowerer<'_, 'tcx> {
    /// Reserves the body of a closure made at this point of body `b`.
    pub(crate) fn closure(
        &mut self,
        b: &BodyCx<'tcx>,
        def: LocalDefId,
        captures: Vec<ValueId>,
        span: Span,
    ) -> BodyId {
        let id = BodyId(self.bodies.len() as u32);
        self.bodies.push(Body {
            kind: BodyKind::Closure {
                parent: b.id,
                captures: captures.clone(),
            },
            no_grad: false,
            params: Vec::new(),
            blocks: Vec::new(),
            span,
        });
        self.pending.insert(
            id,
            PendingClosure {
                def,
                parent: b.id,
                captures,
            },
        );
        id
    }

    /// Lowers a reserved closure body, its parameters (after the closure itself) bound
    /// to `params`; nothing when it is lowered already.
    pub(crate) fn lower_pending_closure(&mut self, body: BodyId, params: &[Option<ValueId>]) {
        let Some(pending) = self.pending.remove(&body) else {
            return;
        };
        let mir = self.tcx.optimized_mir(pending.def.to_def_id());
        if mir.tainted_by_errors.is_some() {
            return;
        }
        let kind = BodyKind::Closure {
            parent: pending.parent,
            captures: pending.captures.clone(),
        };
        self.lower_body_into(body, mir, kind, pending.captures, params);
    }

    /// The item of closure `body`, while it is reserved and not lowered yet.
    pub(crate) fn pending_def(&self, body: BodyId) -> Option<LocalDefId> {
        self.pending.get(&body).map(|p| p.def)
    }

    /// The type closure `body` returns, while it is reserved and not lowered yet.
    pub(crate) fn pending_return_ty(&self, body: BodyId) -> Option<Ty<'tcx>> {
        let def = self.pending_def(body)?;
        Some(self.tcx.optimized_mir(def.to_def_id()).local_decls[mir::RETURN_PLACE].ty)
    }

    /// What the returns of lowered body `body` give back, with the fields of each (the
    /// payload of an `Ok` returned): the values that may hold what it returns.
    pub(crate) fn returned_parts(&self, body: BodyId) -> Vec<ValueId> {
        let mut out = Vec::new();
        for block in &self.bodies[body.0 as usize].blocks {
            let Some(v) = block.term.returned() else {
                continue;
            };
            out.push(self.canonical(v));
            out.extend(
                self.fields_of(v)
                    .into_iter()
                    .map(|(_, _, f)| self.canonical(f)),
            );
        }
        out
    }

    /// Lowers every closure still reserved (handed to code this lowering does not
    /// follow): they run somewhere, with parameters nothing is known of.
    pub(crate) fn lower_remaining_closures(&mut self) {
        while let Some(&body) = self.pending.keys().min() {
            self.lower_pending_closure(body, &[]);
        }
    }

    /// `rayon::join`, scopes and their spawns, `thread::spawn`, parallel iterators.
    pub(crate) fn parallel_call(
        &mut self,
        b: &mut BodyCx<'tcx>,
        sem: Sem,
        args: &[Arg<'tcx>],
        dst: ValueId,
        span: Span,
    ) {
        let closure_body = |this: &Self, i: usize| match args
            .get(i)
            .and_then(|a| a.value)
            .map(|v| &this.value(v).kind)
        {
            Some(ValueKind::Closure(body)) => Some(*body),
            _ => None,
        };
        match sem {
            Sem::Join => {
                let mut tasks = Vec::new();
                for i in 0..2 {
                    if let Some(body) = closure_body(self, i) {
                        self.lower_pending_closure(body, &[]);
                        tasks.push(Task {
                            body,
                            iteration: None,
                            span: self.bodies[body.0 as usize].span,
                        });
                    }
                }
                self.emit(
                    b,
                    Op::Parallel(ParallelRegion {
                        kind: ParallelKind::Join,
                        tasks,
                    }),
                    span,
                );
            }
            Sem::Scope => {
                let Some(body) = closure_body(self, 0) else {
                    return;
                };
                self.lower_with_scope_handle(body, span);
                let mut tasks = vec![Task {
                    body,
                    iteration: None,
                    span,
                }];
                tasks.extend(self.spawned_in(body));
                self.emit(
                    b,
                    Op::Parallel(ParallelRegion {
                        kind: ParallelKind::Scope,
                        tasks,
                    }),
                    span,
                );
            }
            Sem::Spawn => {
                // The closure, last, after the scope: `s.spawn(f)`, or
                // `thread::Builder::new().spawn_scoped(s, f)`.
                let Some(at) = (1..args.len())
                    .rev()
                    .find(|&i| closure_body(self, i).is_some())
                else {
                    return;
                };
                let (Some(scope), Some(body)) = (args[at - 1].value, closure_body(self, at)) else {
                    return;
                };
                self.lower_with_scope_handle(body, span);
                let iteration = self.enclosing_iteration(b);
                self.emit(
                    b,
                    Op::Spawn {
                        scope,
                        task: Task {
                            body,
                            iteration,
                            span,
                        },
                    },
                    span,
                );
            }
            Sem::ThreadSpawn => {
                // The closure: the only argument, or the one after the pool.
                let Some(body) = (0..args.len()).find_map(|i| closure_body(self, i)) else {
                    return;
                };
                self.lower_pending_closure(body, &[]);
                let iteration = self.enclosing_iteration(b);
                self.emit(
                    b,
                    Op::Parallel(ParallelRegion {
                        kind: ParallelKind::ThreadSpawn,
                        tasks: vec![Task {
                            body,
                            iteration,
                            span,
                        }],
                    }),
                    span,
                );
            }
            // `v.par_iter_mut()`, `v.par_chunks_mut(k)`, faer's `m.par_col_chunks_mut(k)`
            // (one item per `k` columns).
            Sem::Par(kind @ (ParKind::Elements | ParKind::Chunks | ParKind::ColumnChunks)) => {
                let Some(src) = args.first().and_then(|a| a.value) else {
                    return;
                };
                if !self.value(src).kind.is_memory() {
                    // `(lo..hi).into_par_iter()`: one task per integer.
                    if let Some(range) = self.ranges.get(&src).cloned() {
                        self.ranges.insert(dst, range);
                        self.parallel_ranges.insert(dst);
                    }
                    return;
                }
                // An iterator made parallel (`axis_iter_mut(..).into_par_iter()`) walks
                // what it walked.
                if let Some(mut info) = self.iters.get(&src).cloned() {
                    info.parallel = true;
                    self.copy_value(b, dst, src, span);
                    self.iters.insert(dst, info);
                    return;
                }
                let chunk = match kind {
                    ParKind::Chunks | ParKind::ColumnChunks => args
                        .get(1)
                        .and_then(|a| a.value)
                        .and_then(|v| self.int_of(v)),
                    _ => None,
                };
                let view = self.value(src).view.clone();
                self.derive(b, dst, src, ViewOp::Whole, view, span);
                self.iters.insert(
                    dst,
                    IterInfo {
                        source: src,
                        axis: usize::from(kind == ParKind::ColumnChunks),
                        chunk,
                        parallel: true,
                        wraps: Vec::new(),
                    },
                );
            }
            Sem::Par(ParKind::Adapter(adapter)) => {
                let Some(src) = args.first().and_then(|a| a.value) else {
                    return;
                };
                self.copy_value(b, dst, src, span);
                if self.parallel_ranges.contains(&src) && adapter != Adapter::Enumerate {
                    self.parallel_ranges.insert(dst);
                }
                if let Some(mut info) = self.iters.get(&src).cloned() {
                    match adapter {
                        Adapter::Enumerate => info.wraps.push(ItemWrap::Enumerate),
                        Adapter::Zip => {
                            if let Some(other) = args.get(1).and_then(|a| a.value) {
                                info.wraps.push(ItemWrap::Zip(other));
                            }
                        }
                        Adapter::Map | Adapter::Keep => {}
                    }
                    self.iters.insert(dst, info);
                }
            }
            // `Zip::from(&mut a).and(&b)`: the arrays walked in lock step.
            Sem::ZipFrom => {
                let mut sources = args
                    .first()
                    .and_then(|a| a.value)
                    .and_then(|v| self.zips.get(&v).cloned())
                    .unwrap_or_default();
                let skip = usize::from(!sources.is_empty());
                for a in args.iter().skip(skip) {
                    if let Some(v) = a.value.filter(|&v| self.value(v).kind.is_memory()) {
                        sources.push(v);
                    }
                }
                self.zips.insert(dst, sources);
            }
            // `zip.par_for_each(|a, &b| ..)`, `a.par_mapv_inplace(f)`: one task per
            // index of the leading axis, given the items of every array there.
            Sem::Par(ParKind::ArrayForEach(each)) => {
                let Some(recv) = args.first().and_then(|a| a.value) else {
                    return;
                };
                let sources = match self.zips.get(&recv) {
                    Some(sources) => sources.clone(),
                    None if self.value(recv).kind.is_memory() => vec![recv],
                    None => Vec::new(),
                };
                let Some(body) = (1..args.len()).find_map(|i| closure_body(self, i)) else {
                    return;
                };
                let Some(&first) = sources.first() else {
                    self.lower_pending_closure(body, &[]);
                    return;
                };
                let symbol = self.symbol("it");
                let mut items = Vec::new();
                let mut count = None;
                for &src in &sources {
                    let info = IterInfo {
                        source: src,
                        axis: 0,
                        chunk: None,
                        parallel: true,
                        wraps: Vec::new(),
                    };
                    let (item, n) = self.iteration_item(b, &info, &symbol, span);
                    if src == first {
                        count = Some(n);
                    }
                    items.push(item);
                }
                let params: Vec<Option<ValueId>> = match each {
                    ForEach::MapvInPlace => {
                        vec![Some(self.new_value(
                            None,
                            ValueKind::Scalar,
                            TyClass::Scalar,
                            span,
                        ))]
                    }
                    _ => items.iter().copied().map(Some).collect(),
                };
                self.lower_pending_closure(body, &params);
                // The items the closure rewrites (`map_inplace`), written by each task.
                if each != ForEach::Items {
                    if let Some(&item) = items.first() {
                        let region = self.value(item).view.clone();
                        let op = Op::Write {
                            value: item,
                            region,
                        };
                        if let Some(entry) = self.bodies[body.0 as usize].blocks.first_mut() {
                            entry
                                .stmts
                                .insert(0, tensor_lint_analyzer::ir::Stmt { op, span });
                        }
                    }
                }
                let count = count.unwrap_or_else(|| Expr::sym("len"));
                self.parallel_iteration(b, body, symbol, count, span);
            }
            Sem::Par(ParKind::Consume) => {
                let (Some(iter), Some(body)) =
                    (args.first().and_then(|a| a.value), closure_body(self, 1))
                else {
                    return;
                };
                let range = self
                    .parallel_ranges
                    .contains(&iter)
                    .then(|| self.ranges.get(&iter).cloned())
                    .flatten();
                let info = self.iters.get(&iter).cloned();
                if info.is_none() && range.is_none() {
                    self.lower_pending_closure(body, &[]);
                    return;
                }
                let symbol = self.symbol("it");
                let (item, count) = match (info, range) {
                    (Some(info), _) => self.iteration_item(b, &info, &symbol, span),
                    // The integers `lo..hi`: item `lo + it` of `hi - lo`.
                    (None, Some((lo, hi))) => {
                        let item = self.new_value(None, ValueKind::Scalar, TyClass::Scalar, span);
                        self.value_mut(item).int = Some(&lo + &Expr::sym(&symbol));
                        (item, &hi - &lo)
                    }
                    (None, None) => return,
                };
                self.lower_pending_closure(body, &[Some(item)]);
                self.parallel_iteration(b, body, symbol, count, span);
            }
            _ => {}
        }
    }

    /// A parallel region running closure `body` once per `symbol` in `0..count`, its
    /// first parameter the item of that iteration.
    fn parallel_iteration(
        &mut self,
        b: &BodyCx<'tcx>,
        body: BodyId,
        symbol: String,
        count: Expr,
        span: Span,
    ) {
        let value = self.bodies[body.0 as usize].params.first().copied();
        let iteration = Iteration {
            symbol,
            lo: Expr::int(0),
            hi: count,
            value,
        };
        self.emit(
            b,
            Op::Parallel(ParallelRegion {
                kind: ParallelKind::ParIter,
                tasks: vec![Task {
                    body,
                    iteration: Some(iteration),
                    span,
                }],
            }),
            span,
        );
    }

    /// The item of iteration `symbol` over `info`, and how many items there are.
    pub(crate) fn iteration_item(
        &mut self,
        b: &BodyCx<'tcx>,
        info: &IterInfo,
        symbol: &str,
        span: Span,
    ) -> (ValueId, Expr) {
        let src = info.source;
        let index = Expr::sym(symbol);
        let source_view = self.value(src).view.clone();
        // How many items: the length of the axis walked, in chunks when it is chunked.
        let len = source_view
            .as_ref()
            .and_then(|v| v.dims.get(info.axis).map(|d| d.len.clone()))
            .or_else(|| (info.axis == 0).then(|| self.length_of(src)).flatten())
            .unwrap_or_else(|| Expr::sym(&format!("{}.len", self.display_name(src))));
        let count = match &info.chunk {
            Some(n) => (&(&len + n) - &Expr::int(1)).div_floor(n.clone()),
            None => len,
        };
        let how = ViewOp::Iter {
            axis: info.axis,
            chunk: info.chunk.clone(),
            index: index.clone(),
        };
        let view = source_view.and_then(|v| geometry::apply(&v, &how));
        let class = self.value(src).ty;
        let mut item = self.new_value(None, ValueKind::Unknown, class, span);
        self.derive(b, item, src, how, view, span);
        let mut count = count;
        for wrap in &info.wraps {
            let (first, second) = match *wrap {
                ItemWrap::Enumerate => {
                    let position = self.new_value(None, ValueKind::Scalar, TyClass::Scalar, span);
                    self.value_mut(position).int = Some(index.clone());
                    (position, item)
                }
                // A zip stops at the shorter side.
                ItemWrap::Zip(other) => {
                    let (other_item, other_count) = self.zipped_item(b, other, symbol, span);
                    if let Some(n) = other_count {
                        count = count.minimum(&n);
                    }
                    (item, other_item)
                }
            };
            item = self.new_value(None, ValueKind::Unknown, TyClass::Unknown, span);
            self.set_field(item, 0, 0, first);
            self.set_field(item, 0, 1, second);
        }
        (item, count)
    }

    /// The item `other` gives at step `symbol` of a `zip`: its own item when it walks
    /// memory or integers, otherwise a value nothing is known of.
    fn zipped_item(
        &mut self,
        b: &BodyCx<'tcx>,
        other: ValueId,
        symbol: &str,
        span: Span,
    ) -> (ValueId, Option<Expr>) {
        if let Some(info) = self.iters.get(&other).cloned() {
            let (item, count) = self.iteration_item(b, &info, symbol, span);
            return (item, Some(count));
        }
        let item = self.new_value(None, ValueKind::Scalar, TyClass::Scalar, span);
        if let Some((lo, hi)) = self.ranges.get(&other).cloned() {
            self.value_mut(item).int = Some(&lo + &Expr::sym(symbol));
            return (item, Some(&hi - &lo));
        }
        self.value_mut(item).kind = ValueKind::Unknown;
        self.value_mut(item).ty = TyClass::Unknown;
        (item, None)
    }

    /// The tasks spawned on a scope handle in `body` and the closures it runs, outside
    /// scopes of their own.
    fn spawned_in(&self, body: BodyId) -> Vec<Task> {
        let mut out = Vec::new();
        let mut work = vec![body];
        while let Some(at) = work.pop() {
            for block in &self.bodies[at.0 as usize].blocks {
                for stmt in &block.stmts {
                    match &stmt.op {
                        Op::Spawn { task, .. } => out.push(task.clone()),
                        Op::Call {
                            callee: tensor_lint_analyzer::ir::Callee::Closure(inner),
                            ..
                        } => work.push(*inner),
                        _ => {}
                    }
                }
            }
        }
        out
    }

    /// A task spawned inside a loop runs once per round: the loop's range when it walks
    /// one, otherwise as many rounds as the loop makes.
    fn enclosing_iteration(&mut self, b: &BodyCx<'tcx>) -> Option<Iteration> {
        let innermost = innermost_loop(b)?;
        if let Some(it) = self.loop_iterations.get(&(b.id, innermost.header)) {
            return Some(it.clone());
        }
        let round = self.symbol("round");
        let rounds = self.symbol("rounds");
        Some(Iteration {
            symbol: round,
            lo: Expr::int(0),
            hi: Expr::sym(&rounds),
            value: None,
        })
    }

    /// `Iterator::next(&mut it)` of a range or of a modelled iterator, its result
    /// in `dst` (local `dst_local` of body `b`): the `Some` holds the loop's item.
    pub(crate) fn next_item(
        &mut self,
        b: &BodyCx<'tcx>,
        iter_ref: ValueId,
        dst: ValueId,
        dst_local: Option<mir::Local>,
        span: Span,
    ) {
        let mut iter = self.pointees.get(&iter_ref).copied().unwrap_or(iter_ref);
        // `&mut it` of an iterator over memory is a whole view of it.
        for _ in 0..8 {
            if self.iters.contains_key(&iter) || self.ranges.contains_key(&iter) {
                break;
            }
            match self.whole_views.get(&iter) {
                Some(&src) => iter = src,
                None => break,
            }
        }
        let range = self.ranges.get(&iter).cloned();
        let info = self.iters.get(&iter).cloned();
        // Under an `enumerate`, the index the pattern binds counts the iterations.
        let enumerated = range.is_none()
            && info
                .as_ref()
                .is_some_and(|i| matches!(i.wraps.last(), Some(ItemWrap::Enumerate)));
        let name = dst_local
            .and_then(|l| loop_variable_name(b.mir, l, enumerated))
            .unwrap_or_else(|| "it".to_string());
        let (item, lo, hi, symbol) = if let Some((lo, hi)) = range {
            // The IR's loops count from 0: the variable is where the range starts plus
            // the loop's symbol.
            let symbol = self.varying_symbol(&name);
            let item = self.new_value(Some(name.clone()), ValueKind::Scalar, TyClass::Scalar, span);
            self.value_mut(item).int = Some(&lo + &Expr::sym(&symbol));
            self.loop_starts.push((symbol.clone(), lo.clone()));
            let count = &hi - &lo;
            (item, Expr::int(0), count, symbol)
        } else if let Some(info) = info.filter(|i| !i.parallel) {
            let symbol = self.varying_symbol(&name);
            let (item, count) = self.iteration_item(b, &info, &symbol, span);
            (item, Expr::int(0), count, symbol)
        } else {
            return;
        };
        // `Some` is variant 1 of `Option`.
        self.set_field(dst, 1, 0, item);
        let iteration = Iteration {
            symbol,
            lo,
            hi,
            value: Some(item),
        };
        self.loop_ranges.push((b.id, iteration.clone()));
        if let Some(l) = innermost_loop(b) {
            self.loop_iterations.insert((b.id, l.header), iteration);
        }
    }

    /// Lowers closure `body`, given a handle of its scope (the closure of
    /// `rayon::scope`/`thread::scope`, or one spawned on it).
    fn lower_with_scope_handle(&mut self, body: BodyId, span: Span) {
        let handle = self.new_value(
            Some("scope".into()),
            ValueKind::ScopeHandle,
            TyClass::Unknown,
            span,
        );
        self.lower_pending_closure(body, &[Some(handle)]);
    }

    /// A name to show for a value in symbols.
    pub(crate) fn display_name(&self, v: ValueId) -> String {
        self.value(v)
            .name
            .clone()
            .unwrap_or_else(|| format!("v{}", v.0))
    }
}

/// The variable a `for` loop binds its item to: the local the `Some` payload of
/// `option` is copied into, when it is a named variable.
fn loop_variable_name(
    mir: &mir::Body<'_>,
    option: mir::Local,
    index_first: bool,
) -> Option<String> {
    let mut names: FxHashMap<mir::Local, String> = FxHashMap::default();
    for info in &mir.var_debug_info {
        if let mir::VarDebugInfoContents::Place(place) = &info.value {
            if place.projection.is_empty() {
                names.insert(place.local, info.name.to_string());
            }
        }
    }
    for data in mir.basic_blocks.iter() {
        for stmt in &data.statements {
            let mir::StatementKind::Assign(assign) = &stmt.kind else {
                continue;
            };
            let (lhs, rhs) = &**assign;
            let mir::Rvalue::Use(mir::Operand::Copy(src) | mir::Operand::Move(src), _) = rhs else {
                continue;
            };
            // `for (i, x) in it.enumerate()`: `i` is bound straight from the first
            // field of the pair the `Some` holds.
            let index_of_pair = matches!(
                src.projection.as_slice(),
                [mir::PlaceElem::Downcast(_, _), mir::PlaceElem::Field(..), mir::PlaceElem::Field(f, _)]
                    if f.as_usize() == 0
            );
            if index_first && src.local == option && index_of_pair && lhs.projection.is_empty() {
                if let Some(name) = names.get(&lhs.local) {
                    return Some(name.clone());
                }
            }
            if src.local == option
                && matches!(
                    src.projection.as_slice(),
                    [mir::PlaceElem::Downcast(_, _), mir::PlaceElem::Field(..)]
                )
                && lhs.projection.is_empty()
            {
                if index_first {
                    // `for (i, x) in it.enumerate()`: the item is a pair, and `i` is
                    // its first field (a variable of its own, or the field itself).
                    let in_place = mir.var_debug_info.iter().find_map(|info| match &info.value {
                        mir::VarDebugInfoContents::Place(p)
                            if p.local == lhs.local
                                && matches!(p.projection.as_slice(), [mir::PlaceElem::Field(f, _)] if f.as_usize() == 0) =>
                        {
                            Some(info.name.to_string())
                        }
                        _ => None,
                    });
                    if let Some(name) = in_place.or_else(|| index_name(mir, lhs.local, &names)) {
                        return Some(name);
                    }
                    continue;
                }
                if let Some(name) = names.get(&lhs.local) {
                    return Some(name.clone());
                }
            }
        }
    }
    None
}

/// The name of the variable bound from the first field of the pair in `pair`.
fn index_name(
    mir: &mir::Body<'_>,
    pair: mir::Local,
    names: &FxHashMap<mir::Local, String>,
) -> Option<String> {
    mir.basic_blocks.iter().flat_map(|d| &d.statements).find_map(|stmt| {
        let mir::StatementKind::Assign(assign) = &stmt.kind else {
            return None;
        };
        let (lhs, mir::Rvalue::Use(mir::Operand::Copy(src) | mir::Operand::Move(src), _)) =
            &**assign
        else {
            return None;
        };
        let first = matches!(src.projection.as_slice(), [mir::PlaceElem::Field(f, _)] if f.as_usize() == 0);
        (src.local == pair && first && lhs.projection.is_empty())
            .then(|| names.get(&lhs.local).cloned())
            .flatten()
    })
}

/// The natural loops of `mir`, one per back edge (an edge to a block that dominates
/// its source), cleanup blocks left out.
/// The innermost natural loop around the block of `b` being lowered.
pub(crate) fn innermost_loop<'b>(b: &'b BodyCx<'_>) -> Option<&'b NaturalLoop> {
    let here = b.cur.0 as usize;
    b.loops
        .iter()
        .filter(|l| l.blocks.get(here).copied().unwrap_or(false))
        .min_by_key(|l| l.blocks.iter().filter(|x| **x).count())
}

pub(crate) fn natural_loops(mir: &mir::Body<'_>) -> Vec<NaturalLoop> {
    let blocks = &mir.basic_blocks;
    let dominators = blocks.dominators();
    let preds = blocks.predecessors();
    let mut out = Vec::new();
    for (bb, data) in blocks.iter_enumerated() {
        let Some(term) = &data.terminator else {
            continue;
        };
        if data.is_cleanup || !dominators.is_reachable(bb) {
            continue;
        }
        for header in term.successors() {
            if !dominators.dominates(header, bb) {
                continue;
            }
            let mut inside = vec![false; blocks.len()];
            inside[header.as_usize()] = true;
            let mut work = vec![bb];
            while let Some(x) = work.pop() {
                if std::mem::replace(&mut inside[x.as_usize()], true) {
                    continue;
                }
                work.extend(preds[x].iter().copied());
            }
            out.push(NaturalLoop {
                header,
                blocks: inside,
            });
        }
    }
    out
}
