//! `missed_inplace`: an out-of-place op inside a kernel whose input dies right there.

use tensor_lint_analyzer::dataflow::{liveness::uses_after, FnFacts};
use tensor_lint_analyzer::ir::{
    BlockId, BodyId, FnIr, Op, Producer, RootId, TyClass, ValueId, ValueKind,
};

use crate::context::{LintContext, LintFinding};
use crate::diagnostic::{Applicability, Diagnostic, Edit, Label, Severity, Suggestion};

crate::declare_lint! {
    /// ### What it does
    /// Inside functions annotated `#[tensor_lint::kernel]`, reports an out-of-place
    /// operation (`mapv`, `&x - m`, a PyTorch-style op without the trailing `_` such as
    /// `relu` or `sigmoid`) when
    /// - its input (the receiver, or the left operand) is owned by the kernel: an
    ///   `Array` or `Tensor` bound by value, not a view or a reference;
    /// - neither the input nor any alias of it is used after the op (dropping it at the
    ///   end of its scope does not count);
    /// - the result has the input's shape: element-wise unary ops, and binary
    ///   operators whose other operand is a scalar or has the same known shape;
    /// - the library has an in-place form of the op (candle's tensors have none: a
    ///   module whose `Tensor` is candle's is not reported).
    ///
    /// The fix is offered as an edit: `mapv` becomes `mapv_into_any` (it returns what
    /// `mapv` returns, and reuses the buffer when the closure keeps the element type;
    /// `mapv_into` does the same where you know it does), and `&x - m` on an ndarray
    /// array becomes `x - m`, which consumes `x` and reuses its buffer (both
    /// machine-applicable: `cargo tensor-lint --fix` applies them). For tensors,
    /// `relu` becomes `relu_` (this may need `x` to be declared `mut`, so it is only
    /// suggested), and operators are pointed at their compound form (`x -= m`).
    ///
    /// ### Why is this bad
    /// The out-of-place form allocates a new tensor while the input's memory, just as
    /// large, is freed a moment later. In a hot loop that is an allocation and a cache
    /// miss per call for nothing.
    ///
    /// ### Example
    /// ```rust,ignore
    /// #[tensor_lint::kernel]
    /// fn normalize(x: Array2<f32>, mean: f32) -> Array2<f32> {
    ///     let y = x.mapv(|v| v - mean);
    ///     y
    /// }
    /// ```
    /// Use instead:
    /// ```rust,ignore
    /// #[tensor_lint::kernel]
    /// fn normalize(x: Array2<f32>, mean: f32) -> Array2<f32> {
    ///     x.mapv_into_any(|v| v - mean)
    /// }
    /// ```
    pub MISSED_INPLACE = "missed_inplace", Warn, Perf,
    "out-of-place op in a kernel whose input dies right there"
}

/// The pass behind this lint.
pub const PASS: Option<crate::context::CheckFn> = Some(check);

fn check(cx: &LintContext<'_>, out: &mut Vec<LintFinding>) {
    for f in cx.functions().filter(|f| f.annotations.kernel) {
        let Some(facts) = cx.ir.facts(f.id) else {
            continue;
        };
        for (b, body) in f.bodies.iter().enumerate() {
            for (k, block) in body.blocks.iter().enumerate() {
                for (i, stmt) in block.stmts.iter().enumerate() {
                    let Op::Alloc { root, .. } = stmt.op else {
                        continue;
                    };
                    let at = (BodyId(b as u32), BlockId(k as u32), i);
                    if let Some(finding) = missed(f, facts, root, at) {
                        out.push(finding);
                    }
                }
            }
        }
    }
}

fn is_operator(op: &str) -> bool {
    matches!(op, "+" | "-" | "*" | "/" | "%")
}

fn missed(
    f: &FnIr,
    facts: &FnFacts,
    out_root: RootId,
    (body, block, index): (BodyId, BlockId, usize),
) -> Option<LintFinding> {
    let result = f.root(out_root);
    let p = result.producer.as_ref()?;
    let form = p.inplace_form.as_deref()?;
    let operator = is_operator(&p.op);
    // `m - &x` cannot become `x -= m`: only a borrowed left operand is the input, and
    // the right one must be known to fit into it.
    if operator && (p.lhs_ref.is_none() || p.inputs.len() != 2) {
        return None;
    }
    let input = *p.inputs.first()?;
    let input_val = f.value(input);
    let ValueKind::Root(in_root) = input_val.kind else {
        return None;
    };
    if !matches!(input_val.ty, TyClass::Array | TyClass::Tensor) {
        return None;
    }
    // The other operands must not reach the input's memory (`&x * &x`), and must fit
    // into the input's shape.
    for &other in &p.inputs[1..] {
        if facts.points_to.roots(other).contains(&in_root) {
            return None;
        }
        if !same_shape(f, other, input) {
            return None;
        }
    }
    if let (Some(a), Some(b)) = (&result.shape, &f.root(in_root).shape) {
        if a != b {
            return None;
        }
    }
    // Dead right after: no value reaching the input's memory is used again, except by
    // the drop at the end of its scope.
    let aliases: Vec<ValueId> = (0..f.values.len() as u32)
        .map(ValueId)
        .filter(|&v| facts.points_to.roots(v).contains(&in_root))
        .collect();
    let body_ir = f.bodies.get(body.0 as usize)?;
    let used_later = aliases.iter().any(|&v| {
        uses_after(f, body, block, index, v)
            .into_iter()
            .any(
                |(ub, ui)| match body_ir.block(ub).stmts.get(ui).map(|s| &s.op) {
                    Some(Op::Release { .. }) => false,
                    // The op's own reads of its operands sit just before the allocation.
                    _ => true,
                },
            )
    });
    if used_later
        || captured_by_closure(f, &aliases)
        || used_inside(body_ir, block, index, &aliases)
    {
        return None;
    }
    Some(finding(f, p, form, input))
}

/// Whether the expression of the allocation at `index` uses the input elsewhere
/// (`&x - x.mean()`): taking `x` by value there would move it before that use.
fn used_inside(
    body: &tensor_lint_analyzer::ir::Body,
    block: BlockId,
    index: usize,
    aliases: &[ValueId],
) -> bool {
    let stmts = &body.block(block).stmts;
    let Some(whole) = stmts.get(index).map(|s| s.span) else {
        return false;
    };
    stmts[..index].iter().any(|s| {
        let inside = s.span.file == whole.file
            && s.span.lo >= whole.lo
            && s.span.hi <= whole.hi
            && s.span != whole;
        inside && s.op.uses().iter().any(|u| aliases.contains(u))
    })
}

/// Whether `other` is a scalar, or a tensor whose known shape equals `input`'s.
fn same_shape(f: &FnIr, other: ValueId, input: ValueId) -> bool {
    let (a, b) = (f.value(other), f.value(input));
    if a.kind == ValueKind::Scalar || a.ty == TyClass::Scalar {
        return true;
    }
    if !a.kind.is_memory() {
        // Unknown: it may be a tensor that broadcasts the result larger.
        return false;
    }
    match (&a.view, &b.view) {
        (Some(x), Some(y)) => x.shape() == y.shape(),
        _ => false,
    }
}

fn captured_by_closure(f: &FnIr, aliases: &[ValueId]) -> bool {
    f.bodies.iter().any(|b| match &b.kind {
        tensor_lint_analyzer::ir::BodyKind::Closure { captures, .. } => {
            captures.iter().any(|c| aliases.contains(c))
        }
        _ => false,
    })
}

fn finding(f: &FnIr, p: &Producer, form: &str, input: ValueId) -> LintFinding {
    let named = f.value(input).name.clone();
    // `x` for a binding; for a temporary, words instead of a name.
    let (subject, owner, buffer) = match &named {
        Some(n) => (
            format!("`{n}`"),
            format!("`{n}` is owned here"),
            format!("the buffer of `{n}`"),
        ),
        None => (
            "its input, a temporary".to_string(),
            "this temporary is owned here".to_string(),
            "the temporary's buffer".to_string(),
        ),
    };
    let tensor = f.value(input).ty == TyClass::Tensor;
    let kind = if tensor { "tensor" } else { "array" };
    let operator = is_operator(&p.op);
    let what = match (&named, operator) {
        (Some(n), true) => format!("`&{n} {} ..`", p.op),
        (None, true) => format!("`{}`", p.op),
        (_, false) => format!("`{}`", p.op),
    };
    let mut d = Diagnostic::new(
        Severity::Warning,
        format!(
            "{what} allocates a new {kind} while {subject}, of the same shape, is not used again"
        ),
        Label::new(p.op_span, "a new buffer is allocated here"),
    )
    .with_label(f.value(input).span, owner)
    .with_note("in a kernel this costs an allocation and a pass over fresh memory on every call");
    let rename = |replacement: &str, applicability, message: String| Suggestion {
        message,
        edits: vec![Edit {
            span: p.op_span,
            replacement: replacement.to_string(),
        }],
        applicability,
    };
    match (operator, tensor, p.lhs_ref) {
        (false, false, _) => {
            d = d.with_suggestion(rename(
                form,
                Applicability::MachineApplicable,
                format!("reuse {buffer}"),
            ));
        }
        (false, true, _) => {
            let message = match &named {
                Some(n) => {
                    format!("compute it in place with `{form}` (`{n}` must be declared `mut`)")
                }
                None => format!("compute it in place with `{form}`"),
            };
            d = d.with_suggestion(rename(form, Applicability::MaybeIncorrect, message));
        }
        (true, false, Some(amp)) => {
            d = d.with_suggestion(Suggestion {
                message: format!("take {subject} by value so that ndarray reuses its buffer"),
                edits: vec![Edit {
                    span: amp,
                    replacement: String::new(),
                }],
                applicability: Applicability::MachineApplicable,
            });
        }
        _ => {
            let n = named.as_deref().unwrap_or("x");
            d = d.with_help(format!(
                "update {subject} in place (`{n} {form} ..`) and use it instead of the result"
            ));
        }
    }
    LintFinding {
        lint: &MISSED_INPLACE,
        proven: true,
        diagnostic: d.with_code(MISSED_INPLACE.code()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_arithmetic_operators_count_as_operators() {
        assert!(is_operator("-"));
        assert!(!is_operator("mapv"));
        assert!(!is_operator("relu"));
    }
}
