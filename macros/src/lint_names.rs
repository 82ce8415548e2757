//! Generated from the lint registry by `lints/tests/generated.rs`
//! (`TENSOR_LINT_BLESS=1 cargo test -p tensor-lint-lints --test generated`); do not edit.

/// Every lint of tensor-lint, in the registry's order.
pub(crate) const LINT_NAMES: &[&str] = &[
    "leak",
    "double_free",
    "use_after_free",
    "alias_race",
    "false_sharing",
    "unsafe_inplace",
    "missed_inplace",
    "alloc_in_loop",
];
