//! `false_sharing`: threads repeatedly writing distinct bytes of one cache line.

crate::declare_lint! {
    /// ### What it does
    /// Reports parallel tasks that write, inside a loop, distinct bytes that lie on one
    /// cache line (`cache-line-bytes` in the configuration, 64 by default): per-thread
    /// counters or accumulators packed in a `Vec` or array, struct fields written by
    /// different threads, small parallel chunks rewritten in a loop. Large chunks that
    /// share only their boundary line are not reported.
    ///
    /// ### Why is this bad
    /// The program is correct but the cores fight over the line: every write invalidates
    /// the line in the other cores' caches, and a loop that should scale with the number
    /// of threads runs slower than on one thread.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let mut hits = vec![0u64; threads];
    /// hits.par_iter_mut().enumerate().for_each(|(t, h)| {
    ///     for p in chunk(points, t) {
    ///         *h += inside(p) as u64; // eight counters share one line
    ///     }
    /// });
    /// ```
    /// Use instead: accumulate in a local and store once, or pad each counter.
    /// ```rust,ignore
    /// let mut hits = vec![CachePadded::new(0u64); threads];
    /// ```
    pub FALSE_SHARING = "false_sharing", Warn, Correctness,
    "threads repeatedly writing distinct bytes of one cache line",
    status = Planned
}

/// The pass behind this lint; `None` while it is only declared.
pub const PASS: Option<crate::context::CheckFn> = None;
