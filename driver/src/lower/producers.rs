//! Rayon producers written by hand. A type that implements `UnindexedProducer` (or
//! `Producer`) is split by rayon into pieces, and each piece runs `fold_with` at the
//! same time as the others: the body of `fold_with` is a task with one instance per
//! piece. What tells the pieces apart is what `split` changes: a field that every
//! `split` copies into both halves (the shared index, the world's pointer) is the same
//! in every piece, any other field (the range a piece covers, its slice) is the
//! piece's own, so nothing is known of where it points or what it counts. The items a
//! piece hands to its folder (`consume_iter`, `consume`) are what the consumer gets; a
//! producer of `&mut` items claims each of them.

use rustc_data_structures::fx::{FxHashMap, FxHashSet};
use rustc_hir::def_id::DefId;
use rustc_middle::mir::{self, Operand, PlaceElem, Rvalue, StatementKind, TerminatorKind};
use rustc_middle::ty::{self, TyCtxt};

use tensor_lint_analyzer::ir::{
    Block, Body, BodyId, BodyKind, Iteration, Op, ParallelKind, ParallelRegion, ReturnKind, Stmt,
    Task, Terminator, ValueId,
};
use tensor_lint_analyzer::models::Role;
use tensor_lint_analyzer::oracle::Expr;
use tensor_lint_analyzer::source::Span;

use super::calls::Arg;
use super::{BodyCx, FnLowerer};
use crate::models::Models;

/// What lowering a producer's `fold_with` needs.
pub(crate) struct Producer {
    /// The field paths of `self` every `split` keeps.
    shared: Vec<Vec<String>>,
    /// The items are `&mut` borrows (`type Item = &'a mut T`).
    yields_mut: bool,
    /// Field paths of the values read from `self`.
    paths: FxHashMap<ValueId, Vec<String>>,
    /// Values of fields that are each piece's own.
    own: FxHashSet<ValueId>,
}

/// `def` as the `fold_with` of a producer implemented by the crate.
pub(crate) fn producer_of(tcx: TyCtxt<'_>, models: &Models, def: DefId) -> Option<Producer> {
    let imp = tcx.trait_impl_of_assoc(def)?;
    if !models.is(tcx, def, Role::ProducerFold) {
        return None;
    }
    let self_ty = tcx.type_of(imp).instantiate_identity().skip_normalization();
    let ty::Adt(adt, _) = self_ty.kind() else {
        return None;
    };
    let items = tcx.associated_items(imp);
    let yields_mut = items.in_definition_order().any(|item| {
        item.name().as_str() == "Item"
            && matches!(item.kind, ty::AssocKind::Type { .. })
            && matches!(
                tcx.type_of(item.def_id)
                    .instantiate_identity()
                    .skip_normalization()
                    .kind(),
                ty::Ref(_, _, ty::Mutability::Mut)
            )
    });
    let mut shared: Option<Vec<Vec<String>>> = None;
    for item in items.in_definition_order() {
        if !matches!(item.kind, ty::AssocKind::Fn { .. })
            || !models.is(tcx, item.def_id, Role::ProducerSplit)
        {
            continue;
        }
        let kept = kept_fields(tcx, item.def_id, adt.did());
        shared = Some(match shared {
            None => kept,
            Some(before) => before.into_iter().filter(|p| kept.contains(p)).collect(),
        });
    }
    Some(Producer {
        shared: shared.unwrap_or_default(),
        yields_mut,
        paths: FxHashMap::default(),
        own: FxHashSet::default(),
    })
}

/// Where a value built into a field comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Field `k` of the function's first parameter, as it was.
    Kept(usize),
    /// What function `callee` made of field `k` of the first parameter.
    Via(usize, DefId),
    Other,
}

/// One MIR body with the body it is a closure of.
struct Frame<'a, 'tcx> {
    mir: &'a mir::Body<'tcx>,
    def: DefId,
    parent: Option<&'a Frame<'a, 'tcx>>,
}

/// The field paths of the struct `adt` (a producer) that every value of it that
/// `split` (the function `split`, with the closures it makes) builds keeps from the
/// producer it was given.
fn kept_fields<'tcx>(tcx: TyCtxt<'tcx>, split: DefId, adt: DefId) -> Vec<Vec<String>> {
    let mir = tcx.optimized_mir(split);
    let top = Frame {
        mir,
        def: split,
        parent: None,
    };
    let mut out: Option<Vec<Vec<String>>> = None;
    kept_in(tcx, &top, adt, &mut out);
    for closure in closures_in(mir) {
        if closure.is_local() && tcx.is_mir_available(closure) {
            let frame = Frame {
                mir: tcx.optimized_mir(closure),
                def: closure,
                parent: Some(&top),
            };
            kept_in(tcx, &frame, adt, &mut out);
        }
    }
    out.unwrap_or_default()
}

/// Narrows `out` to the field paths every value of `adt` built in `frame` keeps.
fn kept_in<'tcx>(
    tcx: TyCtxt<'tcx>,
    frame: &Frame<'_, 'tcx>,
    adt: DefId,
    out: &mut Option<Vec<Vec<String>>>,
) {
    for (_, ops) in aggregates_of(frame.mir, adt) {
        let mut kept = Vec::new();
        for (k, op) in ops.iter().enumerate() {
            let name = field_name(tcx, adt, k);
            match trace_operand(tcx, frame, op, 0) {
                Source::Kept(f) if f == k => kept.push(vec![name]),
                Source::Via(f, callee) if f == k => {
                    let field_ty = tcx
                        .adt_def(adt)
                        .non_enum_variant()
                        .fields
                        .iter()
                        .nth(k)
                        .map(|f| {
                            tcx.type_of(f.did)
                                .instantiate_identity()
                                .skip_normalization()
                        });
                    if let Some(ty::Adt(inner, _)) = field_ty.map(|t| *t.kind()) {
                        for sub in callee_kept(tcx, callee, inner.did()) {
                            kept.push(vec![name.clone(), sub]);
                        }
                    }
                }
                _ => {}
            }
        }
        *out = Some(match out.take() {
            None => kept,
            Some(before) => before.into_iter().filter(|p| kept.contains(p)).collect(),
        });
    }
}

/// The fields of struct `adt` that every value of it `callee` builds keeps from its
/// first parameter (`fn split_at(self, at) -> (Self, Self)` keeps `index`).
fn callee_kept(tcx: TyCtxt<'_>, callee: DefId, adt: DefId) -> Vec<String> {
    if !callee.is_local() || !tcx.is_mir_available(callee) {
        return Vec::new();
    }
    let frame = Frame {
        mir: tcx.optimized_mir(callee),
        def: callee,
        parent: None,
    };
    let mut out: Option<Vec<String>> = None;
    for (_, ops) in aggregates_of(frame.mir, adt) {
        let kept: Vec<String> = ops
            .iter()
            .enumerate()
            .filter(|(k, op)| trace_operand(tcx, &frame, op, 0) == Source::Kept(*k))
            .map(|(k, _)| field_name(tcx, adt, k))
            .collect();
        out = Some(match out.take() {
            None => kept,
            Some(before) => before.into_iter().filter(|p| kept.contains(p)).collect(),
        });
    }
    out.unwrap_or_default()
}

fn field_name(tcx: TyCtxt<'_>, adt: DefId, k: usize) -> String {
    tcx.adt_def(adt)
        .non_enum_variant()
        .fields
        .iter()
        .nth(k)
        .map_or_else(|| k.to_string(), |f| f.name.to_string())
}

/// The aggregates of struct `adt` a body builds, with their operands.
fn aggregates_of<'a, 'tcx>(
    mir: &'a mir::Body<'tcx>,
    adt: DefId,
) -> Vec<(mir::Local, &'a [Operand<'tcx>])> {
    let mut out = Vec::new();
    for data in mir.basic_blocks.iter() {
        for stmt in &data.statements {
            let StatementKind::Assign(assign) = &stmt.kind else {
                continue;
            };
            let (place, Rvalue::Aggregate(kind, ops)) = &**assign else {
                continue;
            };
            if matches!(**kind, mir::AggregateKind::Adt(did, ..) if did == adt) {
                out.push((place.local, ops.raw.as_slice()));
            }
        }
    }
    out
}

/// The closures a body makes.
fn closures_in(mir: &mir::Body<'_>) -> Vec<DefId> {
    let mut out = Vec::new();
    for data in mir.basic_blocks.iter() {
        for stmt in &data.statements {
            if let StatementKind::Assign(assign) = &stmt.kind {
                if let Rvalue::Aggregate(kind, _) = &assign.1 {
                    if let mir::AggregateKind::Closure(def, _) = **kind {
                        out.push(def);
                    }
                }
            }
        }
    }
    out
}

fn trace_operand<'tcx>(
    tcx: TyCtxt<'tcx>,
    frame: &Frame<'_, 'tcx>,
    op: &Operand<'tcx>,
    depth: u32,
) -> Source {
    match op {
        Operand::Copy(place) | Operand::Move(place) => trace_place(tcx, frame, *place, depth),
        _ => Source::Other,
    }
}

/// Where the value at `place` of `frame` comes from: a field of the first parameter,
/// through copies, moves, borrows and a closure's captures.
fn trace_place<'tcx>(
    tcx: TyCtxt<'tcx>,
    frame: &Frame<'_, 'tcx>,
    place: mir::Place<'tcx>,
    depth: u32,
) -> Source {
    if depth > 16 {
        return Source::Other;
    }
    let fields: Vec<(usize, PlaceElem<'tcx>)> = place
        .projection
        .iter()
        .enumerate()
        .filter(|(_, p)| *p != PlaceElem::Deref)
        .collect();
    // A closure's capture: the operand the closure was made with, in its parent.
    if place.local.as_usize() == 1 && tcx.is_closure_like(frame.def) {
        let Some(parent) = frame.parent else {
            return Source::Other;
        };
        let Some((_, PlaceElem::Field(capture, _))) = fields.first() else {
            return Source::Other;
        };
        if fields.len() != 1 {
            return Source::Other;
        }
        for data in parent.mir.basic_blocks.iter() {
            for stmt in &data.statements {
                let StatementKind::Assign(assign) = &stmt.kind else {
                    continue;
                };
                if let Rvalue::Aggregate(kind, ops) = &assign.1 {
                    if matches!(**kind, mir::AggregateKind::Closure(def, _) if def == frame.def) {
                        if let Some(op) = ops.raw.get(capture.as_usize()) {
                            return trace_operand(tcx, parent, op, depth + 1);
                        }
                    }
                }
            }
        }
        return Source::Other;
    }
    // The function's first parameter: `self.k`.
    if place.local.as_usize() == 1 && frame.mir.arg_count >= 1 {
        return match fields.as_slice() {
            [(_, PlaceElem::Field(k, _))] => Source::Kept(k.as_usize()),
            _ => Source::Other,
        };
    }
    match fields.as_slice() {
        [] => {}
        // `(t.0)` of `t = callee(self.k, ..)`.
        [(_, PlaceElem::Field(..))] => {
            return match trace_place(tcx, frame, mir::Place::from(place.local), depth + 1) {
                via @ Source::Via(..) => via,
                _ => Source::Other,
            };
        }
        _ => return Source::Other,
    }
    // The local's one assignment, or the call that returned it.
    for data in frame.mir.basic_blocks.iter() {
        for stmt in &data.statements {
            let StatementKind::Assign(assign) = &stmt.kind else {
                continue;
            };
            let (lhs, rvalue) = &**assign;
            if lhs.local != place.local || !lhs.projection.is_empty() {
                continue;
            }
            return match rvalue {
                Rvalue::Use(op, ..) | Rvalue::Cast(_, op, _) => {
                    trace_operand(tcx, frame, op, depth + 1)
                }
                Rvalue::Ref(_, _, p) | Rvalue::RawPtr(_, p) => {
                    trace_place(tcx, frame, *p, depth + 1)
                }
                _ => Source::Other,
            };
        }
        if let Some(term) = &data.terminator {
            if let TerminatorKind::Call {
                func,
                args,
                destination,
                ..
            } = &term.kind
            {
                if destination.local == place.local && destination.projection.is_empty() {
                    let Some((callee, _)) = func.const_fn_def() else {
                        return Source::Other;
                    };
                    return match args
                        .first()
                        .map(|a| trace_operand(tcx, frame, &a.node, depth + 1))
                    {
                        Some(Source::Kept(k)) => Source::Via(k, callee),
                        _ => Source::Other,
                    };
                }
            }
        }
    }
    Source::Other
}

impl<'tcx> FnLowerer<'_, 'tcx> {
    /// A field of `self` (or of a field of it) read in a producer's `fold_with`: a
    /// field every `split` keeps is the same in every piece; any other is the piece's
    /// own, so where its memory lies is not known.
    pub(crate) fn producer_field(&mut self, base: ValueId, field_name: &str, v: ValueId) {
        let Some(producer) = self.producer.as_ref() else {
            return;
        };
        let base = self.canonical(base);
        let is_self = self.bodies[0]
            .params
            .first()
            .is_some_and(|&p| self.canonical(p) == base);
        let mut path = match producer.paths.get(&base) {
            Some(p) => p.clone(),
            None if is_self => Vec::new(),
            None => return,
        };
        let producer = self.producer.as_mut().expect("checked above");
        if producer.own.contains(&base) {
            producer.own.insert(v);
            self.values[v.0 as usize].view = None;
            return;
        }
        path.push(field_name.to_string());
        producer.paths.insert(v, path.clone());
        // Kept by every `split`, or a struct some of whose fields are.
        let shared = producer.shared.iter().any(|s| path.starts_with(s))
            || producer.shared.iter().any(|s| s.starts_with(&path));
        if !shared {
            producer.own.insert(v);
            self.values[v.0 as usize].view = None;
        }
    }

    /// `folder.consume_iter(items)` and `folder.consume(item)` in a producer piece: the
    /// items go to the consumer; `&mut` items are claims. `items` made by `map` with a
    /// closure run the closure once per item of what it maps.
    pub(crate) fn folder_call(
        &mut self,
        b: &BodyCx<'tcx>,
        every: bool,
        args: &[Arg<'tcx>],
        span: Span,
    ) -> bool {
        let Some(yields_mut) = self.producer.as_ref().map(|p| p.yields_mut) else {
            return false;
        };
        let Some(items) = args.get(1).and_then(|a| a.value) else {
            return true;
        };
        if !every {
            if yields_mut {
                let region = self.value(items).view.clone();
                self.emit(
                    b,
                    Op::Claim {
                        value: items,
                        region,
                    },
                    span,
                );
            }
            return true;
        }
        match self.mapped_closures.get(&items).copied() {
            Some((source, body)) => {
                self.run_per_item(b, source, body, span);
                if yields_mut {
                    self.claim_returned(body);
                }
            }
            None => {
                for v in self.iteration_items(b, items, span) {
                    if yields_mut {
                        let region = self.value(v).view.clone();
                        self.emit(b, Op::Claim { value: v, region }, span);
                    }
                }
            }
        }
        true
    }

    /// The `&mut` closure `body` returns, claimed where it is made (unless the closure
    /// claims it already, as `&mut *p` does).
    fn claim_returned(&mut self, body: BodyId) {
        let blocks = self.bodies[body.0 as usize].blocks.len();
        for k in 0..blocks {
            let block = &self.bodies[body.0 as usize].blocks[k];
            let Terminator::Return { value: Some(v), .. } = block.term else {
                continue;
            };
            let mut made_from = vec![v];
            let mut at = v;
            while let Some(&src) = self.whole_views.get(&at) {
                if made_from.contains(&src) {
                    break;
                }
                made_from.push(src);
                at = src;
            }
            let claimed = self.bodies[body.0 as usize].blocks.iter().any(|block| {
                block
                    .stmts
                    .iter()
                    .any(|s| matches!(&s.op, Op::Claim { value, .. } if made_from.contains(value)))
            });
            if claimed {
                continue;
            }
            let region = self.value(v).view.clone();
            let span = self.value(v).span;
            self.bodies[body.0 as usize].blocks[k].stmts.push(Stmt {
                op: Op::Claim { value: v, region },
                span,
            });
        }
    }

    /// Closure `body` run on each item of iterator `source`, here: the values it
    /// returns.
    fn run_per_item(&mut self, b: &BodyCx<'tcx>, source: ValueId, body: BodyId, span: Span) {
        let info = self.iters.get(&source).cloned().filter(|i| !i.parallel);
        let mut item = None;
        if let Some(info) = info {
            let symbol = self.varying_symbol("it");
            let (value, count) = self.iteration_item(b, &info, &symbol, span);
            self.loop_ranges.push((
                body,
                Iteration {
                    symbol,
                    lo: Expr::int(0),
                    hi: count,
                    value: Some(value),
                },
            ));
            item = Some(value);
        }
        self.repeated_closures.insert(body);
        self.lower_pending_closure(body, &[item]);
        self.emit(
            b,
            Op::Call {
                dst: None,
                callee: tensor_lint_analyzer::ir::Callee::Closure(body),
                args: item.into_iter().collect(),
            },
            span,
        );
    }

    /// The items of iterator `items` over memory, one per round.
    fn iteration_items(&mut self, b: &BodyCx<'tcx>, items: ValueId, span: Span) -> Vec<ValueId> {
        let Some(info) = self.iters.get(&items).cloned().filter(|i| !i.parallel) else {
            return Vec::new();
        };
        let symbol = self.varying_symbol("it");
        let (item, _) = self.iteration_item(b, &info, &symbol, span);
        vec![item]
    }

    /// Once a producer's `fold_with` is lowered: its body becomes the task each piece
    /// runs, and the function runs the pieces at once. What a piece computes from its
    /// own fields is a value of its own.
    pub(crate) fn finish_producer(&mut self, span: Span) {
        let Some(producer) = self.producer.take() else {
            return;
        };
        let piece = BodyId(self.bodies.len() as u32);
        let params = self.bodies[0].params.clone();
        let mut task_body = std::mem::replace(
            &mut self.bodies[0],
            Body {
                kind: BodyKind::Function,
                no_grad: false,
                params: params.clone(),
                blocks: Vec::new(),
                span,
            },
        );
        task_body.kind = BodyKind::Closure {
            parent: BodyId(0),
            captures: params,
        };
        task_body.params = Vec::new();
        self.bodies.push(task_body);
        for body in self.bodies.iter_mut().take(piece.0 as usize) {
            if let BodyKind::Closure { parent, .. } = &mut body.kind {
                if *parent == BodyId(0) {
                    *parent = piece;
                }
            }
        }
        for (body, _) in &mut self.loop_ranges {
            if *body == BodyId(0) {
                *body = piece;
            }
        }
        for (body, _) in &mut self.run_values {
            if *body == BodyId(0) {
                *body = piece;
            }
        }
        // The integers of a piece's own fields differ from one piece to the next.
        for v in producer.own {
            let symbols = self.values[v.0 as usize]
                .int
                .as_ref()
                .map(|i| i.symbols())
                .unwrap_or_default();
            for s in symbols {
                if !self.run_values.iter().any(|(b, x)| *b == piece && *x == s) {
                    self.run_values.push((piece, s));
                }
            }
        }
        let iteration = Iteration {
            symbol: self.varying_symbol("piece"),
            lo: Expr::int(0),
            hi: Expr::sym(&self.varying_symbol("pieces")),
            value: None,
        };
        self.bodies[0].blocks = vec![Block {
            stmts: vec![Stmt {
                op: Op::Parallel(ParallelRegion {
                    kind: ParallelKind::Pieces,
                    tasks: vec![Task {
                        body: piece,
                        iteration: Some(iteration),
                        span,
                    }],
                }),
                span,
            }],
            term: Terminator::Return {
                value: None,
                kind: ReturnKind::End,
            },
            term_span: span,
            loop_depth: 0,
        }];
    }
}
