//! `--fix`: applies machine-applicable suggestions, all or nothing per file.
//!
//! A file is rewritten only when every machine-applicable edit for it applies (inside
//! the text, on character boundaries, no two overlapping) and the result still parses;
//! it is written to a temporary file beside it and renamed over it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tensor_lint_analyzer::lexical::DelimiterError;
use tensor_lint_analyzer::source::{FileId, SourceMap};
use tensor_lint_lints::diagnostic::{Applicability, Edit};

use crate::report::Report;

/// What `--fix` did to one file.
#[derive(Debug, PartialEq, Eq)]
pub enum FileOutcome {
    Fixed {
        path: PathBuf,
        display: String,
        edits: usize,
    },
    Refused {
        display: String,
        reason: String,
    },
}

/// Applies the machine-applicable suggestions of `report` to the files on disk.
pub fn apply(report: &Report) -> Vec<FileOutcome> {
    let mut by_file: BTreeMap<FileId, Vec<&Edit>> = BTreeMap::new();
    for finding in &report.findings {
        for suggestion in &finding.diagnostic.suggestions {
            if suggestion.applicability != Applicability::MachineApplicable {
                continue;
            }
            for edit in &suggestion.edits {
                by_file.entry(edit.span.file).or_default().push(edit);
            }
        }
    }
    by_file
        .into_iter()
        // Edits into a file the run never read cannot be checked: they are skipped.
        .filter(|(file, _)| report.sources.try_get(*file).is_some())
        .map(|(file, edits)| fix_file(report.sources, file, edits))
        .collect()
}

fn fix_file(sources: &SourceMap, file: FileId, mut edits: Vec<&Edit>) -> FileOutcome {
    let source = sources.get(file);
    let display = source.display.clone();
    let refuse = |reason: String| FileOutcome::Refused {
        display: display.clone(),
        reason,
    };
    edits.sort_by_key(|e| (e.span.lo, e.span.hi));
    edits.dedup_by(|a, b| a == b);
    let fixed = match edited_text(&source.text, &edits) {
        Ok(text) => text,
        Err(reason) => return refuse(reason),
    };
    // The run compiles the fixed code again and shows any error; a fix that leaves a
    // delimiter open or a string unterminated is not written at all.
    if let Some(problem) = tensor_lint_analyzer::lexical::scan(&fixed, |_| {}) {
        let what = match problem {
            DelimiterError::Unclosed { .. } => "a delimiter would be left open",
            DelimiterError::Mismatched { .. } => "a delimiter would not match",
            DelimiterError::Unterminated { .. } => "a string or comment would not end",
        };
        return refuse(format!(
            "the fixed file would not parse ({what}); nothing was written"
        ));
    }
    match write_atomically(&source.path, &fixed) {
        Ok(()) => FileOutcome::Fixed {
            path: source.path.clone(),
            display,
            edits: edits.len(),
        },
        Err(err) => refuse(format!("cannot write it: {err}")),
    }
}

/// `text` with `edits` (sorted by position) applied, or why they cannot all apply.
fn edited_text(text: &str, edits: &[&Edit]) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    for edit in edits {
        let (lo, hi) = (edit.span.lo as usize, edit.span.hi as usize);
        if hi > text.len() || !text.is_char_boundary(lo) || !text.is_char_boundary(hi) {
            return Err(
                "an edit lies outside the file as it is now; was it changed meanwhile?".into(),
            );
        }
        if lo < at {
            return Err("two suggested edits overlap; fix this file by hand".into());
        }
        out.push_str(&text[at..lo]);
        out.push_str(&edit.replacement);
        at = hi;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.tensor-lint-fix.{}", std::process::id()));
    let permissions = std::fs::metadata(path)?.permissions();
    std::fs::write(&temp, text)?;
    std::fs::set_permissions(&temp, permissions)?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

#[cfg(test)]
mod tests {
    use tensor_lint_analyzer::source::Span;
    use tensor_lint_lints::diagnostic::{Diagnostic, Label, Severity, Suggestion};

    use super::*;
    use crate::report::sample::origin;
    use crate::report::Finding;

    fn setup(text: &str) -> (PathBuf, SourceMap, FileId) {
        let dir = std::env::temp_dir().join(format!(
            "tensor-lint-fix-{}-{}",
            std::process::id(),
            text.len()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.rs");
        std::fs::write(&path, text).unwrap();
        let mut sources = SourceMap::new();
        let id = sources.add(path.clone(), "a.rs".into(), text.into());
        (path, sources, id)
    }

    fn finding(
        id: FileId,
        edits: Vec<(usize, usize, &str)>,
        applicability: Applicability,
    ) -> Finding {
        let suggestion = Suggestion {
            message: "use the in-place form".into(),
            edits: edits
                .into_iter()
                .map(|(lo, hi, r)| Edit {
                    span: Span::new(id, lo, hi),
                    replacement: r.into(),
                })
                .collect(),
            applicability,
        };
        let diagnostic =
            Diagnostic::new(Severity::Warning, "m", Label::new(Span::new(id, 0, 1), "l"))
                .with_suggestion(suggestion);
        Finding {
            diagnostic,
            origin: origin(),
        }
    }

    #[test]
    fn applies_every_machine_applicable_edit_and_skips_the_rest() {
        let text = "fn f(x: A) -> A { x.mapv(g) }\n";
        let (path, sources, id) = setup(text);
        let at = text.find("mapv").unwrap();
        let report = Report {
            analysed: None,
            sources: &sources,
            findings: vec![
                finding(
                    id,
                    vec![(at, at + 4, "mapv_into")],
                    Applicability::MachineApplicable,
                ),
                finding(id, vec![(0, 2, "pub fn")], Applicability::MaybeIncorrect),
            ],
        };
        let outcome = apply(&report);
        assert_eq!(
            outcome,
            [FileOutcome::Fixed {
                path: path.clone(),
                display: "a.rs".into(),
                edits: 1
            }]
        );
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "fn f(x: A) -> A { x.mapv_into(g) }\n"
        );
    }

    #[test]
    fn overlapping_edits_refuse_the_whole_file() {
        let text = "fn f() { a(); b(); }\n";
        let (path, sources, id) = setup(text);
        let report = Report {
            analysed: None,
            sources: &sources,
            findings: vec![finding(
                id,
                vec![(9, 13, "c();"), (11, 15, "d")],
                Applicability::MachineApplicable,
            )],
        };
        assert!(
            matches!(&apply(&report)[..], [FileOutcome::Refused { reason, .. }] if reason.contains("overlap"))
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }

    #[test]
    fn a_fix_that_breaks_the_syntax_is_not_written() {
        let text = "fn f() { a(); }\n";
        let (path, sources, id) = setup(text);
        let report = Report {
            analysed: None,
            sources: &sources,
            findings: vec![finding(
                id,
                vec![(9, 13, "a(")],
                Applicability::MachineApplicable,
            )],
        };
        assert!(
            matches!(&apply(&report)[..], [FileOutcome::Refused { reason, .. }] if reason.contains("would not parse"))
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    }
}
