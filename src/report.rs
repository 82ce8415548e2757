//! What one run found: each diagnostic with the cargo package and target it belongs to.

use tensor_lint_analyzer::source::SourceMap;
use tensor_lint_lints::diagnostic::{Diagnostic, Severity};

/// The cargo target a finding belongs to, as cargo's JSON messages describe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    /// cargo's package id (`path+file:///…#name@0.1.0`); synthesised for loose files.
    pub package_id: String,
    pub manifest_path: String,
    pub target_name: String,
    /// `["lib"]`, `["bin"]`, `["test"]`, …
    pub target_kind: Vec<String>,
    pub crate_types: Vec<String>,
    pub src_path: String,
    pub edition: String,
}

#[derive(Clone, Debug)]
pub struct Finding {
    pub diagnostic: Diagnostic,
    pub origin: Origin,
}

/// Everything the renderers read.
pub struct Report<'a> {
    pub sources: &'a SourceMap,
    /// Sorted by file, then position.
    pub findings: Vec<Finding>,
}

impl Report<'_> {
    pub fn has_errors(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.diagnostic.severity == Severity::Error)
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.findings
            .iter()
            .filter(|f| f.diagnostic.severity == severity)
            .count()
    }
}
