//! cargo-tensor-lint: the command line, workspace discovery, configuration and output
//! formats of tensor-lint.
//!
//! Invariants:
//! - The compiler front end ([`compiler`], the default) runs `cargo check`, as clippy
//!   does, with this binary as rustc's wrapper; the library itself never links the
//!   compiler (only the binary does). The syntax front end (`--front-end syntax`) never
//!   builds or runs anything of the checked project: targets come from `cargo metadata
//!   --no-deps`, sources are read as text.
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
pub mod driver;
pub mod error;
pub mod fix;
mod partial;
pub mod render;
pub mod report;
pub mod toolchain;
pub mod workspace;

/// One fuzzing input through the whole pipeline and every renderer; panics are the
/// bugs the fuzz target (`fuzz/`) looks for.
pub fn fuzz_one(text: &str) {
    use std::io::sink;
    let (sources, diagnostics) = driver::check_text("fuzz.rs", text.to_string());
    let origin = report::Origin {
        package_id: "path+file:///fuzz#fuzz@0.0.0".into(),
        manifest_path: "/fuzz/Cargo.toml".into(),
        target_name: "fuzz".into(),
        target_kind: vec!["bin".into()],
        crate_types: vec!["bin".into()],
        src_path: "/fuzz/fuzz.rs".into(),
        edition: "2021".into(),
    };
    let findings = diagnostics
        .into_iter()
        .map(|diagnostic| report::Finding {
            diagnostic,
            origin: origin.clone(),
        })
        .collect();
    let report = report::Report {
        analysed: None,
        sources: &sources,
        findings,
    };
    for format in render::MessageFormat::ALL {
        let _ = render::render(
            format,
            &report,
            &render::RenderOptions { color: false },
            &mut sink(),
        );
    }
}
