//! `double_free`: tensor memory released twice on one path.

crate::declare_lint! {
    /// ### What it does
    /// Reports a release (`dealloc`, `Box::from_raw` followed by a drop, a function
    /// annotated `#[tensor_lint::free(ARG)]`, a pool return) of memory that is already
    /// released on that path, also when the second release goes through an alias: a
    /// copied pointer, a second handle built from the same pointer. The first release
    /// is shown beside it.
    ///
    /// ### Why is this bad
    /// Releasing twice corrupts the allocator or the pool: the same block is handed to
    /// two later owners, which then overwrite each other's data. The crash, if any,
    /// comes long after and far away.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let scratch = pool.checkout(n);
    /// if frame.is_empty() {
    ///     pool.give_back(scratch);
    /// }
    /// pool.give_back(scratch); // released again when the frame is empty
    /// ```
    /// Use instead: release once on each path.
    /// ```rust,ignore
    /// let scratch = pool.checkout(n);
    /// if !frame.is_empty() {
    ///     process(scratch, frame);
    /// }
    /// pool.give_back(scratch);
    /// ```
    pub DOUBLE_FREE = "double_free", Deny, Correctness, "tensor memory released twice on one path",
    status = Planned
}

/// The pass behind this lint; `None` while it is only declared.
pub const PASS: Option<crate::context::CheckFn> = None;
