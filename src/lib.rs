//! cargo-tensor-lint: the command line, workspace discovery, configuration and output
//! formats of tensor-lint.
//!
//! Invariants:
//! - Never builds or runs anything of the checked project: targets come from
//!   `cargo metadata --no-deps`, sources are read as text.
//! - Renderers read [`report::Report`]s and never know which lint produced a finding.
//! - Errors of the tool itself (usage, configuration, I/O) are miette reports and exit
//!   status 2; findings are diagnostics and decide between 0 and 1.

mod alias;
pub mod baseline;
pub mod cli;
pub mod config;
pub mod driver;
pub mod error;
pub mod fix;
pub mod render;
pub mod report;
pub mod workspace;
