//! Baselines: accept today's findings so a CI gate fails only on new ones.
//!
//! A finding is matched by lint, file and a fingerprint of its line's text (see
//! [`Report::fingerprints`]), so findings survive edits that only move them.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::report::Report;

const VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineFile {
    version: u32,
    findings: Vec<Entry>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq, Hash, Clone)]
#[serde(deny_unknown_fields)]
struct Entry {
    lint: String,
    file: String,
    fingerprint: String,
    /// For the reader of the file only; not used to match.
    #[serde(default)]
    line: usize,
    #[serde(default)]
    message: String,
}

fn entries(report: &Report) -> Vec<Entry> {
    report
        .findings
        .iter()
        .zip(report.fingerprints())
        .filter_map(|(finding, fingerprint)| {
            // Problems with the input itself (a file that does not parse) are never
            // accepted into a baseline: they must be fixed.
            let lint = finding.diagnostic.code.clone()?;
            let span = finding.diagnostic.primary.span;
            let file = report.sources.try_get(span.file)?;
            Some(Entry {
                lint,
                file: file.display.clone(),
                fingerprint,
                line: file.line_col(span.lo as usize).line,
                message: finding.diagnostic.message.clone(),
            })
        })
        .collect()
}

/// Writes every lint finding of `report` to `path`; returns how many.
pub fn write(report: &Report, path: &Path) -> Result<usize, ToolError> {
    let findings = entries(report);
    let count = findings.len();
    let text = serde_json::to_string_pretty(&BaselineFile {
        version: VERSION,
        findings,
    })
    .map_err(|e| ToolError::usage(format!("cannot encode the baseline: {e}"), None))?;
    std::fs::write(path, text + "\n")
        .map_err(|e| ToolError::io(format!("cannot write `{}`", path.display()), e))?;
    Ok(count)
}

/// Removes from `report` the findings recorded in the baseline at `path`.
pub fn apply(report: &mut Report, path: &Path) -> Result<usize, ToolError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ToolError::io(format!("cannot read `{}`", path.display()), e))?;
    let baseline: BaselineFile = serde_json::from_str(&text).map_err(|e| {
        let offset = offset_of(&text, e.line(), e.column());
        ToolError::config(
            path,
            &text,
            offset..offset + 1,
            format!("malformed baseline: {e}"),
            "here",
            Some("write a new one with `--write-baseline FILE`".into()),
        )
    })?;
    if baseline.version != VERSION {
        return Err(ToolError::usage(
            format!(
                "baseline `{}` has version {}, expected {VERSION}",
                path.display(),
                baseline.version
            ),
            Some("write a new one with `--write-baseline FILE`".into()),
        ));
    }
    let mut remaining: HashMap<(String, String, String), usize> = HashMap::new();
    for entry in baseline.findings {
        *remaining
            .entry((entry.lint, entry.file, entry.fingerprint))
            .or_insert(0) += 1;
    }
    let keys = entries_with_index(report);
    let mut drop = vec![false; report.findings.len()];
    for (index, key) in keys {
        if let Some(count) = remaining.get_mut(&key).filter(|c| **c > 0) {
            *count -= 1;
            drop[index] = true;
        }
    }
    let before = report.findings.len();
    let mut index = 0;
    report.findings.retain(|_| {
        let keep = !drop[index];
        index += 1;
        keep
    });
    Ok(before - report.findings.len())
}

fn entries_with_index(report: &Report) -> Vec<(usize, (String, String, String))> {
    let fingerprints = report.fingerprints();
    report
        .findings
        .iter()
        .enumerate()
        .filter_map(|(index, finding)| {
            let lint = finding.diagnostic.code.clone()?;
            let file = report
                .sources
                .try_get(finding.diagnostic.primary.span.file)?
                .display
                .clone();
            Some((index, (lint, file, fingerprints[index].clone())))
        })
        .collect()
}

fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    (start + column.saturating_sub(1)).min(text.len().saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use tensor_lint_analyzer::source::{SourceMap, Span};
    use tensor_lint_lints::diagnostic::{Diagnostic, Label, Severity};

    use super::*;
    use crate::report::sample::origin;
    use crate::report::Finding;

    fn report_for<'a>(
        sources: &'a SourceMap,
        text: &str,
        needle: &str,
        code: Option<&str>,
    ) -> Report<'a> {
        let id = sources
            .find_path(Path::new("src/lib.rs"))
            .expect("file added");
        let lo = text.find(needle).expect("needle in text");
        let mut diagnostic = Diagnostic::new(
            Severity::Warning,
            "m",
            Label::new(Span::new(id, lo, lo + needle.len()), "l"),
        );
        diagnostic.code = code.map(String::from);
        Report {
            analysed: None,
            sources,
            findings: vec![Finding {
                diagnostic,
                origin: origin(),
            }],
        }
    }

    fn sources(text: &str) -> SourceMap {
        let mut sources = SourceMap::new();
        sources.add("src/lib.rs".into(), "src/lib.rs".into(), text.into());
        sources
    }

    #[test]
    fn baselined_findings_survive_line_shifts_and_new_ones_remain() {
        let dir = std::env::temp_dir().join(format!("tensor-lint-baseline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("baseline.json");
        let before = "fn f() {\n    let p = checkout(pool);\n}\n";
        let old_sources = sources(before);
        let old = report_for(
            &old_sources,
            before,
            "checkout(pool)",
            Some("tensor_lint::leak"),
        );
        assert_eq!(write(&old, &path).unwrap(), 1);

        let shifted = "// a new comment\n\nfn f() {\n    let p = checkout(pool);\n}\n";
        let shifted_sources = sources(shifted);
        let mut same = report_for(
            &shifted_sources,
            shifted,
            "checkout(pool)",
            Some("tensor_lint::leak"),
        );
        assert_eq!(apply(&mut same, &path).unwrap(), 1);
        assert!(same.findings.is_empty());

        let changed = "fn f() {\n    let q = checkout(pool);\n}\n";
        let changed_sources = sources(changed);
        let mut new = report_for(
            &changed_sources,
            changed,
            "checkout(pool)",
            Some("tensor_lint::leak"),
        );
        assert_eq!(apply(&mut new, &path).unwrap(), 0);
        assert_eq!(new.findings.len(), 1);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn input_errors_are_never_baselined() {
        let text = "fn f( {}\n";
        let s = sources(text);
        let report = report_for(&s, text, "(", None);
        assert!(entries(&report).is_empty());
    }

    #[test]
    fn malformed_baseline_is_a_tool_error() {
        let dir =
            std::env::temp_dir().join(format!("tensor-lint-baseline-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.json");
        std::fs::write(
            &path,
            "{\"version\": 1, \"findings\": [\n  {\"lint\": 3}\n]}\n",
        )
        .unwrap();
        let text = "fn f() {}\n";
        let s = sources(text);
        let mut report = report_for(&s, text, "fn", Some("tensor_lint::leak"));
        let err = apply(&mut report, &path).unwrap_err();
        assert!(err.to_string().starts_with("malformed baseline"), "{err}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
