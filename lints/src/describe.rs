//! How diagnostics name what they speak of: buffers, the values that reach them, the
//! tasks of a parallel region and the loop symbols of the IR.

use std::collections::BTreeSet;

use tensor_lint_analyzer::dataflow::parallel::{TaskAccess, TaskFacts};
use tensor_lint_analyzer::dataflow::{Derivations, PointsTo};
use tensor_lint_analyzer::ir::{FnIr, Op, RootId, ValueId, ValueKind};
use tensor_lint_analyzer::source::Span;

use crate::context::LintContext;

/// How diagnostics name a task: `task 2`, or `the scope body` for the code of the
/// closure a `scope` runs, after its first spawn.
pub(crate) fn task_label(t: &TaskFacts) -> String {
    match t.number {
        0 => "the scope body".to_string(),
        n => format!("task {n}"),
    }
}

/// `name` of a binding without the IR's `#N` suffix of loop and iteration symbols.
pub(crate) fn symbol_name(symbol: &str) -> &str {
    symbol.split('#').next().unwrap_or(symbol)
}

/// The source text of `span` when it is a short single-line expression.
pub(crate) fn snippet(cx: &LintContext<'_>, span: Span) -> Option<String> {
    let file = cx.sources.files().nth(span.file.0 as usize)?;
    let text = file.text.get(span.range())?.trim();
    (!text.is_empty() && text.len() <= 40 && !text.contains('\n')).then(|| text.to_string())
}

/// How an access is named in messages: its binding, or the binding it was derived
/// from, or its source text.
pub(crate) fn access_name(
    cx: &LintContext<'_>,
    ir: &FnIr,
    derived: &Derivations,
    a: &TaskAccess,
) -> String {
    let mut cur = a.value;
    let mut seen = BTreeSet::new();
    while seen.insert(cur) {
        if let Some(name) = ir.values.get(cur.0 as usize).and_then(|v| v.name.clone()) {
            return name;
        }
        match derived.get(&cur) {
            Some((src, _)) => cur = *src,
            None => break,
        }
    }
    // An atomic's method call is named by its receiver (`hits[t]`), not the whole call.
    let receiver = a
        .atomic
        .then(|| ir.values.get(a.value.0 as usize))
        .flatten()
        .and_then(|v| snippet(cx, v.span));
    receiver
        .or_else(|| snippet(cx, a.span))
        .unwrap_or_else(|| "the pointer".to_string())
}

/// The name of a buffer: the binding that owns it, else the name it was first known by.
pub(crate) fn root_name(ir: &FnIr, root: RootId) -> String {
    ir.values
        .iter()
        .find(|v| v.kind == ValueKind::Root(root) && v.name.is_some())
        .and_then(|v| v.name.clone())
        .or_else(|| ir.roots.get(root.0 as usize).map(|r| r.name.clone()))
        .unwrap_or_else(|| "the buffer".to_string())
}

/// The name to call the memory by: the holding binding, or another binding that holds
/// exactly this root.
pub(crate) fn memory_name(f: &FnIr, pt: &PointsTo, value: ValueId, root: RootId) -> Option<String> {
    // A temporary (`p as *mut u8`, `v.as_mut_ptr()`) is named by what it was made from.
    let mut at = value;
    for _ in 0..8 {
        if let Some(name) = f.values.get(at.0 as usize).and_then(|v| v.name.clone()) {
            return Some(name);
        }
        let source = f.stmts().find_map(|(_, _, s)| match &s.op {
            Op::View { dst, src, .. } | Op::Assign { dst, src } if *dst == at => Some(*src),
            _ => None,
        });
        match source {
            Some(src) => at = src,
            None => break,
        }
    }
    f.values
        .iter()
        .enumerate()
        .find(|(k, v)| v.name.is_some() && pt.roots(ValueId(*k as u32)) == [root])
        .and_then(|(_, v)| v.name.clone())
}
