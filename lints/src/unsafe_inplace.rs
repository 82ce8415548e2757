//! `unsafe_inplace`: in-place ops that clobber a value still needed.

use std::collections::HashMap;

use tensor_lint_analyzer::dataflow::derivations::{derivations, Derivations};
use tensor_lint_analyzer::dataflow::{liveness::uses_after, FnFacts};
use tensor_lint_analyzer::ir::{
    BlockId, BodyId, BodyKind, FnIr, Op, RootId, RootOrigin, Stmt, TyClass, ValueId, ValueKind,
    ViewOp,
};
use tensor_lint_analyzer::oracle::{
    colliding_pair, internal_overlap, overlap, same_map, witness_holds, Assumptions, Verdict,
};
use tensor_lint_analyzer::source::{SourceMap, Span};

use crate::context::{LintContext, LintFinding};
use crate::diagnostic::{Diagnostic, Label, Severity};

crate::declare_lint! {
    /// ### What it does
    /// Reports an in-place operation (`relu_`, `add_`, `mapv_inplace`, `zip_mut_with`,
    /// `scaled_add`, compound assignment, candle's `inplace_op1/2/3`, a function
    /// annotated `#[tensor_lint::inplace(ARG)]`) in four cases, each with its own
    /// message, and references that alias (below). Whole overwrites (`assign`,
    /// `copy_from_slice`, tch's `copy_`, `fill_`, `zero_`, faer's and nalgebra's
    /// `copy_from`, and candle's
    /// `slice_set`, which writes the part of the receiver its source covers) are
    /// checked for overlap, and on tensors for autograd, too.
    /// - **the old value is still needed**: after the op, a read goes through a name
    ///   that existed before it and that the op did not hand back. Those names are
    ///   (a) the destination itself when the op's result is bound to a new name
    ///   (`let y = x.relu_();` then reading `x`: `x` and `y` are one tensor, so the
    ///   author evidently meant `x` as the value before the relu), and (b) every named
    ///   alias derived from the destination before the op (a `shallow_clone`, a view, a
    ///   raw pointer). Reads through the op's result, or through the destination when
    ///   it is the accumulator (`x.relu_(); &x * 2.0`, `let x = x.relu_();`) are what
    ///   in-place code means and are not reported; neither are reads of a value the
    ///   destination was derived from (`row.mapv_inplace(f)` then reading the array
    ///   `row` is a row of). The read is found by liveness over those aliases: a use
    ///   on some path after the op and before the alias is rebound.
    /// - **the destination partially overlaps a source**: a source reaches the
    ///   destination's memory with a different layout (`a.add_(&a.tr())`, a shifted
    ///   `zip_mut_with`, `assign` from a transposed view of the same buffer), so some
    ///   element is written before another index reads it. The same element-wise map
    ///   on both sides (`a.add_(&a)`) is safe and not reported, nor is an op on two
    ///   tensors the function tests with candle's `same_storage`.
    /// - **the destination has internal overlap**: two indices of the written view
    ///   reach one element (an expanded or broadcast view, a raw view with a zero or
    ///   too small stride), so the op writes that element several times.
    /// - **autograd needs the old value**: the destination is a leaf that requires
    ///   grad (outside `no_grad`), or the output of an op that saves its result for
    ///   backward (`sigmoid`, `tanh`, `exp`, `relu`, `softmax`, `sqrt`, ...) computed
    ///   from tensors that require grad.
    ///
    /// It also reports **two `&mut` to one element**: two references made from raw
    /// pointers into one buffer (`&mut *p.add(i)`, `slice::from_raw_parts_mut`), the
    /// first still in use when the second is made, that reach the same element for some
    /// indices (`i == j`), with a witness checked by substitution. Code that compares
    /// the two indices (`if a == b { return }`) is not reported.
    ///
    /// Overlaps the alias oracle proves for every allowed size are errors; overlaps
    /// that are only possible (unknown sizes, a solver time-out) are warnings and say
    /// "may".
    ///
    /// ### Why is this bad
    /// The later read sees the new value instead of the old one, or an element is read
    /// after another index of the same op already overwrote it. The result is silently
    /// wrong, and with autograd the gradient is (or `backward` fails at run time).
    ///
    /// ### Example
    /// ```rust,ignore
    /// let y = x.relu_();
    /// let z = &x + &y; // `x` was meant before the relu, but it is the same tensor as `y`
    /// ```
    /// Use instead: keep the old value, or use the out-of-place op.
    /// ```rust,ignore
    /// let y = x.relu();
    /// let z = &x + &y;
    /// ```
    pub UNSAFE_INPLACE = "unsafe_inplace", Deny, Correctness,
    "in-place op whose operand is still needed",
    possible_is_warn = true
}

/// The pass behind this lint.
pub const PASS: Option<crate::context::CheckFn> = Some(check);

/// One place where a value is overwritten as a whole.
struct Overwrite<'a> {
    body: BodyId,
    block: BlockId,
    index: usize,
    dst: ValueId,
    srcs: Vec<ValueId>,
    /// `None` for a whole overwrite without a method the IR names (`assign`, `copy_`).
    method: Option<&'a str>,
    span: Span,
}

fn check(cx: &LintContext<'_>, out: &mut Vec<LintFinding>) {
    for f in cx.functions() {
        let Some(facts) = cx.ir.facts(f.id) else {
            continue;
        };
        let asm = assumptions(f);
        let defs = definitions(f);
        let grad = GradFacts::of(f, facts);
        for w in overwrites(f) {
            let mut found = Vec::new();
            internal_overlap_case(f, &defs, &w, &asm, &mut found);
            for &src in &w.srcs {
                partial_overlap_case(f, facts, &defs, &w, src, &asm, &mut found);
            }
            old_value_case(cx, f, &defs, &w, &mut found);
            autograd_case(f, facts, &defs, &grad, &w, &mut found);
            out.extend(found);
        }
        two_claims_case(f, &asm, out);
    }
}

// ----- two live `&mut` to the same elements --------------------------------------------

/// A `&mut` made from a raw pointer (`&mut *p`, `slice::from_raw_parts_mut`).
struct ClaimSite {
    body: BodyId,
    block: BlockId,
    index: usize,
    value: ValueId,
    view: tensor_lint_analyzer::oracle::View,
    span: Span,
}

/// Whether `first` (a `&mut`), or a reference or view made of it (`let lo = &mut *tmp`,
/// `&mut lo[..k]`), is used after `second` is made.
fn used_after(f: &FnIr, derived: &Derivations, second: &ClaimSite, first: ValueId) -> bool {
    let made_of = |mut v: ValueId| {
        for _ in 0..16 {
            if v == first {
                return true;
            }
            match derived.get(&v) {
                Some((src, _)) => v = *src,
                None => return false,
            }
        }
        false
    };
    std::iter::once(first)
        .chain(derived.keys().copied().filter(|&v| v != first && made_of(v)))
        .any(|v| !uses_after(f, second.body, second.block, second.index, v).is_empty())
}

/// Two `&mut` made from raw pointers into one buffer, the first still used after the
/// second is made, that may cover the same element: `&mut *p.add(i)` and
/// `&mut *p.add(j)` handed to `mem::swap`, two rows of one matrix as slices. Rust
/// promises a `&mut` is the only way to its elements; with `i == j` there are two.
/// Code that compares the two indices (`if a == b { return }`) has thought of it.
fn two_claims_case(f: &FnIr, asm: &Assumptions, out: &mut Vec<LintFinding>) {
    let mut claims = Vec::new();
    for (b, body) in f.bodies.iter().enumerate() {
        for (k, block) in body.blocks.iter().enumerate() {
            for (i, stmt) in block.stmts.iter().enumerate() {
                if let Op::Claim {
                    value,
                    region: Some(view),
                } = &stmt.op
                {
                    claims.push(ClaimSite {
                        body: BodyId(b as u32),
                        block: BlockId(k as u32),
                        index: i,
                        value: *value,
                        view: view.clone(),
                        span: stmt.span,
                    });
                }
            }
        }
    }
    let derived = if claims.len() > 1 {
        derivations(f)
    } else {
        Derivations::default()
    };
    let mut reported: Vec<Span> = Vec::new();
    for (n, second) in claims.iter().enumerate() {
        for first in &claims[..n] {
            if first.body != second.body
                || first.view.root != second.view.root
                || first.value == second.value
                || reported.contains(&second.span)
                || !runs_before(
                    f,
                    (first.body, first.block, first.index),
                    (second.body, second.block, second.index),
                )
                || !used_after(f, &derived, second, first.value)
                || indices_compared(f, &first.view, &second.view)
            {
                continue;
            }
            let answer = overlap(&first.view, &second.view, asm);
            if answer.verdict == Verdict::NoAlias {
                continue;
            }
            // Only a checked witness is reported: an overlap the oracle cannot show may
            // come from a layout the lowering did not model (a cast to `*mut [T; N]`).
            let Some(w) = answer
                .witness
                .as_ref()
                .filter(|w| witness_holds(&first.view, &second.view, asm, w))
            else {
                continue;
            };
            let proven = answer.verdict == Verdict::MustAlias && !answer.undecided;
            let root = root_label(f, first.view.root);
            let named = |v: ValueId, fallback: &str| match &f.value(v).name {
                Some(n) => format!("`{n}`"),
                None => fallback.to_string(),
            };
            let (a, b) = (
                named(first.value, "the first `&mut`"),
                named(second.value, "the second `&mut`"),
            );
            let are = if proven { "are" } else { "may be" };
            let mut d = Diagnostic::new(
                Severity::Error,
                format!("two `&mut` to the same elements of `{root}` {are} live at once"),
                Label::new(
                    second.span,
                    format!("{b} is made here while {a} is still in use"),
                ),
            )
            .with_label(first.span, format!("{a} is made here"));
            let mut note = format!("{a} and {b} both reach element {} of `{root}`", w.element);
            if !w.symbols.is_empty() {
                note.push_str(&format!(", for example when {}", symbols_text(&w.symbols)));
            }
            d = d
                .with_note(note)
                .with_note("a `&mut` must be the only way to its elements while it lives; two at once are undefined behaviour, whatever is done with them")
                .with_help("return early when the indices are equal, or work through the raw pointers (`ptr::swap`, `ptr::copy`) without making references");
            reported.push(second.span);
            out.push(finding(proven, d));
        }
    }
}

/// Whether the function compares a symbol of one view's offset with one of the
/// other's (`a == b`, `i < j`): it then knows they may be equal.
fn indices_compared(
    f: &FnIr,
    a: &tensor_lint_analyzer::oracle::View,
    b: &tensor_lint_analyzer::oracle::View,
) -> bool {
    let (sa, sb) = (a.offset.symbols(), b.offset.symbols());
    f.compared.iter().any(|(l, r)| {
        let (ls, rs) = (l.symbols(), r.symbols());
        (ls.iter().any(|s| sa.contains(s)) && rs.iter().any(|s| sb.contains(s)))
            || (ls.iter().any(|s| sb.contains(s)) && rs.iter().any(|s| sa.contains(s)))
    })
}

/// In-place ops, and whole writes that follow reads of their sources in one
/// expression (how `assign`, `copy_from_slice` and `copy_` lower).
fn overwrites(f: &FnIr) -> Vec<Overwrite<'_>> {
    let mut list = Vec::new();
    for (b, body) in f.bodies.iter().enumerate() {
        for (k, block) in body.blocks.iter().enumerate() {
            for (i, stmt) in block.stmts.iter().enumerate() {
                let (dst, srcs, method) = match &stmt.op {
                    Op::InPlace { dst, srcs, method } => {
                        (*dst, srcs.clone(), Some(method.as_str()))
                    }
                    Op::Write {
                        value,
                        region: None,
                    } => {
                        let same_expr = || {
                            block.stmts[..i]
                                .iter()
                                .rev()
                                .take_while(|s| s.span == stmt.span)
                        };
                        // A call's summary writes too, but not necessarily element-wise
                        // from the arguments it reads.
                        if same_expr().any(|s| matches!(s.op, Op::Call { .. })) {
                            continue;
                        }
                        let srcs = block.stmts[..i]
                            .iter()
                            .rev()
                            .take_while(|s| s.span == stmt.span)
                            .filter_map(|s| match s.op {
                                Op::Read {
                                    value: src,
                                    region: None,
                                } if src != *value => Some(src),
                                _ => None,
                            })
                            .collect();
                        (*value, srcs, None)
                    }
                    _ => continue,
                };
                list.push(Overwrite {
                    body: BodyId(b as u32),
                    block: BlockId(k as u32),
                    index: i,
                    dst,
                    srcs,
                    method,
                    span: stmt.span,
                });
            }
        }
    }
    list
}

/// Where each value is defined, and by which op.
struct Def<'a> {
    body: BodyId,
    block: BlockId,
    index: usize,
    stmt: &'a Stmt,
}

fn definitions(f: &FnIr) -> HashMap<ValueId, Def<'_>> {
    let mut defs = HashMap::new();
    for (b, body) in f.bodies.iter().enumerate() {
        for (k, block) in body.blocks.iter().enumerate() {
            for (i, stmt) in block.stmts.iter().enumerate() {
                if let Some(d) = stmt.op.def() {
                    defs.entry(d).or_insert(Def {
                        body: BodyId(b as u32),
                        block: BlockId(k as u32),
                        index: i,
                        stmt,
                    });
                }
            }
        }
    }
    defs
}

fn assumptions(f: &FnIr) -> Assumptions {
    let mut asm = Assumptions::new();
    for a in &f.annotations.assumptions {
        asm.push(a.lhs.clone(), a.cmp, a.rhs.clone());
    }
    asm
}

/// `` `x` `` for a binding, or what a temporary is (`a transposed view of `a``).
fn describe(f: &FnIr, defs: &HashMap<ValueId, Def<'_>>, v: ValueId) -> String {
    if let Some(name) = f.values.get(v.0 as usize).and_then(|x| x.name.as_ref()) {
        return format!("`{name}`");
    }
    let Some(Def { stmt, .. }) = defs.get(&v) else {
        return "a temporary".into();
    };
    match &stmt.op {
        Op::View { dst, src, how } => {
            // A reborrow (`&*x`, `&mut x[..]` of all of it) is what it borrows.
            if is_reborrow(f, *dst, *src, how) {
                return describe(f, defs, *src);
            }
            let of = describe(f, defs, *src);
            let what = match how {
                ViewOp::Whole => "a view",
                ViewOp::Transpose => "a transposed view",
                ViewOp::Permute(_) => "a permuted view",
                ViewOp::Slice(_) => "a slice",
                ViewOp::Broadcast(_) => "a broadcast view",
                ViewOp::Diag => "the diagonal",
                ViewOp::Offset(_) => "a shifted pointer",
                ViewOp::Reshape(_) => "a reshaped view",
                ViewOp::Split { .. } => "a part",
                ViewOp::Iter { .. } => "an item",
                ViewOp::FromRaw { .. } => "a raw view",
                ViewOp::Opaque(_) => "a view",
            };
            format!("{what} of {of}")
        }
        _ => "a temporary".into(),
    }
}

/// The buffer a root is: the binding that owns it, else how the IR knows it.
fn root_label(f: &FnIr, r: RootId) -> String {
    f.values
        .iter()
        .find(|v| v.kind == ValueKind::Root(r) && v.name.is_some())
        .and_then(|v| v.name.clone())
        .unwrap_or_else(|| f.root(r).name.clone())
}

fn short_name(f: &FnIr, v: ValueId) -> String {
    f.values
        .get(v.0 as usize)
        .and_then(|x| x.name.clone())
        .unwrap_or_else(|| "the source".into())
}

fn op_phrase(w: &Overwrite<'_>) -> String {
    match w.method {
        Some(m) if m.ends_with('=') => format!("`{m}`"),
        Some(m) => format!("in-place `{m}`"),
        None => "this overwrite".into(),
    }
}

fn line_of(sources: &SourceMap, span: Span) -> Option<usize> {
    sources.files().nth(span.file.0 as usize)?;
    Some(sources.get(span.file).line_col(span.lo as usize).line)
}

fn finding(proven: bool, diagnostic: Diagnostic) -> LintFinding {
    LintFinding {
        lint: &UNSAFE_INPLACE,
        proven,
        diagnostic: diagnostic.with_code(UNSAFE_INPLACE.code()),
    }
}

fn index_text(ix: &[i64]) -> String {
    let parts: Vec<String> = ix.iter().map(i64::to_string).collect();
    format!("[{}]", parts.join(", "))
}

fn symbols_text(symbols: &[(String, i64)]) -> String {
    let parts: Vec<String> = symbols
        .iter()
        .map(|(s, v)| format!("`{s} = {v}`"))
        .collect();
    parts.join(", ")
}

// ----- the destination has internal overlap ------------------------------------------

fn internal_overlap_case(
    f: &FnIr,
    defs: &HashMap<ValueId, Def<'_>>,
    w: &Overwrite<'_>,
    asm: &Assumptions,
    out: &mut Vec<LintFinding>,
) {
    let dst = describe(f, defs, w.dst);
    let origin = defs.get(&made_at(f, defs, w.dst)).map(|d| d.stmt.span);
    let (proven, note) = match f.value(w.dst).view.as_ref() {
        Some(view) => {
            let answer = internal_overlap(view, asm);
            if answer.verdict == Verdict::NoAlias {
                return;
            }
            // Safe mutable views never overlap themselves; with unknown strides only a
            // view built to repeat elements is suspect.
            let built_to_overlap = derived_through(defs, w.dst, &|how| {
                matches!(
                    how,
                    ViewOp::Broadcast(_)
                        | ViewOp::FromRaw {
                            strides: Some(_),
                            ..
                        }
                )
            });
            if answer.verdict == Verdict::MayAlias && !built_to_overlap {
                return;
            }
            let root = root_label(f, view.root);
            let note = match &answer.witness {
                Some(wit) if !answer.undecided => {
                    let name = short_name(f, w.dst);
                    let mut n = format!(
                        "`{name}{}` and `{name}{}` both reach element {} of `{root}`",
                        index_text(&wit.a),
                        index_text(&wit.b),
                        wit.element
                    );
                    if answer.verdict != Verdict::MustAlias && !wit.symbols.is_empty() {
                        n.push_str(&format!(" when {}", symbols_text(&wit.symbols)));
                    }
                    n
                }
                _ => "the solver could not decide in time; treated as may alias".into(),
            };
            (
                answer.verdict == Verdict::MustAlias && !answer.undecided,
                note,
            )
        }
        None => {
            // Geometry unknown: only a broadcast in the view's derivation can repeat
            // elements.
            if !derived_through(defs, w.dst, &|how| matches!(how, ViewOp::Broadcast(_))) {
                return;
            }
            (
                false,
                "a broadcast view repeats elements along the axes it expands (stride 0)".into(),
            )
        }
    };
    let may = if proven { "" } else { "may " };
    let message = format!(
        "{} writes {dst}, whose indices {may}reach the same elements more than once",
        op_phrase(w)
    );
    let mut d = Diagnostic::new(
        Severity::Error,
        message,
        Label::new(w.span, "every element is written once per index that reaches it"),
    )
    .with_note(note)
    .with_help("write into a tensor that owns its elements (`to_owned()` for arrays, `contiguous()` or `copy()` for tensors), or apply the op before broadcasting");
    if let Some(span) = origin.filter(|s| *s != w.span) {
        d = d.with_label(span, "the overlapping view is made here");
    }
    out.push(finding(proven, d));
}

/// Whether `v` was derived, through views, by an op `pred` accepts.
fn derived_through(
    defs: &HashMap<ValueId, Def<'_>>,
    v: ValueId,
    pred: &dyn Fn(&ViewOp) -> bool,
) -> bool {
    let mut cur = v;
    for _ in 0..64 {
        match defs.get(&cur).map(|d| &d.stmt.op) {
            Some(Op::View { src, how, .. }) => {
                if pred(how) {
                    return true;
                }
                cur = *src;
            }
            Some(Op::Assign { src, .. }) => cur = *src,
            _ => return false,
        }
    }
    false
}

// ----- the destination partially overlaps a source ------------------------------------

/// The chain of view ops from `v` up to the value it was derived from first.
fn ancestry(defs: &HashMap<ValueId, Def<'_>>, v: ValueId) -> Vec<(ValueId, Option<ViewOp>)> {
    let mut chain = vec![(v, None)];
    let mut cur = v;
    for _ in 0..64 {
        match defs.get(&cur).map(|d| &d.stmt.op) {
            Some(Op::View { src, how, .. }) => {
                chain.push((*src, Some(how.clone())));
                cur = *src;
            }
            Some(Op::Assign { src, .. }) => {
                chain.push((*src, Some(ViewOp::Whole)));
                cur = *src;
            }
            _ => break,
        }
    }
    chain
}

/// For views of unknown geometry: whether `src` reorders the memory of `dst` (both
/// derive from one value and the ops between differ by a transpose, a slice, ...).
/// `None` when the relation is not known.
fn reorders_unknown(defs: &HashMap<ValueId, Def<'_>>, dst: ValueId, src: ValueId) -> Option<bool> {
    let a = ancestry(defs, dst);
    let b = ancestry(defs, src);
    let (ia, ib) = a
        .iter()
        .enumerate()
        .find_map(|(i, (v, _))| b.iter().position(|(w, _)| w == v).map(|j| (i, j)))?;
    // The ops from the common ancestor down to each side (each entry's op made the
    // previous entry from this one).
    let ops = |chain: &[(ValueId, Option<ViewOp>)], upto: usize| -> Vec<ViewOp> {
        chain[1..=upto]
            .iter()
            .filter_map(|(_, how)| how.clone())
            .collect()
    };
    let (da, db) = (ops(&a, ia), ops(&b, ib));
    let reorders = |how: &ViewOp| {
        matches!(
            how,
            ViewOp::Transpose
                | ViewOp::Permute(_)
                | ViewOp::Slice(_)
                | ViewOp::Diag
                | ViewOp::Offset(_)
                | ViewOp::Broadcast(_)
        )
    };
    let unknown = |how: &ViewOp| {
        matches!(
            how,
            ViewOp::Opaque(_)
                | ViewOp::Split { .. }
                | ViewOp::Iter { .. }
                | ViewOp::Reshape(_)
                | ViewOp::FromRaw { .. }
        )
    };
    if da.iter().chain(&db).any(unknown) {
        return None;
    }
    Some(da.iter().chain(&db).any(reorders))
}

/// What `v` borrows whole (`&src`, `&*x`, `&w.tr()` is `w.tr()`), followed to a named
/// value or to a view that changes the layout.
fn reborrowed(f: &FnIr, defs: &HashMap<ValueId, Def<'_>>, v: ValueId) -> ValueId {
    followed(f, defs, v, false)
}

/// Where `v`, as written, was made: [`reborrowed`], on through a binding to the
/// temporary it binds (`let wt = w.t()?` was made by `w.t()`).
fn made_at(f: &FnIr, defs: &HashMap<ValueId, Def<'_>>, v: ValueId) -> ValueId {
    followed(f, defs, v, true)
}

/// Whether view `dst` of `src`, made `how`, is all of `src` as it is laid out (`&*x`,
/// `&mut x[..]`): a reborrow.
fn is_reborrow(f: &FnIr, dst: ValueId, src: ValueId, how: &ViewOp) -> bool {
    let view = |x: ValueId| f.values.get(x.0 as usize).and_then(|x| x.view.as_ref());
    matches!(how, ViewOp::Whole) || (view(dst).is_some() && view(dst) == view(src))
}

fn followed(
    f: &FnIr,
    defs: &HashMap<ValueId, Def<'_>>,
    mut v: ValueId,
    to_temporaries: bool,
) -> ValueId {
    let name = |x: ValueId| f.values.get(x.0 as usize).and_then(|x| x.name.as_ref());
    for _ in 0..16 {
        let Some(Def { stmt, .. }) = defs.get(&v) else {
            break;
        };
        match &stmt.op {
            // (A named value goes on only to the value of that name it borrows, or, to
            // find where it was made, to the temporary it binds.)
            Op::View { dst, src, how }
                if is_reborrow(f, *dst, *src, how)
                    && (name(v).is_none()
                        || name(v) == name(*src)
                        || (to_temporaries && name(*src).is_none())) =>
            {
                v = *src;
            }
            // A view passed by value is a copy of it (`dst.copy_from(src)`); a binding
            // of a temporary (`let wt = w.t()?`) is that temporary.
            Op::Assign { src, .. }
                if name(v).is_none()
                    || name(v) == name(*src)
                    || (to_temporaries && name(*src).is_none()) =>
            {
                v = *src;
            }
            _ => break,
        }
    }
    v
}

fn partial_overlap_case(
    f: &FnIr,
    facts: &FnFacts,
    defs: &HashMap<ValueId, Def<'_>>,
    w: &Overwrite<'_>,
    src: ValueId,
    asm: &Assumptions,
    out: &mut Vec<LintFinding>,
) {
    if !facts.points_to.may_share_root(w.dst, src) {
        return;
    }
    // The source and destination as written, not the borrows the call made of them.
    let src = reborrowed(f, defs, src);
    let dst_named = reborrowed(f, defs, w.dst);
    // The code asks whether the two share storage (`a.same_storage(&b)`): it handles
    // the aliased case itself.
    let tested = f.storage_tests.iter().any(|&(a, b)| {
        let meets = |x: ValueId, y: ValueId| facts.points_to.may_share_root(x, y);
        meets(a, w.dst) && meets(b, src) || meets(a, src) && meets(b, w.dst)
    });
    if tested {
        return;
    }
    let dst_v = f.value(w.dst).view.as_ref();
    let src_v = f.value(src).view.as_ref();
    let (proven, note) = match (dst_v, src_v) {
        (Some(a), Some(b)) if a.root == b.root => {
            if same_map(a, b, asm) {
                return;
            }
            let answer = overlap(a, b, asm);
            if answer.verdict == Verdict::NoAlias {
                return;
            }
            match colliding_pair(a, b, &answer) {
                Some(pair) => {
                    let root = root_label(f, a.root);
                    let dst_name = short_name(f, dst_named);
                    let src_at = match &f.value(src).name {
                        Some(name) => format!("`{name}{}`", index_text(&pair.b)),
                        None => format!("index `{}` of the source", index_text(&pair.b)),
                    };
                    let mut note = format!(
                        "`{dst_name}{}` and {src_at} both reach element {} of `{root}`: it is overwritten at one index while the other still reads it",
                        index_text(&pair.a),
                        pair.element
                    );
                    if !pair.symbols.is_empty() {
                        note.push_str(&format!(", for example when {}", symbols_text(&pair.symbols)));
                    }
                    (pair.symbols.is_empty(), note)
                }
                None if answer.undecided => (
                    false,
                    "the solver could not decide in time; treated as may alias".into(),
                ),
                // Only the same indices meet: element-wise that is safe.
                None => return,
            }
        }
        (Some(_), Some(_)) => return,
        _ => match reorders_unknown(defs, w.dst, src) {
            Some(true) => (
                false,
                "both reach the same tensor; its sizes are not known here, so the overlap is only possible"
                    .to_string(),
            ),
            _ => return,
        },
    };
    let overlaps = if proven {
        "partially overlaps"
    } else {
        "may partially overlap"
    };
    let dst = describe(f, defs, w.dst);
    let source = describe(f, defs, src);
    let message = match w.method {
        Some(_) => format!(
            "{} updates {dst} from {source}, which {overlaps} it",
            op_phrase(w)
        ),
        None => format!("{dst} is overwritten from {source}, which {overlaps} it"),
    };
    let mut d = Diagnostic::new(
        Severity::Error,
        message,
        Label::new(
            w.span,
            format!("{dst} is overwritten here while the source is read"),
        ),
    );
    // The same strides at another offset: a shifted copy of the destination's layout.
    let shifted = match (dst_v, src_v) {
        (Some(a), Some(b)) => {
            a.dims.len() == b.dims.len()
                && a.dims.iter().zip(&b.dims).all(|(x, y)| x.stride == y.stride)
                && a.offset != b.offset
        }
        _ => false,
    };
    let src_span = defs.get(&made_at(f, defs, src)).map(|d| d.stmt.span);
    if let Some(span) = src_span.filter(|s| *s != w.span) {
        let how = if shifted {
            "this reaches the same memory with the same layout, shifted"
        } else {
            "this reaches the same memory with a different layout"
        };
        d = d.with_label(span, how);
    }
    d = d
        .with_note(note)
        .with_help("read from a copy of the source (`to_owned()` for arrays, `copy()` for tensors), or write the result into a new tensor");
    out.push(finding(proven, d));
}

// ----- the old value is still needed ----------------------------------------------

/// The alias an in-place op returns (tch's `relu_` hands back its receiver).
fn result_of(f: &FnIr, w: &Overwrite<'_>) -> Option<ValueId> {
    let block = f.body(w.body).blocks.get(w.block.0 as usize)?;
    let next = block.stmts.get(w.index + 1)?;
    match &next.op {
        Op::View {
            dst,
            src,
            how: ViewOp::Whole,
        } if *src == w.dst && next.span == w.span => Some(*dst),
        _ => None,
    }
}

/// Whether the op's result is bound to a name other than the destination's.
fn result_rebinds(f: &FnIr, w: &Overwrite<'_>) -> Option<ValueId> {
    let block = f.body(w.body).blocks.get(w.block.0 as usize)?;
    let next = block.stmts.get(w.index + 1)?;
    let Op::View {
        dst,
        src,
        how: ViewOp::Whole,
    } = &next.op
    else {
        return None;
    };
    if *src != w.dst || next.span != w.span {
        return None;
    }
    let res = f.value(*dst).name.as_ref()?;
    (f.value(w.dst).name.as_ref() != Some(res)).then_some(*dst)
}

/// Whether statement `to` can run after statement `from` (forward through the CFG of
/// one body; a closure body counts as running where its parent is).
fn runs_before(f: &FnIr, from: (BodyId, BlockId, usize), to: (BodyId, BlockId, usize)) -> bool {
    let (fb, fk, fi) = from;
    let (tb, tk, ti) = to;
    if fb != tb {
        // A value of an enclosing body flows into a closure: it exists before any of
        // the closure's statements.
        let mut cur = tb;
        for _ in 0..64 {
            match f.bodies.get(cur.0 as usize).map(|b| &b.kind) {
                Some(BodyKind::Closure { parent, .. }) => {
                    if *parent == fb {
                        return true;
                    }
                    cur = *parent;
                }
                _ => return false,
            }
        }
        return false;
    }
    if fk == tk && fi < ti {
        return true;
    }
    let body = f.body(fb);
    let mut seen = vec![false; body.blocks.len()];
    let mut work: Vec<BlockId> = body.block(fk).term.successors().to_vec();
    while let Some(b) = work.pop() {
        let k = b.0 as usize;
        if k >= seen.len() || seen[k] {
            continue;
        }
        seen[k] = true;
        if b == tk {
            return true;
        }
        work.extend(body.block(b).term.successors().iter().copied());
    }
    false
}

/// A use that reads `v`'s contents (as opposed to moving, dropping or re-deriving it).
fn reads(op: &Op, v: ValueId) -> bool {
    match op {
        Op::Read { value, .. } => *value == v,
        Op::InPlace { srcs, .. } => srcs.contains(&v),
        Op::Call { args, .. } => args.contains(&v),
        _ => false,
    }
}

/// The first statement after the op that reads `v`, or reads a view derived from `v`
/// after the op; `(block, index, span)`.
fn first_read_after(
    f: &FnIr,
    (body, block, index): (BodyId, BlockId, usize),
    v: ValueId,
    result: Option<ValueId>,
    depth: u32,
) -> Option<(BlockId, usize, Span)> {
    if depth > 4 {
        return None;
    }
    let b = f.bodies.get(body.0 as usize)?;
    for (ub, ui) in uses_after(f, body, block, index, v) {
        let Some(stmt) = b.block(ub).stmts.get(ui) else {
            continue;
        };
        if reads(&stmt.op, v) {
            return Some((ub, ui, stmt.span));
        }
        // A view of it, or the same tensor moved or copied (`x + &y` takes `x` by value).
        if let Op::View { dst, .. } | Op::Assign { dst, .. } = &stmt.op {
            // Reads through the op's own result see the new value on purpose.
            if Some(*dst) == result {
                continue;
            }
            if let Some(hit) = first_read_after(f, (body, ub, ui), *dst, result, depth + 1) {
                return Some(hit);
            }
        }
    }
    None
}

/// Whether every way on from block `from` of `body` passes through block `to` before
/// the function returns (a path that ends in `unreachable` never returns).
fn always_reaches(f: &FnIr, body: BodyId, from: BlockId, to: BlockId) -> bool {
    let Some(b) = f.bodies.get(body.0 as usize) else {
        return false;
    };
    let mut seen = vec![false; b.blocks.len()];
    let mut work = vec![from];
    while let Some(at) = work.pop() {
        let Some(block) = b.blocks.get(at.0 as usize) else {
            return false;
        };
        if matches!(block.term, tensor_lint_analyzer::ir::Terminator::Return { .. }) {
            return false;
        }
        for &next in block.term.successors() {
            let k = next.0 as usize;
            if next != to && k < seen.len() && !seen[k] {
                seen[k] = true;
                work.push(next);
            }
        }
    }
    true
}

fn old_value_case(
    cx: &LintContext<'_>,
    f: &FnIr,
    defs: &HashMap<ValueId, Def<'_>>,
    w: &Overwrite<'_>,
    out: &mut Vec<LintFinding>,
) {
    // Only ops that name themselves in place: a whole write the IR took from a call's
    // summary may change no element at all.
    if w.method.is_none() {
        return;
    }
    // An object changed by a callee (`set(&mut state, ..)` on a crate struct or a
    // shared `Arc` of one) has no old elements a view could read: it is no tensor.
    if matches!(
        f.value(w.dst).ty,
        TyClass::Unknown | TyClass::LocalStruct | TyClass::Shared
    ) {
        return;
    }
    let here = (w.body, w.block, w.index);
    // (alias, why it holds the old value)
    let mut aliases: Vec<(ValueId, String)> = Vec::new();
    if let (Some(res), Some(m)) = (result_rebinds(f, w), w.method) {
        aliases.push((
            w.dst,
            format!(
                "{} is the result of `{m}`: the same tensor as {}, so both hold the new value",
                describe(f, defs, res),
                describe(f, defs, w.dst)
            ),
        ));
    }
    for (v, d) in defs {
        if *v == w.dst || f.value(*v).name.is_none() {
            continue;
        }
        if !f.value(*v).kind.is_memory() {
            continue;
        }
        let descends = ancestry(defs, *v).iter().skip(1).any(|(a, _)| *a == w.dst);
        if !descends || !runs_before(f, (d.body, d.block, d.index), here) {
            continue;
        }
        let line =
            line_of(cx.sources, d.stmt.span).map_or_else(String::new, |l| format!(" (line {l})"));
        aliases.push((
            *v,
            format!(
                "{} was made from {} before the op{line} and shares its memory",
                describe(f, defs, *v),
                describe(f, defs, w.dst)
            ),
        ));
    }
    aliases.sort_by_key(|(v, _)| *v);
    let Some((alias, why, (rb, _, span))) = aliases.into_iter().find_map(|(a, why)| {
        first_read_after(f, here, a, result_of(f, w), 0)
            .filter(|(_, _, s)| *s != w.span)
            .map(|hit| (a, why, hit))
    }) else {
        return;
    };
    let proven = rb == w.block || always_reaches(f, w.body, w.block, rb);
    let dst = describe(f, defs, w.dst);
    let through = describe(f, defs, alias);
    let message = if alias == w.dst {
        format!(
            "{} overwrites {dst}, which is read again below",
            op_phrase(w)
        )
    } else {
        format!(
            "{} overwrites {dst}, whose old value is read again through {through}",
            op_phrase(w)
        )
    };
    let seen = if proven { "sees" } else { "may see" };
    let mut d = Diagnostic::new(
        Severity::Error,
        message,
        Label::new(w.span, format!("{dst} is overwritten here")),
    )
    .with_label(
        span,
        format!("{through} is read here and {seen} the new value"),
    )
    .with_note(why);
    d = match w.method {
        Some(m) if m.ends_with('_') && m.len() > 1 => d.with_help(format!(
            "to keep the old value, use the out-of-place `{}`, or copy it first (`copy()`)",
            m.trim_end_matches('_')
        )),
        _ => d.with_help("copy the old value before the op (`to_owned()` for arrays, `copy()` for tensors), or use the out-of-place form"),
    };
    out.push(finding(proven, d));
}

// ----- autograd needs the old value ------------------------------------------------

fn in_no_grad(f: &FnIr, body: BodyId) -> bool {
    let mut cur = body;
    for _ in 0..64 {
        let Some(b) = f.bodies.get(cur.0 as usize) else {
            return false;
        };
        if b.no_grad {
            return true;
        }
        match b.kind {
            BodyKind::Closure { parent, .. } => cur = parent,
            BodyKind::Function => return false,
        }
    }
    false
}

/// Where (and whether) each root starts requiring grad, outside `no_grad`.
fn grad_starts(f: &FnIr, facts: &FnFacts) -> HashMap<RootId, (BodyId, BlockId, usize, Span)> {
    let mut starts = HashMap::new();
    for (b, body) in f.bodies.iter().enumerate() {
        for (k, block) in body.blocks.iter().enumerate() {
            for (i, stmt) in block.stmts.iter().enumerate() {
                if let Op::RequiresGrad { value, on: true } = stmt.op {
                    for r in facts.points_to.roots(value) {
                        starts.entry(*r).or_insert((
                            BodyId(b as u32),
                            BlockId(k as u32),
                            i,
                            stmt.span,
                        ));
                    }
                }
            }
        }
    }
    starts
}

/// Whether autograd records the computation of root `r`: it requires grad, or it is
/// the result of an op (outside `no_grad`) on memory that is recorded.
fn recorded(
    f: &FnIr,
    facts: &FnFacts,
    alloc_body: &HashMap<RootId, BodyId>,
    r: RootId,
    depth: u32,
) -> bool {
    let Some(root) = f.roots.get(r.0 as usize) else {
        return false;
    };
    if root.requires_grad {
        return true;
    }
    if depth > 16 {
        return false;
    }
    let Some(p) = &root.producer else {
        return false;
    };
    if alloc_body.get(&r).is_some_and(|b| in_no_grad(f, *b)) {
        return false;
    }
    p.inputs.iter().any(|&v| {
        facts
            .points_to
            .roots(v)
            .iter()
            .any(|&q| q != r && recorded(f, facts, alloc_body, q, depth + 1))
    })
}

/// Where roots start requiring grad and where each root is allocated, once per
/// function.
struct GradFacts {
    starts: HashMap<RootId, (BodyId, BlockId, usize, Span)>,
    alloc_body: HashMap<RootId, BodyId>,
}

impl GradFacts {
    fn of(f: &FnIr, facts: &FnFacts) -> GradFacts {
        GradFacts {
            starts: grad_starts(f, facts),
            alloc_body: f
                .stmts()
                .filter_map(|(b, _, s)| match s.op {
                    Op::Alloc { root, .. } => Some((root, b)),
                    _ => None,
                })
                .collect(),
        }
    }
}

fn autograd_case(
    f: &FnIr,
    facts: &FnFacts,
    defs: &HashMap<ValueId, Def<'_>>,
    grad: &GradFacts,
    w: &Overwrite<'_>,
    out: &mut Vec<LintFinding>,
) {
    // Whole overwrites of a tensor (`zero_`, `fill_`, `copy_`) modify it in place too.
    let tensor = f.value(w.dst).ty == TyClass::Tensor;
    if (w.method.is_none() && !tensor) || in_no_grad(f, w.body) {
        return;
    }
    let dst = describe(f, defs, w.dst);
    let op = op_phrase(w);
    let (starts, alloc_body) = (&grad.starts, &grad.alloc_body);
    for &r in facts.points_to.roots(w.dst) {
        let root = f.root(r);
        if root.requires_grad && root.origin == RootOrigin::Alloc {
            let Some(&(sb, sk, si, sspan)) = starts.get(&r) else {
                continue;
            };
            if !runs_before(f, (sb, sk, si), (w.body, w.block, w.index)) {
                continue;
            }
            let d = Diagnostic::new(
                Severity::Error,
                match w.method {
                    Some(_) => format!("{op} modifies {dst}, a leaf tensor that requires grad"),
                    None => format!("{dst} is overwritten in place, but it is a leaf tensor that requires grad"),
                },
                Label::new(w.span, format!("{dst} is modified in place here, outside `no_grad`")),
            )
            .with_label(sspan, "it starts requiring grad here")
            .with_note("autograd refuses in-place changes to a leaf that requires grad: the op fails at run time, and the gradient would not account for it")
            .with_help("update parameters inside `tch::no_grad(|| ...)`, or work on a copy (`detach().copy()`)");
            out.push(finding(true, d));
            return;
        }
        let Some(p) = root.producer.as_ref().filter(|p| p.saves_output) else {
            continue;
        };
        if !recorded(f, facts, alloc_body, r, 0) {
            continue;
        }
        let d = Diagnostic::new(
            Severity::Error,
            match w.method {
                Some(_) => format!(
                    "{op} overwrites {dst}, the output of `{}` that autograd saved for backward",
                    p.op
                ),
                None => format!(
                    "{dst} is overwritten in place, but it is the output of `{}` that autograd saved for backward",
                    p.op
                ),
            },
            Label::new(w.span, format!("{dst} is modified in place here")),
        )
        .with_label(
            p.op_span,
            format!("`{}` saves its output to compute its gradient", p.op),
        )
        .with_note(format!(
            "`{}` is computed from tensors that require grad, so `backward` reads this output again; after the in-place op it fails with an error about a variable modified by an inplace operation",
            p.op
        ))
        .with_help(match w.method {
            Some(m) if m.ends_with('_') && m.len() > 1 => format!(
                "use the out-of-place `{}` and bind its result to a new name",
                m.trim_end_matches('_')
            ),
            _ => "use the out-of-place form and bind its result to a new name".into(),
        });
        out.push(finding(true, d));
        return;
    }
}
