//! Effect summaries of crate-local functions: which parameters a function reads,
//! writes, overwrites in place, frees or lets escape, and what it returns (new memory,
//! a view of a parameter, or nothing known). The lowering applies a callee's summary at
//! each call site, so a helper's effects are ops of its caller.
//!
//! Summaries are computed bottom-up over the call graph in strongly connected
//! components; inside a recursive component they are iterated to a fixpoint (the sets
//! only grow and are bounded by the parameter count, so this terminates).

use std::collections::BTreeSet;

use crate::dataflow::derivations::derivations;
use crate::dataflow::{Derivations, PointsTo};
use crate::ir::{
    Annotations, FnIr, Op, ReleaseKind, ReleasedBy, RootOrigin, StaticTable, Terminator, ValueId,
    ValueKind, ViewOp,
};
use crate::source::Span;

/// What a function returns, memory-wise.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ReturnSummary {
    #[default]
    Nothing,
    /// New memory the caller owns, released as given.
    Alloc(ReleasedBy),
    /// A view, pointer or shared handle of parameter `n`'s memory.
    ViewOf(usize),
    /// An entry of a `static` table, at an index the function computes.
    Entry(StaticTable),
}

/// The effects of one function on its parameters (receiver = 0 for methods).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FnSummary {
    pub reads: BTreeSet<usize>,
    pub writes: BTreeSet<usize>,
    pub inplace: BTreeSet<usize>,
    pub frees: BTreeSet<usize>,
    pub escapes: BTreeSet<usize>,
    /// Parameters whose memory an atomic operation writes (`self.state.fetch_or(..)`),
    /// with the bytes `(offset, len)` of the parameter's object written, when the
    /// parameter is a struct object and the field is known.
    /// The span is the first such operation's (a nested call's, when it is in a
    /// callee of the callee).
    pub atomic_writes: BTreeSet<AtomicWrite>,
    /// `static` tables an atomic operation writes an entry of, at an index the
    /// function computes (a lock chosen by address), with where, once per table.
    pub table_writes: Vec<(StaticTable, Span)>,
    pub returns: ReturnSummary,
    /// With [`ReturnSummary::ViewOf`]: the returned view has the argument's geometry
    /// (a getter such as `SendPtr::get`), so a caller keeps what it knew.
    pub returns_whole: bool,
    /// With [`ReturnSummary::ViewOf`]: the result is a raw pointer this many elements
    /// past the start of the argument's memory, over the names of the function's
    /// integer parameters (`self.ptr_mut().add(i)` gives `i`).
    pub returns_offset: Option<crate::oracle::Expr>,
    /// The elements a function writes through a raw-pointer parameter, when every
    /// write through it has a place known over the function's integer parameters:
    /// `*data.add(i >> 3) &= m` writes element `i/8`, and a loop `for j in 0..n` writing
    /// `*c.add(j)` writes `n` elements from 0. The caller places them at its argument.
    pub write_regions: Vec<AccessRegion>,
    /// The elements a function reads through a raw-pointer parameter, as
    /// [`Self::write_regions`] places its writes (`*y.add(i) += ..` in a loop reads the
    /// `n` elements it writes).
    pub read_regions: Vec<AccessRegion>,
    /// What a `bool` result says when it is `true` (see [`FnIr::returns_condition`]).
    pub returns_condition: Vec<crate::ir::Assumption>,
    /// Entries of buffer fields of parameters an atomic operation writes (a lock of
    /// `self.shards` taken), see [`FieldWrite`].
    pub field_writes: Vec<FieldWrite>,
    /// Parameters whose length (`Vec::set_len`, a count field of a container's
    /// `self`) the function sets: which of their slots are owned is the code's to say.
    pub sets_len: BTreeSet<usize>,
    /// Parameters within whose memory the function copies values with something to
    /// drop (`ptr::copy`), leaving the count of what is owned to its caller.
    pub copies_within: BTreeSet<usize>,
}

/// An atomic write of one entry of buffer field `field` of parameter `param`: at
/// `index` over the function's integer parameters, or at an index it computes at run
/// time (`None`); `span` is where the operation is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldWrite {
    pub param: usize,
    pub field: String,
    pub index: Option<crate::oracle::Expr>,
    pub span: Span,
}

/// Elements a function writes through raw-pointer parameter `param`: `offset` elements
/// past where the pointer points, with `dims` (length, stride), all over the names of
/// the function's integer parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessRegion {
    pub param: usize,
    pub elem_bytes: u32,
    pub offset: crate::oracle::Expr,
    pub dims: Vec<crate::oracle::Dim>,
}

/// A parameter an atomic operation of the function writes: its index, the bytes
/// `(offset, len)` of the parameter's object when known, and where the operation is.
pub type AtomicWrite = (usize, Option<(i64, i64)>, Span);

impl FnSummary {
    /// What a call does when it runs one of several functions, which one not known (a
    /// trait method called on a type parameter, with the crate's impls as candidates):
    /// what any of them may read, write or let escape, and, to stay sure, a release or
    /// a returned value only where all of them agree.
    pub fn of_alternatives(all: &[FnSummary]) -> FnSummary {
        let Some((first, rest)) = all.split_first() else {
            return FnSummary::default();
        };
        let mut s = FnSummary {
            reads: first.reads.clone(),
            writes: first.writes.clone(),
            inplace: first.inplace.clone(),
            escapes: first.escapes.clone(),
            frees: first.frees.clone(),
            sets_len: first.sets_len.clone(),
            copies_within: first.copies_within.clone(),
            returns: first.returns.clone(),
            returns_whole: first.returns_whole,
            returns_offset: first.returns_offset.clone(),
            ..FnSummary::default()
        };
        for other in rest {
            s.reads.extend(other.reads.iter().copied());
            s.writes.extend(other.writes.iter().copied());
            s.inplace.extend(other.inplace.iter().copied());
            s.escapes.extend(other.escapes.iter().copied());
            s.frees.retain(|i| other.frees.contains(i));
            s.sets_len.extend(other.sets_len.iter().copied());
            s.copies_within.extend(other.copies_within.iter().copied());
            if s.returns != other.returns {
                s.returns = ReturnSummary::Nothing;
            }
            s.returns_whole &= other.returns_whole;
            if s.returns_offset != other.returns_offset {
                s.returns_offset = None;
            }
        }
        s
    }

    /// The summary the annotations alone give.
    pub fn from_annotations(ann: &Annotations) -> FnSummary {
        let mut s = FnSummary::default();
        s.frees.extend(ann.frees.iter().copied());
        s.inplace.extend(ann.inplace.iter().copied());
        if let Some(of) = ann.view_of {
            s.returns = ReturnSummary::ViewOf(of);
        } else if ann.alloc {
            s.returns = ReturnSummary::Alloc(ReleasedBy::Function(
                "a `#[tensor_lint::free]` function".into(),
            ));
        }
        s
    }

    /// The summary of a lowered function: its annotations, plus what its ops do to the
    /// memory of its parameters.
    pub fn of(ir: &FnIr) -> FnSummary {
        let mut s = FnSummary::from_annotations(&ir.annotations);
        let points_to = PointsTo::compute(ir);
        // A raw owner passed by value (a root of its parameter that is dropped here) is
        // the callee's own: what it does with it is no effect on the caller's memory.
        let param_root = |r: &crate::ir::Root| match r.origin {
            RootOrigin::Param(i) if r.released_by != ReleasedBy::Drop => Some(i),
            _ => None,
        };
        let params_of = |v: ValueId| -> Vec<usize> {
            points_to
                .roots(v)
                .iter()
                .filter_map(|r| param_root(ir.roots.get(r.0 as usize)?))
                .collect()
        };
        let param_of = |kind: &ValueKind| -> Option<usize> {
            let root = kind.root()?;
            param_root(ir.roots.get(root.0 as usize)?)
        };
        let kind = |v: ValueId| ir.values.get(v.0 as usize).map(|v| &v.kind);
        // What the function writes in its own copy of an argument (an array passed by
        // value) is no write of the caller's.
        let copied_in = |v: ValueId| {
            points_to
                .roots(v)
                .iter()
                .any(|r| ir.roots.get(r.0 as usize).is_some_and(|r| r.copied_in))
        };
        let params = ir.bodies.first().map_or(&[][..], |b| &b.params[..]);
        // The parameters deallocated, and those released another way (dropped, freed by
        // a function).
        let mut deallocated: BTreeSet<usize> = BTreeSet::new();
        let mut dropped: BTreeSet<usize> = BTreeSet::new();
        // How each value was derived, for the releases of a field's pointer.
        let releases = ir
            .stmts()
            .any(|(_, _, st)| matches!(st.op, Op::Release { .. }));
        let released_from = releases.then(|| derivations(ir));
        for (_, _, stmt) in ir.stmts() {
            if let Op::Atomic {
                value,
                write: true,
                inner,
            } = &stmt.op
            {
                let bytes = ir.values.get(value.0 as usize).and_then(|v| {
                    let view = v.view.as_ref()?;
                    let root = ir.roots.get(view.root.0 as usize)?;
                    if root.elem_bytes != 1 {
                        return None;
                    }
                    let [dim] = view.dims.as_slice() else {
                        return None;
                    };
                    (dim.stride.as_const()? == 1)
                        .then(|| Some((view.offset.as_const()?, dim.len.as_const()?)))
                        .flatten()
                });
                let at = inner.unwrap_or(stmt.span);
                if let Some(w) = field_write(ir, *value, at) {
                    if !s
                        .field_writes
                        .iter()
                        .any(|o| (o.param, &o.field, &o.index) == (w.param, &w.field, &w.index))
                    {
                        s.field_writes.push(w);
                    }
                    continue;
                }
                if let Some(table) = table_of(ir, *value) {
                    if !s.table_writes.iter().any(|(t, _)| t.name == table.name) {
                        s.table_writes.push((table, at));
                    }
                }
                for i in params_of(*value) {
                    if !s
                        .atomic_writes
                        .iter()
                        .any(|(j, b, _)| (*j, *b) == (i, bytes))
                    {
                        s.atomic_writes.insert((i, bytes, at));
                    }
                }
                continue;
            }
            // The parameters a length is set of, or values are copied within: through
            // the memory they reach, or the parameter itself (`self` of a container).
            let owned = match &stmt.op {
                Op::SetLen { value, .. } => Some((&mut s.sets_len, *value)),
                Op::Duplicate {
                    src,
                    how: crate::ir::DuplicateKind::Copied,
                    ..
                } => Some((&mut s.copies_within, *src)),
                _ => None,
            };
            if let Some((set, value)) = owned {
                set.extend(params_of(value));
                set.extend(params.iter().position(|p| *p == value));
                continue;
            }
            let (set, value) = match &stmt.op {
                Op::Read { value, .. } => (&mut s.reads, *value),
                Op::Write { value, .. } if copied_in(*value) => continue,
                Op::InPlace { dst, .. } if copied_in(*dst) => continue,
                Op::Write { value, .. } => (&mut s.writes, *value),
                Op::InPlace { dst, .. } => (&mut s.inplace, *dst),
                // `Box::from_raw(p)` / `Vec::from_raw_parts(p, ..)` takes `p` back into an
                // owner: whether that owner is then dropped here is a release of its own.
                Op::Release {
                    how: ReleaseKind::FromRaw(_),
                    ..
                } => continue,
                // A field's old owner dropped by an assignment over it (`self.buf =
                // buf`): the field holds the new one, and the caller's memory is whole.
                Op::Release {
                    value,
                    how: ReleaseKind::ScopeEnd | ReleaseKind::Drop,
                } if replaced_field(ir, &points_to, *value) => continue,
                // The pointer a field held, released, with the field assigned anew
                // (`dealloc(self.ptr); self.ptr = fresh`): the caller's value holds
                // memory still, only other memory.
                Op::Release { value, .. }
                    if released_from
                        .as_ref()
                        .is_some_and(|d| field_pointer_replaced(ir, &points_to, d, *value)) =>
                {
                    continue
                }
                Op::Release { value, how } => {
                    if matches!(how, ReleaseKind::Dealloc) {
                        deallocated.extend(params_of(*value));
                    } else {
                        dropped.extend(params_of(*value));
                    }
                    (&mut s.frees, *value)
                }
                Op::Escape { value, how } if *how != crate::ir::EscapeKind::Returned => {
                    (&mut s.escapes, *value)
                }
                _ => continue,
            };
            set.extend(params_of(value));
        }
        s.write_regions = access_regions(ir, &s.writes, true);
        s.read_regions = access_regions(ir, &s.reads, false);
        let names = int_param_names(ir);
        let over_params = |e: &crate::oracle::Expr| e.symbols().iter().all(|s| names.contains(s));
        s.returns_condition = ir
            .returns_condition
            .iter()
            .filter(|a| over_params(&a.lhs) && over_params(&a.rhs))
            .cloned()
            .collect();
        // A function that sets the count of what it copies within says itself what is
        // owned: its callers need not.
        let sets_len = s.sets_len.clone();
        s.copies_within.retain(|i| !sets_len.contains(i));
        // Memory a function frees is gone, not kept: freeing is the stronger effect.
        let frees = s.frees.clone();
        s.escapes.retain(|i| !frees.contains(i));
        // How each value was derived: computed above where there are releases, or
        // once a returned view needs it.
        let mut derived: Option<Derivations> = released_from;
        if s.returns == ReturnSummary::Nothing {
            let main = ir.bodies.first();
            for block in main.into_iter().flat_map(|b| &b.blocks) {
                let Terminator::Return { value: Some(v), .. } = &block.term else {
                    continue;
                };
                let Some(k) = kind(*v) else { continue };
                if let Some(table) = table_of(ir, *v) {
                    s.returns = ReturnSummary::Entry(table);
                    break;
                }
                if let Some(i) = param_of(k) {
                    s.returns = ReturnSummary::ViewOf(i);
                    // Returned on one path, deallocated on another (`realloc`, which
                    // grows the block in place or moves it): the caller's pointer is
                    // handed over either way, not freed under the view returned.
                    if deallocated.contains(&i) && !dropped.contains(&i) {
                        s.frees.remove(&i);
                        s.escapes.insert(i);
                    }
                    let d = derived.get_or_insert_with(|| derivations(ir));
                    s.returns_whole = derived_whole(ir, d, *v);
                    // A zero offset is the argument itself: `returns_whole` says that.
                    s.returns_offset = pointer_offset(ir, *v).filter(|o| o.as_const() != Some(0));
                    break;
                }
                if let Some(root) = k.root().and_then(|r| ir.roots.get(r.0 as usize)) {
                    if root.origin == RootOrigin::Alloc
                        && matches!(k, ValueKind::Root(_) | ValueKind::RawPtr(_))
                    {
                        // Memory taken back into a `Box` (or `Vec`) is returned as that
                        // owner, which frees it when dropped.
                        let reclaimed = ir.stmts().any(|(_, _, st)| {
                            matches!(&st.op, Op::Release { value, how: ReleaseKind::FromRaw(_) }
                                if points_to.roots(*value).contains(&root.id))
                        });
                        s.returns = ReturnSummary::Alloc(if reclaimed {
                            ReleasedBy::Drop
                        } else {
                            root.released_by.clone()
                        });
                    }
                }
            }
        }
        // An owner moved into the function and dropped here (the compiler front end
        // says where), with a view made from its raw pointer returned: the function
        // frees what the view it returns reaches.
        if s.returns == ReturnSummary::Nothing {
            let derived = derived.get_or_insert_with(|| derivations(ir));
            if let Some(i) = view_of_dropped_owner(ir, &points_to, derived) {
                s.returns = ReturnSummary::ViewOf(i);
                s.frees.insert(i);
            }
        }
        // A parameter's memory returned inside what the function builds (a field of the
        // struct it returns, `Self { handle, .. }`): it lives on in the caller's result,
        // which the caller keeps or drops.
        for (_, _, stmt) in ir.stmts() {
            if let Op::Escape {
                value,
                how: crate::ir::EscapeKind::Returned,
            } = &stmt.op
            {
                // A pointer parameter itself (not a field of a struct handed in by value,
                // which a method returning `Self` hands back whole).
                let pointers = points_to.roots(*value).iter().filter_map(|r| {
                    let root = ir.roots.get(r.0 as usize)?;
                    root.field.is_none().then(|| param_root(root)).flatten()
                });
                for i in pointers.collect::<Vec<_>>() {
                    if s.returns != ReturnSummary::ViewOf(i) && !s.frees.contains(&i) {
                        s.escapes.insert(i);
                    }
                }
            }
        }
        if let ReturnSummary::ViewOf(i) = s.returns {
            let derived = derived.unwrap_or_else(|| derivations(ir));
            if dies_under_returned_view(ir, &points_to, &derived, i, &s) {
                s.frees.insert(i);
            }
        }
        s
    }
}

/// Whether `v` is a field of a parameter that this function assigns (its value is
/// reassigned): what its drop releases is the old value the assignment replaces.
fn replaced_field(ir: &FnIr, points_to: &PointsTo, v: ValueId) -> bool {
    let Some(value) = ir.values.get(v.0 as usize) else {
        return false;
    };
    value.reassigned
        && points_to.roots(v).iter().any(|r| {
            ir.roots.get(r.0 as usize).is_some_and(|root| {
                root.field.is_some() && matches!(root.origin, RootOrigin::Param(_))
            })
        })
}

/// Whether released value `v` was read, through copies and views, from a field of a
/// parameter that this function assigns again.
fn field_pointer_replaced(
    ir: &FnIr,
    points_to: &PointsTo,
    derived: &Derivations,
    v: ValueId,
) -> bool {
    let mut seen = BTreeSet::new();
    let mut cur = v;
    while seen.insert(cur) {
        if replaced_field(ir, points_to, cur) {
            return true;
        }
        match derived.get(&cur) {
            Some((src, _)) => cur = *src,
            None => return false,
        }
    }
    false
}

/// What [`FnSummary::field_writes`] says of an atomic write of `v`, when `v` is one
/// entry of a buffer field of a parameter.
fn field_write(ir: &FnIr, v: ValueId, span: Span) -> Option<FieldWrite> {
    let val = ir.values.get(v.0 as usize)?;
    let root = ir.roots.get(val.kind.root()?.0 as usize)?;
    let (RootOrigin::Param(param), Some(field)) = (&root.origin, &root.field) else {
        return None;
    };
    let view = val.view.as_ref().filter(|w| w.dims.is_empty())?;
    root.shape.as_ref().filter(|s| s.len() == 1)?;
    let names = int_param_names(ir);
    let index = Some(view.offset.clone()).filter(|o| o.symbols().iter().all(|s| names.contains(s)));
    Some(FieldWrite {
        param: *param,
        field: field.clone(),
        index,
        span,
    })
}

/// The `static` table `v` is memory of, when it is one.
fn table_of(ir: &FnIr, v: ValueId) -> Option<StaticTable> {
    let root = ir.values.get(v.0 as usize)?.kind.root()?;
    let root = ir.roots.get(root.0 as usize)?;
    if root.origin != RootOrigin::Global {
        return None;
    }
    Some(StaticTable {
        name: root.name.clone(),
        elem_bytes: root.elem_bytes,
        elem_type: root.elem_type.clone(),
        shape: root.shape.clone()?,
    })
}

/// Whether parameter `i` is an owner taken by value that the function neither moves
/// nor hands on, and the view it returns of it was made through a raw pointer
/// (`slice::from_raw_parts(data.as_ptr(), ..)` of a `Cow` or `Vec` parameter): the
/// owner is dropped when the function returns, under the view. (A view made without raw
/// pointers would not compile.)
fn dies_under_returned_view(
    ir: &FnIr,
    points_to: &PointsTo,
    derived: &Derivations,
    i: usize,
    s: &FnSummary,
) -> bool {
    if s.escapes.contains(&i) || s.frees.contains(&i) {
        return false;
    }
    let Some(body) = ir.bodies.first() else {
        return false;
    };
    let Some(&param) = body.params.get(i) else {
        return false;
    };
    let Some(ValueKind::Root(root)) = ir.values.get(param.0 as usize).map(|v| &v.kind) else {
        return false;
    };
    let shared = ir
        .values
        .get(param.0 as usize)
        .is_some_and(|v| v.ty == crate::ir::TyClass::Shared);
    if shared {
        return false;
    }
    // Moved into a call, stored, or given up: not dropped here.
    let handed_on = ir.stmts().any(|(_, _, st)| match &st.op {
        Op::Call { args, .. } => args.iter().any(|a| points_to.roots(*a).contains(root)),
        Op::Escape { value, how } => {
            *how != crate::ir::EscapeKind::Returned && points_to.roots(*value).contains(root)
        }
        Op::Release { value, .. } => points_to.roots(*value).contains(root),
        _ => false,
    });
    if handed_on {
        return false;
    }
    let returned = returned_values(ir);
    !returned.is_empty() && raw_views_of(ir, points_to, derived, &returned, *root)
}

/// The values the function's returns give back.
fn returned_values(ir: &FnIr) -> Vec<ValueId> {
    ir.bodies
        .first()
        .map(|body| {
            body.blocks
                .iter()
                .filter_map(|b| b.term.returned())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether each of `values` reaches only `root`, through a view made from a raw pointer.
fn raw_views_of(
    ir: &FnIr,
    points_to: &PointsTo,
    derived: &Derivations,
    values: &[ValueId],
    root: crate::ir::RootId,
) -> bool {
    values
        .iter()
        .all(|&v| points_to.roots(v) == [root] && through_raw_pointer(ir, derived, v))
}

/// The parameter whose owner, moved into the function and dropped in it, every
/// return gives back a view of, made through a raw pointer.
fn view_of_dropped_owner(ir: &FnIr, points_to: &PointsTo, derived: &Derivations) -> Option<usize> {
    let returned = returned_values(ir);
    let first = *returned.first()?;
    let [root] = points_to.roots(first) else {
        return None;
    };
    let r = ir.roots.get(root.0 as usize)?;
    let (RootOrigin::Param(i), ReleasedBy::Drop) = (&r.origin, &r.released_by) else {
        return None;
    };
    let all_views = raw_views_of(ir, points_to, derived, &returned, *root);
    let dropped = ir.stmts().any(|(_, _, st)| {
        matches!(&st.op, Op::Release { value, how: ReleaseKind::ScopeEnd | ReleaseKind::Drop }
            if points_to.roots(*value).contains(root))
    });
    (all_views && dropped).then_some(*i)
}

/// Whether `v` was derived, by views and assignments, from a raw pointer.
fn through_raw_pointer(ir: &FnIr, derived: &Derivations, v: ValueId) -> bool {
    let mut cur = v;
    // A chain longer than the value table would be a cycle; stop there.
    for _ in 0..=ir.values.len() {
        if matches!(
            ir.values.get(cur.0 as usize).map(|v| &v.kind),
            Some(ValueKind::RawPtr(_))
        ) {
            return true;
        }
        match derived.get(&cur) {
            Some((src, _)) => cur = *src,
            None => return false,
        }
    }
    false
}

/// The offset of raw pointer `v` into its root, when it is written over the names of
/// the function's integer parameters alone (so a caller can put its arguments in).
fn pointer_offset(ir: &FnIr, v: ValueId) -> Option<crate::oracle::Expr> {
    let val = ir.values.get(v.0 as usize)?;
    let view = val.view.as_ref()?;
    // A raw pointer, or a reference to the one element it points at (`&mut *p.add(i)`).
    let element_ref = matches!(val.kind, ValueKind::View(_)) && view.dims.is_empty();
    if !matches!(val.kind, ValueKind::RawPtr(_)) && !element_ref {
        return None;
    }
    let names = int_param_names(ir);
    view.offset
        .symbols()
        .iter()
        .all(|s| names.iter().any(|n| n == s))
        .then(|| view.offset.clone())
}

/// The names of `ir`'s integer parameters that stand for themselves.
fn int_param_names(ir: &FnIr) -> Vec<String> {
    let Some(body) = ir.bodies.first() else {
        return Vec::new();
    };
    body.params
        .iter()
        .filter_map(|p| {
            let pv = ir.values.get(p.0 as usize)?;
            let name = pv.name.clone()?;
            (pv.int.as_ref()? == &crate::oracle::Expr::sym(&name)).then_some(name)
        })
        .collect()
}

/// The elements a function reads or writes through its raw-pointer parameter `param`
/// (`regions`: [`FnSummary::read_regions`] or [`FnSummary::write_regions`]), placed at
/// `at`, where the caller's pointer points; `in_caller` puts an expression over the
/// function's integer parameters in the caller's terms. `None` when the summary does
/// not place them, or one of them cannot be said in the caller's terms.
pub fn placed(
    regions: &[AccessRegion],
    param: usize,
    at: &crate::oracle::View,
    in_caller: impl Fn(&crate::oracle::Expr) -> Option<crate::oracle::Expr>,
) -> Option<Vec<crate::oracle::View>> {
    let places: Vec<&AccessRegion> = regions.iter().filter(|w| w.param == param).collect();
    if places.is_empty() {
        return None;
    }
    places
        .into_iter()
        .map(|w| {
            if w.elem_bytes != at.elem_bytes {
                return None;
            }
            let offset = in_caller(&w.offset)?;
            let dims = w
                .dims
                .iter()
                .map(|d| {
                    Some(crate::oracle::Dim {
                        len: in_caller(&d.len)?,
                        stride: in_caller(&d.stride)?,
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            Some(crate::oracle::View {
                root: at.root,
                elem_bytes: at.elem_bytes,
                offset: &at.offset + &offset,
                dims,
            })
        })
        .collect()
}

/// What [`FnSummary::write_regions`] (with `writes`) or [`FnSummary::read_regions`]
/// says of `ir`: for each raw-pointer parameter in `params` whose every write (or read)
/// has a known place, those places relative to it.
fn access_regions(ir: &FnIr, params: &BTreeSet<usize>, writes: bool) -> Vec<AccessRegion> {
    let Some(body) = ir.bodies.first() else {
        return Vec::new();
    };
    let names = int_param_names(ir);
    let loops: Vec<&crate::ir::Iteration> = ir.loop_ranges.iter().map(|(_, it)| it).collect();
    let mut out = Vec::new();
    for &param in params {
        let Some(pv) = body
            .params
            .get(param)
            .and_then(|p| ir.values.get(p.0 as usize))
        else {
            continue;
        };
        let (ValueKind::RawPtr(Some(root)), Some(base)) = (&pv.kind, pv.view.as_ref()) else {
            continue;
        };
        let mut places = Vec::new();
        let mut known = true;
        for (_, _, stmt) in ir.stmts() {
            let (value, region) = match &stmt.op {
                Op::Write { value, region } if writes => (*value, region.as_ref()),
                Op::InPlace { dst, .. } if writes => (*dst, None),
                Op::Read { value, region } if !writes => (*value, region.as_ref()),
                _ => continue,
            };
            let Some(v) = ir.values.get(value.0 as usize) else {
                continue;
            };
            if v.kind.root() != Some(*root) {
                continue;
            }
            let place = region
                .or(v.view.as_ref())
                .and_then(|r| crate::dataflow::parallel::fold_loops(r.clone(), &loops))
                .map(|(r, _)| r)
                .filter(|r| {
                    r.symbols().iter().all(|s| names.contains(s))
                        && !base.offset.symbols().iter().any(|s| !names.contains(s))
                });
            match place {
                Some(r) => places.push(AccessRegion {
                    param,
                    elem_bytes: r.elem_bytes,
                    offset: &r.offset - &base.offset,
                    dims: r.dims,
                }),
                None => {
                    known = false;
                    break;
                }
            }
        }
        if known {
            places.dedup();
            out.extend(places);
        }
    }
    out
}

/// Whether `v` is a parameter's memory (or a field of it) reached only through
/// geometry-preserving steps (`Assign`, whole views).
fn derived_whole(ir: &FnIr, derived: &Derivations, v: ValueId) -> bool {
    let mut cur = v;
    // A chain longer than the value table would be a cycle; stop there.
    for _ in 0..=ir.values.len() {
        match derived.get(&cur) {
            Some((_, Some(how))) if *how != ViewOp::Whole => return false,
            Some((src, _)) => cur = *src,
            None => return true,
        }
    }
    false
}

/// Strongly connected components of a call graph, callees before callers (Tarjan's
/// algorithm, iterative so that deep call chains cannot overflow the stack).
pub fn bottom_up_components(n: usize, edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    for start in 0..n {
        if index[start] != UNSEEN {
            continue;
        }
        // (node, position in its edge list)
        let mut work = vec![(start, 0usize)];
        index[start] = next;
        low[start] = next;
        next += 1;
        stack.push(start);
        on_stack[start] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            let succs = edges.get(v).map_or(&[][..], Vec::as_slice);
            if let Some(&w) = succs.get(*pos) {
                *pos += 1;
                if w >= n {
                    continue;
                }
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                comp.sort_unstable();
                out.push(comp);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_callees_first_with_cycles_grouped() {
        // 0 -> 1 -> 2 -> 1, 0 -> 3
        let edges = vec![vec![1, 3], vec![2], vec![1], vec![]];
        let comps = bottom_up_components(4, &edges);
        let pos = |x: usize| comps.iter().position(|c| c.contains(&x)).expect("present");
        assert_eq!(comps.iter().find(|c| c.contains(&1)), Some(&vec![1, 2]));
        assert!(pos(1) < pos(0));
        assert!(pos(3) < pos(0));
    }

    #[test]
    fn deep_call_chain_does_not_overflow() {
        let n = 200_000;
        let edges: Vec<Vec<usize>> = (0..n)
            .map(|i| if i + 1 < n { vec![i + 1] } else { vec![] })
            .collect();
        let comps = bottom_up_components(n, &edges);
        assert_eq!(comps.len(), n);
        assert_eq!(comps[0], vec![n - 1]);
    }

    #[test]
    fn annotations_seed_the_summary() {
        let ann = Annotations {
            frees: vec![1],
            view_of: Some(0),
            ..Annotations::default()
        };
        let s = FnSummary::from_annotations(&ann);
        assert!(s.frees.contains(&1));
        assert_eq!(s.returns, ReturnSummary::ViewOf(0));
    }
}
