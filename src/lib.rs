//! cargo-tensor-lint: the command line, workspace discovery, configuration and output
//! formats of tensor-lint.
//!
//! Invariants:
//! - A run is a straight line ([`run`]): `cargo check` of what was asked, as clippy
//!   does, with this binary as rustc's wrapper ([`compiler`]), whose driver lowers,
//!   analyses and lints each crate of the workspace; then fixes, baselines, rendering.
//!   The library itself never links the compiler (only the binary does).
//! - Renderers read [`report::Report`]s and never know which lint produced a finding.
//! - Errors of the tool itself (usage, configuration, I/O) are miette reports and exit
//!   status 2; findings are diagnostics and decide between 0 and 1.

#![forbid(unsafe_code)]

mod alias;
pub mod baseline;
pub mod cli;
pub mod compiler;
pub mod config;
pub mod coverage;
pub mod error;
pub mod fix;
pub mod levels;
mod partial;
pub mod render;
pub mod report;
pub mod run;
pub mod toolchain;
pub mod workspace;

/// One fuzzing input through every reader of user input that runs outside the
/// compiler: the configuration file, alias queries, `// tensor-lint:` comments and the
/// annotations' arguments (the driver reads those inside rustc); panics are the bugs
/// the fuzz target (`fuzz/`) looks for.
pub fn fuzz_one(text: &str) {
    use std::path::{Path, PathBuf};
    use tensor_lint_analyzer::annotation_args;
    use tensor_lint_analyzer::source::{FileId, SourceFile, Span};

    let mut config = config::Config::new(PathBuf::from("/fuzz"));
    if let Err(err) = config.apply_file(Path::new("/fuzz/tensor-lint.toml"), text) {
        let _ = format!("{:?}", miette::Report::new(err));
    }
    let _ = alias::query::run_jsonl(text.as_bytes(), std::io::sink());
    let file = SourceFile::new(FileId(0), "fuzz.rs".into(), "fuzz.rs".into(), text.into());
    let _ = tensor_lint_analyzer::suppress::comment_regions(
        &file,
        &[Span::new(FileId(0), 0, text.len())],
    );
    let _ = tensor_lint_analyzer::lexical::scan(text, |_| {});
    let _ = annotation_args::names(text);
    let _ = annotation_args::view_of(text);
    let _ = annotation_args::kernel(text);
    let _ = annotation_args::lint_names(text);
}
