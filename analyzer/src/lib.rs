//! tensor-lint-analyzer: everything tensor-lint knows about a program.
//!
//! The tensor IR that the compiler driver lowers each function's MIR into, the
//! bottom-up schedule that lowers a crate's functions with each other's summaries, and
//! the facts computed over the IR: allocation states, liveness, which roots a view
//! reaches, and, through the alias oracle, whether two strided views can touch the same
//! bytes.
//!
//! Invariants:
//! - Depends on the solver (z3) only; it knows nothing of the compiler, lints, levels,
//!   rendering or output formats.
//! - One owner per fact: library names live in [`models`], facts per function in
//!   [`dataflow`], overlap arithmetic in [`oracle`].
//! - Never panics on input: malformed annotations and allow comments become
//!   [`source::SourceError`]s; solver time-outs become "may alias".
//! - Deterministic: the same files give the same facts in the same order.

#![forbid(unsafe_code)]

pub mod annotation_args;
pub mod dataflow;
pub mod ir;
pub mod lexical;
pub mod models;
pub mod oracle;
pub mod program;
pub mod source;
pub mod summary;
pub mod suppress;
pub mod threads;
