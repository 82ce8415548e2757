//! `alloc_in_loop`: a kernel allocating the same tensor on every iteration.

use tensor_lint_analyzer::dataflow::FnFacts;
use tensor_lint_analyzer::ir::{
    Block, Body, EscapeKind, FnIr, Op, RootId, RootOrigin, Terminator, TyClass, ValueId,
};
use tensor_lint_analyzer::oracle::Expr;
use tensor_lint_analyzer::source::Span;

use crate::context::{LintContext, LintFinding};
use crate::diagnostic::{Diagnostic, Label, Severity};

crate::declare_lint! {
    /// ### What it does
    /// Inside functions annotated `#[tensor_lint::kernel]`, reports a tensor (an
    /// ndarray array, a PyTorch-style tensor or a `Vec` buffer) allocated by a
    /// constructor or a copy (`zeros`, `from_elem`, `Tensor::zeros`, `to_owned`,
    /// `clone`, `Vec::with_capacity`, candle's `to_vec1` and `contiguous`) in the body
    /// of a loop, when its size is known and does not depend on the iteration (a copy
    /// of a tensor parameter has that parameter's size): it is built from the kernel's parameters
    /// and constants only, not from the loop variable or a value that changes in the
    /// loop. A buffer that leaves the iteration (pushed into a collection, returned,
    /// passed on by value) is not reported: each iteration needs its own. Functions
    /// that are not kernels are never reported.
    ///
    /// ### Why is this bad
    /// Each iteration pays for an allocation, page faults on fresh memory and a free,
    /// where one buffer allocated before the loop (or taken from a pool) would do.
    ///
    /// ### Example
    /// ```rust,ignore
    /// #[tensor_lint::kernel]
    /// fn smooth(frames: &[Array2<f32>]) {
    ///     for f in frames {
    ///         let mut tmp = Array2::<f32>::zeros((64, 64));
    ///         blur(f, &mut tmp);
    ///     }
    /// }
    /// ```
    /// Use instead: hoist the buffer out of the loop.
    /// ```rust,ignore
    /// #[tensor_lint::kernel]
    /// fn smooth(frames: &[Array2<f32>]) {
    ///     let mut tmp = Array2::<f32>::zeros((64, 64));
    ///     for f in frames {
    ///         blur(f, &mut tmp);
    ///     }
    /// }
    /// ```
    pub ALLOC_IN_LOOP = "alloc_in_loop", Warn, Perf,
    "tensor allocated on every iteration of a kernel loop"
}

/// The pass behind this lint.
pub const PASS: Option<crate::context::CheckFn> = Some(check);

/// Ops whose result is a fresh copy the size of their input.
const COPIES: &[&str] = &[
    "to_owned",
    "clone",
    "to_vec",
    "into_owned",
    "copy",
    "deep_clone",
    "contiguous",
    "to_vec1",
    "to_vec2",
    "to_vec3",
];

fn check(cx: &LintContext<'_>, out: &mut Vec<LintFinding>) {
    for f in cx.functions().filter(|f| f.annotations.kernel) {
        let Some(facts) = cx.ir.facts(f.id) else {
            continue;
        };
        // Bodies of parallel loops run once per iteration, whatever their own loops.
        let mut per_iteration: Vec<Option<Span>> = vec![None; f.bodies.len()];
        for (_, _, stmt) in f.stmts() {
            if let Op::Parallel(region) = &stmt.op {
                for t in region.tasks.iter().filter(|t| t.iteration.is_some()) {
                    if let Some(slot) = per_iteration.get_mut(t.body.0 as usize) {
                        *slot = Some(t.span);
                    }
                }
            }
        }
        for (b, body) in f.bodies.iter().enumerate() {
            let parallel = per_iteration.get(b).copied().flatten();
            for (k, block) in body.blocks.iter().enumerate() {
                if block.loop_depth == 0 && parallel.is_none() {
                    continue;
                }
                for stmt in &block.stmts {
                    let Op::Alloc {
                        dst,
                        root,
                        size: Some(size),
                    } = &stmt.op
                    else {
                        continue;
                    };
                    if !hoistable(f, facts, *dst, *root, size) {
                        continue;
                    }
                    let around = match parallel {
                        Some(task) if block.loop_depth == 0 => Around::Parallel(task),
                        _ => Around::Serial(body, k),
                    };
                    out.push(finding(f, around, *dst, *root, size, stmt.span));
                }
            }
        }
    }
}

/// Whether a symbol stands for something that may change from one iteration to the
/// next: the lowering names loop variables, reassigned integers and unknown bounds
/// with fresh `name#k` symbols; parameters, their sizes and constants keep their
/// plain names.
fn varies(symbol: &str) -> bool {
    symbol.contains('#')
}

fn hoistable(f: &FnIr, facts: &FnFacts, dst: ValueId, root: RootId, size: &Expr) -> bool {
    let r = f.root(root);
    if r.origin != RootOrigin::Alloc {
        return false;
    }
    if !matches!(
        f.value(dst).ty,
        TyClass::Array | TyClass::Tensor | TyClass::Vec
    ) {
        return false;
    }
    if r.producer
        .as_ref()
        .is_some_and(|p| !COPIES.contains(&p.op.as_str()))
    {
        return false;
    }
    if size.as_const().is_some_and(|n| n <= 0) || size.symbols().iter().any(|s| varies(s)) {
        return false;
    }
    // A buffer that leaves the iteration is needed afresh each time.
    !f.stmts().any(|(_, _, s)| match &s.op {
        Op::Escape { value, how } => {
            !matches!(how, EscapeKind::Leaked { .. })
                && facts.points_to.roots(*value).contains(&root)
        }
        _ => false,
    })
}

/// The span of the loop around block `k`: the terminator that jumps back to its
/// header.
fn loop_span(body: &Body, k: usize) -> Option<Span> {
    let mut seen = vec![false; body.blocks.len()];
    let mut work = vec![k];
    while let Some(b) = work.pop() {
        if b >= seen.len() || seen[b] {
            continue;
        }
        seen[b] = true;
        let block: &Block = &body.blocks[b];
        if let Terminator::Goto(t) = block.term {
            let t = t.0 as usize;
            if t <= k && body.blocks.get(t).is_some_and(|h| h.loop_depth >= 1) {
                return Some(block.term_span);
            }
        }
        work.extend(block.term.successors().iter().map(|s| s.0 as usize));
    }
    None
}

/// The loop an allocation repeats in.
enum Around<'a> {
    /// A loop of the body, around block `k`.
    Serial(&'a Body, usize),
    /// A parallel iteration whose task is at this span.
    Parallel(Span),
}

fn finding(
    f: &FnIr,
    around: Around<'_>,
    dst: ValueId,
    root: RootId,
    size: &Expr,
    span: Span,
) -> LintFinding {
    let what = match &f.value(dst).name {
        Some(name) => format!("`{name}`"),
        None => "a buffer".into(),
    };
    let r = f.root(root);
    let ctor = match (&r.producer, &r.allocated_by) {
        (Some(p), _) => format!("`{}`", p.op),
        (None, Some(call)) => format!("`{call}`"),
        // `ndarray::Array2::zeros` reads best as the user wrote it: `Array2::zeros`.
        (None, None) => {
            let segs: Vec<&str> = r.name.split("::").collect();
            format!("`{}`", segs[segs.len().saturating_sub(2)..].join("::"))
        }
    };
    let elements = match size.as_const() {
        Some(1) => "1 element".to_string(),
        Some(n) => format!("{n} elements"),
        None => format!("`{size}` elements"),
    };
    // A copy of a tensor parameter: a library without an in-place copy (candle's
    // `to_vec1`, `contiguous`) can only make it once.
    let copy_of_param = r.producer.is_some()
        && size
            .symbols()
            .iter()
            .any(|s| tensor_lint_analyzer::models::is_tensor_size_symbol(s));
    let (kind, help, loop_at) = match around {
        Around::Serial(body, k) => (
            "this loop",
            if copy_of_param {
                format!("make {what} once before the loop: it copies the same tensor on every iteration")
            } else {
                format!("allocate {what} once before the loop and reset it in the loop (`fill`, `assign`, `zero_`), or take it from a pool")
            },
            loop_span(body, k),
        ),
        Around::Parallel(task) => (
            "this parallel loop",
            format!("give each worker one {what} with `for_each_init` / `map_init` and reset it per item, or take it from a pool"),
            Some(task),
        ),
    };
    let mut d = Diagnostic::new(
        Severity::Warning,
        format!("{ctor} allocates {what} on every iteration of {kind}"),
        Label::new(span, "allocated and freed again on every iteration"),
    )
    .with_note(format!(
        "its size, {elements}, does not depend on the iteration"
    ))
    .with_help(help);
    if let Some(l) = loop_at.filter(|l| *l != span) {
        d = d.with_label(l, "the loop");
    }
    LintFinding {
        lint: &ALLOC_IN_LOOP,
        proven: true,
        diagnostic: d.with_code(ALLOC_IN_LOOP.code()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_symbols_vary_and_parameter_sizes_do_not() {
        assert!(varies("i#1"));
        assert!(varies("hi#3"));
        assert!(!varies("n"));
        assert!(!varies("x.dim0"));
        assert!(!varies("self.width"));
    }
}
