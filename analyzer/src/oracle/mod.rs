//! The alias oracle: whether two strided views can reach the same memory.
//!
//! A [`View`] maps index tuples to elements of a root allocation through integer
//! expressions over symbols ([`Expr`]). The oracle answers overlap questions about views
//! with a [`Verdict`] and, whenever overlap is possible, a [`Witness`]: index tuples of
//! both views that reach one address.
//!
//! - `NoAlias`: no allowed value of the symbols lets the views share a byte.
//! - `MustAlias`: for every allowed value of the symbols some index tuples share one.
//! - `MayAlias`: for some allowed value they do (or the solver gave up: `undecided`).
//!
//! Exact fast paths run first (root, empty, interval, same map, gcd, nested strides,
//! tiles, bounded Diophantine search); only the residue reaches Z3, with a per-query
//! time limit and one solver per thread. Every [`Answer`] records which path decided it
//! and [`path_stats`] counts them per thread.

mod assume;
#[cfg(test)]
mod audit_tests;
mod collide;
mod decide;
mod diophantine;
mod expr;
mod smt;
mod stats;
mod view;

pub use assume::{Assumptions, Cmp, Fact};
pub use collide::{colliding_pair, witness_holds, Collision};
pub use decide::{
    internal_overlap, iterations_overlap, iterations_share_cache_line, overlap, same_map,
    share_cache_line, Answer, Verdict, Witness,
};
pub use expr::{Atom, Expr, OpKind, Sym};
pub use smt::{set_solver_timeout_ms, solver_timeout_ms};
pub use stats::{path_stats, reset_path_stats, DecidedBy};
pub use view::{Dim, RootId, View};
