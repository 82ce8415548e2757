//! `leak`: tensor memory that is not released on some path.

crate::declare_lint! {
    /// ### What it does
    /// Follows every allocation of tensor memory (`std::alloc::alloc*`, `Box::into_raw`,
    /// `Box::leak`, `mem::forget` or `ManuallyDrop` of a buffer, a call to a function
    /// annotated `#[tensor_lint::alloc]` such as a pool checkout) along every path of the
    /// function, and reports a path that reaches the function's exit with the memory
    /// neither released nor handed on (returned, stored into something that owns it,
    /// passed to a function that takes ownership). Early `return`, `?`, `break` and
    /// `continue` are paths too, and so is a pointer overwritten in a loop while it
    /// still holds a live allocation.
    ///
    /// ### Why is this bad
    /// A kernel runs thousands of times per second. A buffer lost on a rare error path
    /// drains the pool or the heap a little on every frame until the process is killed,
    /// usually far from the code that lost it.
    ///
    /// ### Example
    /// ```rust,ignore
    /// #[tensor_lint::alloc]
    /// fn checkout(pool: &Pool, len: usize) -> *mut f32 { /* ... */ }
    ///
    /// fn voxelize(pool: &Pool, points: &[f32]) -> Result<(), Error> {
    ///     let grid = checkout(pool, 4096);
    ///     validate(points)?; // returns here without releasing `grid`
    ///     fill(grid, points);
    ///     pool.give_back(grid);
    ///     Ok(())
    /// }
    /// ```
    /// Use instead: release on every path, best with a guard whose `Drop` releases.
    /// ```rust,ignore
    /// fn voxelize(pool: &Pool, points: &[f32]) -> Result<(), Error> {
    ///     validate(points)?;
    ///     let grid = checkout(pool, 4096);
    ///     fill(grid, points);
    ///     pool.give_back(grid);
    ///     Ok(())
    /// }
    /// ```
    pub LEAK = "leak", Warn, Correctness, "tensor memory that is not released on some path",
    status = Planned
}

/// The pass behind this lint; `None` while it is only declared.
pub const PASS: Option<crate::context::CheckFn> = None;
