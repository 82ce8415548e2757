//! `unsafe_inplace`: in-place ops that clobber a value still needed.

crate::declare_lint! {
    /// ### What it does
    /// Reports an in-place operation (`relu_`, `add_`, `mapv_inplace`, `assign`,
    /// `zip_mut_with`, compound assignment, a function annotated
    /// `#[tensor_lint::inplace(ARG)]`) when
    /// - the old value is still needed: it is read later through the same name or an
    ///   alias (the tensor returned by `relu_`, a `shallow_clone`, a view);
    /// - the destination partially overlaps a source (`a.add_(&a.tr())`); the same
    ///   element-wise map on both sides (`a.add_(&a)`) is safe and not reported;
    /// - the destination has internal overlap (an expanded or broadcast view, stride 0);
    /// - autograd needs the old value: a leaf with `requires_grad` outside `no_grad`, or
    ///   the output of an op that saves its result for backward (`sigmoid`, `tanh`,
    ///   `exp`, `relu`).
    ///
    /// ### Why is this bad
    /// The later read sees the new value instead of the old one, or an element is read
    /// after another iteration of the same op already overwrote it. The result is
    /// silently wrong, and with autograd the gradient is.
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
    possible_is_warn = true,
    status = Planned
}

/// The pass behind this lint; `None` while it is only declared.
pub const PASS: Option<crate::context::CheckFn> = None;
