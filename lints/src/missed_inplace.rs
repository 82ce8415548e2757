//! `missed_inplace`: an out-of-place op inside a kernel whose input dies right there.

crate::declare_lint! {
    /// ### What it does
    /// Inside functions annotated `#[tensor_lint::kernel]`, reports an out-of-place
    /// operation (`mapv`, `&x - &y`, a PyTorch-style op without the trailing `_`) whose
    /// input is owned, never used again and has the result's shape.
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
    ///     x.mapv_into(|v| v - mean)
    /// }
    /// ```
    pub MISSED_INPLACE = "missed_inplace", Warn, Perf,
    "out-of-place op in a kernel whose input dies right there",
    status = Planned
}

/// The pass behind this lint; `None` while it is only declared.
pub const PASS: Option<crate::context::CheckFn> = None;
