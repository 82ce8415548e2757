//! `alloc_in_loop`: a kernel allocating the same tensor on every iteration.

crate::declare_lint! {
    /// ### What it does
    /// Inside functions annotated `#[tensor_lint::kernel]`, reports a tensor allocated in
    /// the body of a loop when its size does not depend on the iteration.
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
    "tensor allocated on every iteration of a kernel loop",
    status = Planned
}

/// The pass behind this lint; `None` while it is only declared.
pub const PASS: Option<crate::context::CheckFn> = None;
