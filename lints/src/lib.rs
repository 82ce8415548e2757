//! tensor-lint-lints: the lints, their documentation and registry.
//!
//! Invariants:
//! - One lint per file: its declaration with docs, and its check.
//! - Lints read the analyzer's facts and never touch syntax.
//! - Produces [`diagnostic::Diagnostic`]s; knows nothing of how they are rendered.

pub mod book;
pub mod context;
pub mod diagnostic;
pub mod registry;

pub mod alias_race;
pub mod alloc_in_loop;
pub mod double_free;
pub mod false_sharing;
pub mod leak;
pub mod missed_inplace;
pub mod unsafe_inplace;
pub mod use_after_free;
