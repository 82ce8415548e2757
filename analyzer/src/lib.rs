//! tensor-lint-analyzer: everything tensor-lint knows about a program.
//!
//! Reads Rust source (never compiles or runs it), lowers it to a small tensor IR and
//! computes facts over it: allocation states, liveness, which roots a view reaches, and,
//! through the alias oracle, whether two strided views can touch the same bytes.
//!
//! Invariants:
//! - Depends on syntax (syn, with proc-macro2 and quote) and the solver (z3) only; it
//!   knows nothing of lints, levels, rendering or output formats.
//! - One owner per fact: library names live in [`models`], facts per function in
//!   [`dataflow`], overlap arithmetic in [`oracle`].
//! - Never panics on input: unparsable files, huge literals and deep nesting become
//!   [`source::SourceError`]s or unknown values; solver time-outs become "may alias".
//! - Deterministic: the same files give the same facts in the same order.

#![forbid(unsafe_code)]

pub mod annotation_args;
pub mod dataflow;
pub mod index;
pub mod ir;
pub mod lexical;
pub mod lower;
pub mod models;
pub mod oracle;
pub mod pipeline;
pub mod program;
pub mod source;
pub mod summary;
pub mod suppress;
pub mod syntax;
pub mod threads;
