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
    /// How much the run read, when it read a crate (not for a report made up in tests).
    pub analysed: Option<crate::coverage::Analysed>,
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

/// Sample findings the unit tests of the renderers, baselines and fixes share.
#[cfg(test)]
pub(crate) mod sample {
    use tensor_lint_analyzer::source::{FileId, SourceMap, Span};
    use tensor_lint_lints::diagnostic::{
        Applicability, Diagnostic, Edit, Label, Severity, Suggestion,
    };

    use super::{Finding, Origin};

    /// A small kernel: an allocation, an out-of-place op, an early return.
    pub const TEXT: &str =
        "fn f() {\n    let x = alloc(4);\n    let y = x.relu();\n    return;\n}\n";

    /// `TEXT` as `src/a.rs` of a workspace at `/w`.
    pub fn sources() -> (SourceMap, FileId) {
        let mut sources = SourceMap::new();
        let id = sources.add("/w/src/a.rs".into(), "src/a.rs".into(), TEXT.into());
        (sources, id)
    }

    /// The span of the first `needle` in `TEXT`.
    pub fn span_of(id: FileId, needle: &str) -> Span {
        let lo = TEXT.find(needle).expect("needle is in the text");
        Span::new(id, lo, lo + needle.len())
    }

    pub fn origin() -> Origin {
        Origin {
            package_id: "path+file:///w#demo@0.1.0".into(),
            manifest_path: "/w/Cargo.toml".into(),
            target_name: "demo".into(),
            target_kind: vec!["lib".into()],
            crate_types: vec!["lib".into()],
            src_path: "/w/src/lib.rs".into(),
            edition: "2021".into(),
        }
    }

    pub fn finding(diagnostic: Diagnostic) -> Finding {
        Finding {
            diagnostic,
            origin: origin(),
        }
    }

    /// A leak with every part a diagnostic can have: code, secondary label, note, help
    /// and a suggestion.
    pub fn leak(id: FileId) -> Diagnostic {
        Diagnostic::new(
            Severity::Warning,
            "`x` is not released on this path",
            Label::new(span_of(id, "return"), "returns without releasing `x`"),
        )
        .with_code("tensor_lint::leak")
        .with_label(span_of(id, "alloc(4)"), "allocated here")
        .with_note("the allocation comes from `alloc`")
        .with_help("release `x` before returning")
        .with_suggestion(Suggestion {
            message: "use the in-place form".into(),
            edits: vec![Edit {
                span: span_of(id, "x.relu()"),
                replacement: "x.relu_()".into(),
            }],
            applicability: Applicability::MaybeIncorrect,
        })
    }
}
