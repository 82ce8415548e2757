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

impl Report<'_> {
    /// A fingerprint per finding (same order) that survives unrelated edits: a stable
    /// hash of the code, the file and the trimmed text of the primary line, plus the
    /// occurrence number among findings with the same hash.
    pub fn fingerprints(&self) -> Vec<String> {
        let mut seen: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
        self.findings
            .iter()
            .map(|finding| {
                let d = &finding.diagnostic;
                // A span into no known file still gets a (file-less) fingerprint.
                let (display, line) = match self.sources.try_get(d.primary.span.file) {
                    Some(file) => (
                        file.display.as_str(),
                        file.line_text(file.line_index(d.primary.span.lo as usize))
                            .trim(),
                    ),
                    None => ("", ""),
                };
                let hash = stable_hash(&[d.code.as_deref().unwrap_or(""), display, line]);
                let occurrence = seen.entry(hash).or_insert(0);
                *occurrence += 1;
                format!("{hash:016x}:{occurrence}")
            })
            .collect()
    }
}

/// FNV-1a over the parts with a separator: stable across Rust versions and platforms,
/// unlike `DefaultHasher`.
pub fn stable_hash(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0xff)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}
