//! Applying a [`ViewOp`] to an oracle [`View`]: the geometry half of the view models,
//! and the access regions of parallel tasks ([`task_accesses`]) that the race and
//! false-sharing lints hand to the oracle. Every function returns `None` when the
//! result is not known exactly; the view value then still reaches its root, only
//! without a geometry.

use std::collections::{BTreeSet, HashMap};

use crate::ir::{
    BodyId, BodyKind, Callee, FnIr, Iteration, Op, SliceSpec, Task, TyClass, ValueId, ValueKind,
    ViewOp,
};
use crate::oracle::{Dim, Expr, RootId, View};
use crate::source::Span;

/// The geometry of `src` after `op`.
pub fn apply(src: &View, op: &ViewOp) -> Option<View> {
    match op {
        ViewOp::Whole => Some(src.clone()),
        ViewOp::Slice(specs) => slice(src, specs),
        ViewOp::Transpose => Some(src.transpose()),
        ViewOp::Permute(order) => src.permute(order),
        ViewOp::Broadcast(shape) => src.broadcast(shape.clone()),
        ViewOp::Reshape(shape) => src.reshape(shape.clone()),
        ViewOp::Diag => diag(src),
        ViewOp::Split { axis, at, second } => {
            let (a, b) = src.split_at(*axis, at.clone())?;
            Some(if *second { b } else { a })
        }
        ViewOp::Iter {
            axis,
            chunk: None,
            index,
        } => src.index(*axis, index.clone()),
        ViewOp::Iter {
            axis,
            chunk: Some(c),
            index,
        } => src.chunk(*axis, index.clone(), c.clone()),
        ViewOp::Offset(delta) => Some(src.offset_by(delta.clone())),
        ViewOp::FromRaw { shape, strides } => Some(from_raw(
            src.root,
            src.elem_bytes,
            &src.offset,
            shape,
            strides.as_deref(),
        )),
        ViewOp::Opaque(_) => None,
    }
}

/// A view rebuilt from a pointer at `offset` of `root` (`from_raw_parts`,
/// `from_shape_ptr`); row-major unless strides are given.
pub fn from_raw(
    root: RootId,
    elem_bytes: u32,
    offset: &Expr,
    shape: &[Expr],
    strides: Option<&[Expr]>,
) -> View {
    let mut view = View::contiguous(root, elem_bytes, shape.to_vec());
    if let Some(strides) = strides.filter(|s| s.len() == shape.len()) {
        for (d, s) in view.dims.iter_mut().zip(strides) {
            d.stride = s.clone();
        }
    }
    view.offset = offset.clone();
    view
}

/// The element a raw pointer derived from `src` points at: its first element.
pub fn pointer_to_start(src: &View) -> View {
    View {
        root: src.root,
        elem_bytes: src.elem_bytes,
        offset: src.offset.clone(),
        dims: Vec::new(),
    }
}

/// The element (or sub-view) `a[[i, j, ..]]` addresses.
pub fn index(src: &View, indices: &[Expr]) -> Option<View> {
    let mut out = src.clone();
    for i in indices {
        out = out.index(0, i.clone())?;
    }
    Some(out)
}

fn slice(src: &View, specs: &[SliceSpec]) -> Option<View> {
    let mut out = src.clone();
    let mut axis = 0;
    for spec in specs {
        match spec {
            SliceSpec::Range { start, end, step } => {
                let len = out.dims.get(axis)?.len.clone();
                let start = start.clone().unwrap_or_else(|| Expr::int(0));
                let end = end.clone().unwrap_or(len);
                out = out.slice(axis, start, end, step.as_const()?)?;
                axis += 1;
            }
            SliceSpec::Index(i) => {
                let len = out.dims.get(axis)?.len.clone();
                let i = match i.as_const() {
                    Some(c) if c < 0 => &len + i,
                    _ => i.clone(),
                };
                out = out.index(axis, i)?;
            }
            SliceSpec::NewAxis => {
                if axis > out.dims.len() {
                    return None;
                }
                out.dims.insert(axis, Dim::new(1, 0));
                axis += 1;
            }
        }
    }
    Some(out)
}

fn diag(src: &View) -> Option<View> {
    let [a, b] = src.dims.as_slice() else {
        return None;
    };
    let mut out = src.clone();
    out.dims = vec![Dim {
        len: a.len.minimum(&b.len),
        stride: &a.stride + &b.stride,
    }];
    Some(out)
}

/// Whether a task reads or writes the memory it accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
}

/// One read or write a parallel task performs, with the elements it reaches.
#[derive(Clone, Debug)]
pub struct TaskAccess {
    pub kind: AccessKind,
    /// The value read or written.
    pub value: ValueId,
    pub root: RootId,
    /// The elements reached over the whole task instance: the access region, with the
    /// variables of serial loops inside the task folded into extra trailing dimensions
    /// (see [`TaskAccess::folded`]). `None` when the geometry is not known or a loop
    /// variable could not be folded.
    pub view: Option<View>,
    /// How many leading dimensions of `view` are the accessed value's own.
    pub own_dims: usize,
    /// The loop variables folded into the trailing dimensions, with their first value.
    pub folded: Vec<(String, Expr)>,
    /// Reached through a raw pointer, a view rebuilt from one (`from_raw_parts`,
    /// `from_shape_ptr`) or a tensor handle: memory the borrow checker does not see.
    pub unchecked: bool,
    /// Repeated inside the task: in a loop of the task's own code.
    pub in_loop: bool,
    pub span: Span,
}

/// Bodies reached from `body` through closure calls and nested parallel regions
/// (spawns are tasks of their own and are not followed).
fn reached_bodies(ir: &FnIr, body: BodyId, out: &mut Vec<BodyId>) {
    if out.contains(&body) || ir.bodies.get(body.0 as usize).is_none() {
        return;
    }
    out.push(body);
    for block in &ir.body(body).blocks {
        for stmt in &block.stmts {
            match &stmt.op {
                Op::Call {
                    callee: Callee::Closure(b),
                    ..
                } => reached_bodies(ir, *b, out),
                Op::Parallel(region) => {
                    for t in &region.tasks {
                        reached_bodies(ir, t.body, out);
                    }
                }
                _ => {}
            }
        }
    }
}

/// How each value was derived: `dst -> (src, how)`, `how` being `None` for a plain
/// assignment.
pub type Derivations = HashMap<ValueId, (ValueId, Option<ViewOp>)>;

/// The [`Derivations`] of every view and assignment of `ir`.
pub fn derivations(ir: &FnIr) -> Derivations {
    let mut map = HashMap::new();
    for (_, _, stmt) in ir.stmts() {
        match &stmt.op {
            Op::View { dst, src, how } => {
                map.insert(*dst, (*src, Some(how.clone())));
            }
            Op::Assign { dst, src } => {
                map.insert(*dst, (*src, None));
            }
            _ => {}
        }
    }
    map
}

/// Whether `value` reaches its memory through something the borrow checker cannot see
/// into: a raw pointer, a view rebuilt from one, or a tensor handle.
pub fn is_unchecked(ir: &FnIr, derived: &Derivations, value: ValueId) -> bool {
    let mut seen = BTreeSet::new();
    let mut cur = value;
    while seen.insert(cur) {
        let Some(v) = ir.values.get(cur.0 as usize) else {
            return false;
        };
        if matches!(v.kind, ValueKind::RawPtr(_))
            || matches!(v.ty, TyClass::RawPtr | TyClass::Tensor)
        {
            return true;
        }
        match derived.get(&cur) {
            Some((_, Some(ViewOp::FromRaw { .. }))) => return true,
            Some((src, _)) => cur = *src,
            None => return false,
        }
    }
    false
}

/// Atomic read-modify-write and store methods: synchronised, never a race.
fn is_atomic_method(method: &str) -> bool {
    method.starts_with("fetch_")
        || method.starts_with("compare_exchange")
        || matches!(method, "store" | "swap" | "load" | "fetch_update")
}

/// Roots whose elements synchronise their own accesses (atomics, locks).
fn is_synchronised(ir: &FnIr, root: RootId) -> bool {
    ir.roots
        .get(root.0 as usize)
        .and_then(|r| r.elem_type.as_deref())
        .is_some_and(|t| {
            t.starts_with("Atomic") || matches!(t, "Mutex" | "RwLock" | "OnceLock" | "OnceCell")
        })
}

/// Folds the loop variables of `loops` that `view` mentions into trailing dimensions:
/// `offset + c*k` for `lo <= k < hi` is the dimension `(hi - lo, c)` from `offset + c*lo`.
fn fold_loops(view: View, loops: &[&Iteration]) -> Option<(View, Vec<(String, Expr)>)> {
    let mut view = view;
    let mut folded = Vec::new();
    for l in loops {
        if !view.mentions(&l.symbol) {
            continue;
        }
        let bounded = loops
            .iter()
            .any(|o| o.lo.mentions(&l.symbol) || o.hi.mentions(&l.symbol));
        let in_dims = view
            .dims
            .iter()
            .any(|d| d.len.mentions(&l.symbol) || d.stride.mentions(&l.symbol));
        if bounded || in_dims {
            return None;
        }
        let coef = view.offset.affine_coefficient(&l.symbol)?;
        view.offset = view.offset.subst(&l.symbol, &l.lo);
        view.dims.push(Dim {
            len: &l.hi - &l.lo,
            stride: coef,
        });
        folded.push((l.symbol.clone(), l.lo.clone()));
    }
    Some((view, folded))
}

/// The reads and writes of one task instance, including those of the closures it calls
/// and the parallel regions nested in it. Crate-local callees are already part of the
/// task's ops through their summaries. Accesses to atomics and locked data are left
/// out: they synchronise.
pub fn task_accesses(ir: &FnIr, task: &Task) -> Vec<TaskAccess> {
    let derived = derivations(ir);
    let mut bodies = Vec::new();
    reached_bodies(ir, task.body, &mut bodies);
    // Serial loops and nested parallel iterations inside the task vary within one task
    // instance; their variables are folded into the access regions.
    let mut loops: Vec<&Iteration> = ir
        .loop_ranges
        .iter()
        .filter(|(b, _)| bodies.contains(b))
        .map(|(_, it)| it)
        .collect();
    let nested: Vec<&Iteration> = bodies
        .iter()
        .flat_map(|b| ir.body(*b).blocks.iter())
        .flat_map(|blk| blk.stmts.iter())
        .filter_map(|s| match &s.op {
            Op::Parallel(r) => Some(r.tasks.iter().filter_map(|t| t.iteration.as_ref())),
            _ => None,
        })
        .flatten()
        .collect();
    loops.extend(nested);
    let entry_depth = |b: BodyId| ir.body(b).blocks.first().map_or(0, |blk| blk.loop_depth);
    let mut out = Vec::new();
    for &b in &bodies {
        let nested_in_loop = b != task.body && body_called_in_loop(ir, &bodies, b);
        for block in &ir.body(b).blocks {
            let in_loop = nested_in_loop || block.loop_depth > entry_depth(b);
            for stmt in &block.stmts {
                let mut push = |kind: AccessKind, value: ValueId, region: Option<&View>| {
                    let Some(v) = ir.values.get(value.0 as usize) else {
                        return;
                    };
                    let Some(root) = v.kind.root() else { return };
                    if is_synchronised(ir, root) {
                        return;
                    }
                    // A pointer's own view is the element it points at; an access
                    // through it without a region (a callee's summary, an opaque use)
                    // may reach anywhere from there.
                    let region = match (&v.kind, region) {
                        (_, Some(r)) => Some(r.clone()),
                        (ValueKind::RawPtr(_), None) => None,
                        (_, None) => v.view.clone(),
                    };
                    let own_dims = region.as_ref().map_or(0, View::ndim);
                    let folded = region.and_then(|r| fold_loops(r, &loops));
                    let (view, folded) = match folded {
                        Some((v, f)) => (Some(v), f),
                        None => (None, Vec::new()),
                    };
                    let in_loop = in_loop || !folded.is_empty();
                    out.push(TaskAccess {
                        kind,
                        value,
                        root,
                        view,
                        own_dims,
                        folded,
                        unchecked: is_unchecked(ir, &derived, value),
                        in_loop,
                        span: stmt.span,
                    });
                };
                match &stmt.op {
                    Op::Read { value, region } => push(AccessKind::Read, *value, region.as_ref()),
                    Op::Write { value, region } => push(AccessKind::Write, *value, region.as_ref()),
                    Op::InPlace { dst, srcs, method } if !is_atomic_method(method) => {
                        for s in srcs {
                            push(AccessKind::Read, *s, None);
                        }
                        push(AccessKind::Write, *dst, None);
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// Whether nested body `b` runs repeatedly within one task instance: a closure defined
/// in (or a parallel region launched from) a loop of an enclosing body of the task.
fn body_called_in_loop(ir: &FnIr, bodies: &[BodyId], b: BodyId) -> bool {
    let mut cur = b;
    while let BodyKind::Closure { parent, .. } = &ir.body(cur).kind {
        if !bodies.contains(parent) {
            return false;
        }
        let base = ir
            .body(*parent)
            .blocks
            .first()
            .map_or(0, |blk| blk.loop_depth);
        let launched_in_loop = ir.body(*parent).blocks.iter().any(|blk| {
            blk.loop_depth > base
                && blk.stmts.iter().any(|s| match &s.op {
                    Op::Call {
                        callee: Callee::Closure(c),
                        ..
                    } => *c == cur,
                    Op::Parallel(r) => r.tasks.iter().any(|t| t.body == cur),
                    _ => false,
                })
        });
        if launched_in_loop {
            return true;
        }
        cur = *parent;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: i64, cols: i64) -> View {
        View::contiguous(RootId(0), 4, vec![Expr::int(rows), Expr::int(cols)])
    }

    #[test]
    fn negative_step_slice_walks_backwards_from_the_end() {
        let spec = SliceSpec::Range {
            start: None,
            end: None,
            step: Expr::int(-1),
        };
        let v = apply(
            &m(3, 4),
            &ViewOp::Slice(vec![SliceSpec::Index(Expr::int(1)), spec]),
        )
        .expect("known");
        assert_eq!(v.offset.as_const(), Some(7));
        assert_eq!(v.dims.len(), 1);
        assert_eq!(v.dims[0].stride.as_const(), Some(-1));
        assert_eq!(v.dims[0].len.as_const(), Some(4));
    }

    #[test]
    fn negative_index_counts_from_the_end_of_the_axis() {
        let v = apply(
            &m(3, 4),
            &ViewOp::Slice(vec![SliceSpec::Index(Expr::int(-1))]),
        )
        .expect("known");
        assert_eq!(v.offset.as_const(), Some(8));
    }

    #[test]
    fn diag_steps_by_row_plus_column_stride() {
        let v = apply(&m(3, 3), &ViewOp::Diag).expect("known");
        assert_eq!(v.dims[0].stride.as_const(), Some(4));
        assert_eq!(v.dims[0].len.as_const(), Some(3));
    }

    #[test]
    fn pointer_offset_then_from_raw_keeps_the_offset() {
        let p = pointer_to_start(&m(2, 8)).offset_by(Expr::int(5));
        let v = from_raw(p.root, 4, &p.offset, &[Expr::int(3)], None);
        assert_eq!(v.offset.as_const(), Some(5));
        assert_eq!(v.dims[0].stride.as_const(), Some(1));
    }

    fn range(symbol: &str, lo: i64, hi: Expr) -> Iteration {
        Iteration {
            symbol: symbol.into(),
            lo: Expr::int(lo),
            hi,
            value: None,
        }
    }

    #[test]
    fn loop_variable_in_the_offset_folds_into_a_trailing_dimension() {
        let w = Expr::sym("w");
        let mut v = pointer_to_start(&m(4, 4));
        v.offset = &(&Expr::sym("t") * &w) + &Expr::sym("k");
        let k = range("k", 0, w.clone());
        let (folded, names) = fold_loops(v, &[&k]).expect("affine in k");
        assert_eq!(folded.dims.len(), 1);
        assert_eq!(folded.dims[0].len, w);
        assert_eq!(folded.dims[0].stride.as_const(), Some(1));
        assert!(!folded.mentions("k"));
        assert_eq!(names, vec![("k".to_string(), Expr::int(0))]);
    }

    #[test]
    fn loop_bounded_by_another_loop_variable_is_not_folded() {
        let mut v = pointer_to_start(&m(4, 4));
        v.offset = Expr::sym("j");
        let j = range("j", 0, Expr::sym("i"));
        let i = range("i", 0, Expr::int(4));
        assert!(fold_loops(v, &[&j, &i]).is_none());
    }

    #[test]
    fn pointer_derived_views_are_unchecked_and_safe_slices_are_not() {
        let (ir, _) = crate::program::analyze_text(
            "fn k(v: &mut Vec<f32>) { let p = v.as_mut_ptr(); \
             let r = unsafe { std::slice::from_raw_parts_mut(p, 4) }; \
             let (a, _b) = v.split_at_mut(2); }",
        );
        let f = ir.functions().last().expect("a function");
        let derived = derivations(f);
        let named = |n: &str| {
            f.values
                .iter()
                .position(|v| v.name.as_deref() == Some(n))
                .map(|i| ValueId(i as u32))
                .expect("binding")
        };
        assert!(is_unchecked(f, &derived, named("r")));
        assert!(!is_unchecked(f, &derived, named("a")));
    }
}
