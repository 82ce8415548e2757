//! `use_after_free`: tensor memory read, written or viewed after its release.

crate::declare_lint! {
    /// ### What it does
    /// Reports a read, a write or a new view of memory after it was released on that
    /// path, through the released name or any alias of it (a copied raw pointer, a view
    /// built with `from_shape_ptr`, a slice from `from_raw_parts`). The release is shown
    /// beside it.
    ///
    /// ### Why is this bad
    /// Released memory belongs to the allocator or the pool again. Reading it returns
    /// another tensor's data; writing it corrupts another tensor, usually one that a
    /// different thread owns by then.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let features = unsafe { std::alloc::alloc(layout) } as *mut f32;
    /// unsafe { std::alloc::dealloc(features as *mut u8, layout) };
    /// let first = unsafe { *features }; // read after the release
    /// ```
    /// Use instead: finish every use before the release.
    /// ```rust,ignore
    /// let features = unsafe { std::alloc::alloc(layout) } as *mut f32;
    /// let first = unsafe { *features };
    /// unsafe { std::alloc::dealloc(features as *mut u8, layout) };
    /// ```
    pub USE_AFTER_FREE = "use_after_free", Deny, Correctness,
    "tensor memory used after its release",
    status = Planned
}

/// The pass behind this lint; `None` while it is only declared.
pub const PASS: Option<crate::context::CheckFn> = None;
