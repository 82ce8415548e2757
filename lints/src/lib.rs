//! tensor-lint-lints: the lints, their documentation and registry.
//!
//! Invariants:
//! - One lint per file: its declaration with docs, and its check; one line in the list
//!   below registers it (`book/src/contributing/adding-a-lint.md`).
//! - Lints read the analyzer's facts and never read MIR.
//! - Produces [`diagnostic::Diagnostic`]s; knows nothing of how they are rendered.

#![forbid(unsafe_code)]

pub mod context;
pub mod crate_findings;
mod describe;
pub mod diagnostic;
pub mod generated;
pub mod lint;
pub mod registry;

// Every lint, in the order `--list` shows them: the one place a lint is registered.
declare_lints! {
    leak::LEAK,
    double_free::DOUBLE_FREE,
    use_after_free::USE_AFTER_FREE,
    alias_race::ALIAS_RACE,
    false_sharing::FALSE_SHARING,
    unsafe_inplace::UNSAFE_INPLACE,
    missed_inplace::MISSED_INPLACE,
    alloc_in_loop::ALLOC_IN_LOOP,
}
