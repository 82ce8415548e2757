//! `alias_race`: parallel tasks whose accesses to tensor memory may overlap.

crate::declare_lint! {
    /// ### What it does
    /// Splits each parallel region (`rayon::join`, `rayon::scope` and
    /// `std::thread::scope` spawns, `par_iter`/`par_chunks`/`into_par_iter` iterations,
    /// `par_azip!`, `Zip::par_for_each`) into tasks, collects the memory each task reads
    /// and writes as strided views, and asks the alias oracle whether a write of one task
    /// can reach memory another task reads or writes. Writes through a broadcast
    /// (stride-0) view from parallel iterations are races too. Disjointness that Rust
    /// already guarantees (`split_at_mut`, `chunks_mut`, safe `&mut` views), atomics and
    /// data behind a lock never warn.
    ///
    /// A race that happens for every input allowed by the kernel's `assume(...)` is an
    /// error; one that happens only for some inputs is a warning.
    ///
    /// ### Why is this bad
    /// Two threads writing the same element is a data race: undefined behaviour, and in
    /// practice results that change from run to run. Raw pointers, `from_shape_ptr` and
    /// wrappers such as `SendPtr` hide it from the borrow checker.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let half = n / 2;
    /// let top = unsafe { ArrayViewMut2::from_shape_ptr((half + 1, w), p) };
    /// let bottom = unsafe { ArrayViewMut2::from_shape_ptr((n - half, w), p.add(half * w)) };
    /// rayon::join(|| top.fill(0.0), || bottom.fill(1.0)); // row `half` is written by both
    /// ```
    /// Use instead: split so the parts are disjoint, and let Rust prove it.
    /// ```rust,ignore
    /// let (top, bottom) = grid.view_mut().split_at(Axis(0), n / 2);
    /// rayon::join(|| top.fill(0.0), || bottom.fill(1.0));
    /// ```
    pub ALIAS_RACE = "alias_race", Deny, Correctness,
    "parallel tasks whose accesses to tensor memory may overlap",
    possible_is_warn = true,
    status = Planned
}

/// The pass behind this lint; `None` while it is only declared.
pub const PASS: Option<crate::context::CheckFn> = None;
