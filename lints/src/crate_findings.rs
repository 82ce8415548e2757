//! What the compiler driver found in one crate, as it hands it to the command line.
//!
//! The driver runs inside rustc, once per crate that cargo compiles; the command line
//! runs cargo and reads, for each crate, the file the driver wrote beside the crate's
//! metadata. Levels, baselines and rendering happen on the command line's side, so the
//! file holds every finding before levels apply, the allows written in the crate, and
//! the problems of the input itself. It is JSON (serde) and carries a format number:
//! a file of another format is ignored as missing, never misread.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tensor_lint_analyzer::source::SourceError;
use tensor_lint_analyzer::suppress::AllowRegion;

use crate::context::LintFinding;
use crate::diagnostic::Diagnostic;

/// Bumped whenever the shape of [`CrateFindings`] changes.
pub const FORMAT: u32 = 1;

/// The variable the command line sets for the `cargo check` it runs: the analysis
/// options, as JSON (`{"cache_line_bytes": 64}`). The driver tells cargo the crate
/// depends on it, so a change re-checks.
pub const OPTIONS_ENV: &str = "TENSOR_LINT_OPTIONS";

/// The extension of the file written beside a crate's `.rmeta`.
pub const EXTENSION: &str = "tensor-lint.json";

/// Everything the driver found in one crate.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CrateFindings {
    pub format: u32,
    pub crate_name: String,
    /// The crate's own source files, by [`tensor_lint_analyzer::source::FileId`]: every
    /// span below indexes this table. Absolute paths.
    pub files: Vec<PathBuf>,
    /// Lines of those files.
    pub lines: usize,
    /// Functions lowered, and how many of them only in part.
    pub functions: usize,
    pub truncated: usize,
    pub findings: Vec<StoredFinding>,
    pub allows: Vec<AllowRegion>,
    /// Malformed annotations or allow comments.
    pub problems: Vec<SourceError>,
    /// A failure of the analysis itself (a bug of tensor-lint), with the function it was
    /// in when known: the crate's other results are then missing.
    pub internal_error: Option<InternalError>,
    /// The IR of the crate's functions (or of those of one name), when asked for with
    /// `dump_ir` in the options.
    pub ir_dump: Option<String>,
    /// Rows of the model table whose crate the compilation loaded but that name no item
    /// of it (`tests/model_paths.rs` keeps this empty for the libraries the fixtures use).
    #[serde(default)]
    pub unresolved_models: Vec<String>,
    /// The rows of the user's `[[models]]` (by index) some call of the crate matched.
    #[serde(default)]
    pub user_models_matched: Vec<usize>,
    /// Where the driver's time went, for `--timings` (never part of a finding).
    #[serde(default)]
    pub timings: DriverTimings,
}

/// The time the driver spent on one crate, and how the alias oracle decided.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DriverTimings {
    /// MIR lowered into the IR, and the dataflow facts of the IR, in microseconds.
    pub lower_us: u64,
    /// The lint passes, with the oracle queries they ask, in microseconds.
    pub lints_us: u64,
    /// Oracle queries by the path that decided them.
    pub oracle: Vec<(String, u64)>,
}

/// A lint finding by the lint's name.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StoredFinding {
    pub lint: String,
    pub proven: bool,
    pub diagnostic: Diagnostic,
}

/// Where and why the analysis of a crate failed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InternalError {
    pub message: String,
    /// The function being analysed, by its span, when the failure was in one.
    pub span: Option<tensor_lint_analyzer::source::Span>,
}

impl StoredFinding {
    pub fn new(finding: &LintFinding) -> StoredFinding {
        StoredFinding {
            lint: finding.lint.name.to_string(),
            proven: finding.proven,
            diagnostic: finding.diagnostic.clone(),
        }
    }

    /// The finding again, `None` when its lint is not (or no longer) registered.
    pub fn to_finding(&self) -> Option<LintFinding> {
        Some(LintFinding {
            lint: crate::registry::find(&self.lint)?,
            proven: self.proven,
            diagnostic: self.diagnostic.clone(),
        })
    }
}

/// The findings file of the crate whose metadata cargo reported at `rmeta`.
pub fn path_beside(rmeta: &Path) -> PathBuf {
    rmeta.with_extension(EXTENSION)
}

impl CrateFindings {
    /// Writes the file whole or not at all: a reader never sees half of it.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        let partial = path.with_extension("partial");
        std::fs::write(&partial, text)?;
        std::fs::rename(&partial, path)
    }

    /// The file at `path`, `None` when it is missing, unreadable or of another format.
    pub fn read(path: &Path) -> Option<CrateFindings> {
        let text = std::fs::read(path).ok()?;
        let found: CrateFindings = serde_json::from_slice(&text).ok()?;
        (found.format == FORMAT).then_some(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Label, Severity};
    use tensor_lint_analyzer::source::{FileId, Span};

    #[test]
    fn a_written_file_reads_back_and_another_format_is_missing() {
        let dir = std::env::temp_dir().join(format!("tl-crate-findings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("libk-0.tensor-lint.json");
        let found = CrateFindings {
            format: FORMAT,
            crate_name: "k".into(),
            files: vec![dir.join("k.rs")],
            findings: vec![StoredFinding {
                lint: "leak".into(),
                proven: true,
                diagnostic: Diagnostic::new(
                    Severity::Warning,
                    "m",
                    Label::new(Span::new(FileId(0), 1, 2), "here"),
                ),
            }],
            ..CrateFindings::default()
        };
        found.write(&path).expect("written");
        let back = CrateFindings::read(&path).expect("read back");
        assert_eq!(back.findings.len(), 1);
        assert_eq!(
            back.findings[0].to_finding().map(|f| f.lint.name),
            Some("leak")
        );
        let old = CrateFindings {
            format: FORMAT + 1,
            ..found
        };
        old.write(&path).expect("written");
        assert!(CrateFindings::read(&path).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_file_sits_beside_the_metadata() {
        assert_eq!(
            path_beside(Path::new("/t/debug/deps/libk-1a2b.rmeta")),
            Path::new("/t/debug/deps/libk-1a2b.tensor-lint.json")
        );
    }
}
