//! The `human` format: rustc-style diagnostics with source snippets, via
//! codespan-reporting.
//!
//! Suggestions cannot be drawn as rustc's inline diffs by codespan, so they become
//! `= help:` lines: the replacement itself when it is short, otherwise the edited lines.

use std::io::{self, Write};

use codespan_reporting::diagnostic as cs;
use codespan_reporting::term::{self, termcolor, Chars, Config};
use tensor_lint_analyzer::source::{FileId, SourceMap};
use tensor_lint_lints::diagnostic::{Diagnostic, Severity, Suggestion};

use super::codespan_files::CodespanFiles;
use super::location::{clamp, locate, source_file};
use crate::report::Report;

/// Replacements up to this many characters are shown inline, as `help: try: x.relu_()`.
const INLINE_REPLACEMENT_CHARS: usize = 60;
/// Edited snippets longer than this are cut, to keep a help line a hint and not a diff.
const MAX_SNIPPET_LINES: usize = 8;

/// Writes every finding, then the summary line.
pub(crate) fn write_report(
    report: &Report<'_>,
    color: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let files = CodespanFiles::new(report.sources);
    let config = config();
    if color {
        let mut writer = termcolor::Ansi::new(&mut *out);
        for finding in &report.findings {
            let diagnostic = to_codespan(&finding.diagnostic, report.sources);
            term::emit_to_write_style(&mut writer, &config, &files, &diagnostic)
                .map_err(into_io_error)?;
        }
    } else {
        for finding in &report.findings {
            let diagnostic = to_codespan(&finding.diagnostic, report.sources);
            term::emit_to_io_write(&mut *out, &config, &files, &diagnostic)
                .map_err(into_io_error)?;
        }
    }
    super::write_summary(report, color, out)
}

/// One diagnostic as plain text, ending with the blank line rustc leaves after it.
pub(crate) fn render_plain(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    let files = CodespanFiles::new(sources);
    let rendered = to_codespan(diagnostic, sources);
    // Every label is resolved against `sources` before it reaches codespan, so an error
    // here means the file database and the diagnostic disagree; a header alone is still
    // a faithful rendering of the finding.
    term::emit_into_string(&config(), &files, &rendered)
        .unwrap_or_else(|_| format!("{}\n\n", header(diagnostic)))
}

/// `warning[tensor_lint::leak]: message`, or without `[code]`.
fn header(diagnostic: &Diagnostic) -> String {
    match &diagnostic.code {
        Some(code) => format!(
            "{}[{code}]: {}",
            diagnostic.severity.as_str(),
            diagnostic.message
        ),
        None => format!("{}: {}", diagnostic.severity.as_str(), diagnostic.message),
    }
}

fn config() -> Config {
    Config {
        chars: Chars::ascii(),
        ..Config::default()
    }
}

fn into_io_error(error: codespan_reporting::files::Error) -> io::Error {
    match error {
        codespan_reporting::files::Error::Io(error) => error,
        other => io::Error::other(other.to_string()),
    }
}

fn to_codespan(diagnostic: &Diagnostic, sources: &SourceMap) -> cs::Diagnostic<FileId> {
    let severity = match diagnostic.severity {
        Severity::Error => cs::Severity::Error,
        Severity::Warning => cs::Severity::Warning,
        Severity::Note => cs::Severity::Note,
    };
    let mut rendered = cs::Diagnostic::new(severity).with_message(&diagnostic.message);
    if let Some(code) = &diagnostic.code {
        rendered = rendered.with_code(code);
    }
    let primary = std::iter::once((cs::LabelStyle::Primary, &diagnostic.primary));
    let secondary = diagnostic
        .secondary
        .iter()
        .map(|label| (cs::LabelStyle::Secondary, label));
    for (style, label) in primary.chain(secondary) {
        let Some(location) = locate(sources, label.span) else {
            continue;
        };
        rendered = rendered.with_label(
            cs::Label::new(style, label.span.file, location.lo..location.hi)
                .with_message(&label.message),
        );
    }
    let notes = diagnostic.notes.iter().map(|note| prefixed("note", note));
    let helps = diagnostic.helps.iter().map(|help| prefixed("help", help));
    let suggestions = diagnostic
        .suggestions
        .iter()
        .map(|suggestion| prefixed("help", &suggestion_text(suggestion, sources)));
    rendered.with_notes(notes.chain(helps).chain(suggestions).collect())
}

/// `note: text`, with continuation lines aligned under the text as rustc does.
fn prefixed(kind: &str, text: &str) -> String {
    let indent = " ".repeat(kind.len() + 2);
    let mut out = format!("{kind}: ");
    for (index, line) in text.lines().enumerate() {
        if index > 0 {
            out.push('\n');
            out.push_str(&indent);
        }
        out.push_str(line);
    }
    out
}

/// What a suggestion's `help:` line says after `help: `.
pub(crate) fn suggestion_text(suggestion: &Suggestion, sources: &SourceMap) -> String {
    if let [edit] = suggestion.edits.as_slice() {
        let replacement = edit.replacement.as_str();
        if !replacement.is_empty()
            && !replacement.contains('\n')
            && replacement.chars().count() <= INLINE_REPLACEMENT_CHARS
        {
            return format!("{}: `{replacement}`", suggestion.message);
        }
        if replacement.is_empty() {
            if let Some(location) = locate(sources, edit.span) {
                let removed = location.snippet().trim();
                if !removed.is_empty() && !removed.contains('\n') {
                    return format!("{}: remove `{removed}`", suggestion.message);
                }
            }
        }
    }
    let snippets = edited_snippets(suggestion, sources);
    if snippets.is_empty() {
        return suggestion.message.clone();
    }
    let mut out = format!("{}:", suggestion.message);
    let show_files = snippets.len() > 1;
    for (file_name, lines) in snippets {
        if show_files {
            out.push_str(&format!("\n--> {file_name}"));
        }
        for line in lines {
            out.push('\n');
            out.push_str(&line);
        }
    }
    out
}

/// For each file a suggestion edits, the touched lines as they read after the edits,
/// without their common indentation.
fn edited_snippets(suggestion: &Suggestion, sources: &SourceMap) -> Vec<(String, Vec<String>)> {
    let mut file_ids: Vec<FileId> = suggestion.edits.iter().map(|edit| edit.span.file).collect();
    file_ids.sort_unstable();
    file_ids.dedup();
    let mut snippets = Vec::new();
    for id in file_ids {
        let Some(file) = source_file(sources, id) else {
            continue;
        };
        let mut edits: Vec<(usize, usize, &str)> = suggestion
            .edits
            .iter()
            .filter(|edit| edit.span.file == id)
            .map(|edit| {
                let (lo, hi) = clamp(file, edit.span);
                (lo, hi, edit.replacement.as_str())
            })
            .collect();
        edits.sort_by_key(|&(lo, hi, _)| (lo, hi));
        let (Some(first), Some(last)) = (edits.first(), edits.last()) else {
            continue;
        };
        let first_line = file.line_index(first.0);
        let last_line = file.line_index(last.1);
        let region_lo = file.line_start(first_line);
        let region_hi = file.line_start(last_line) + file.line_text(last_line).len();
        let mut edited = String::new();
        let mut cursor = region_lo;
        for &(lo, hi, replacement) in &edits {
            // Overlapping edits cannot all apply; the first one wins, as `--fix` would refuse.
            if lo < cursor {
                continue;
            }
            edited.push_str(&file.text[cursor..lo]);
            edited.push_str(replacement);
            cursor = hi;
        }
        edited.push_str(&file.text[cursor..region_hi.max(cursor)]);
        let lines = dedent(&edited);
        if lines.is_empty() {
            continue;
        }
        snippets.push((file.display.clone(), lines));
    }
    snippets
}

/// Lines of `text` without blank ends, common indentation removed, cut to a few lines.
fn dedent(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().map(|line| line.trim_end()).collect();
    let Some(start) = lines.iter().position(|line| !line.is_empty()) else {
        return Vec::new();
    };
    let end = lines
        .iter()
        .rposition(|line| !line.is_empty())
        .map_or(start, |i| i + 1);
    let lines = &lines[start..end];
    let indent = lines
        .iter()
        .filter(|line| !line.is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = lines
        .iter()
        .take(MAX_SNIPPET_LINES)
        .map(|line| line.get(indent..).unwrap_or(line.trim_start()).to_string())
        .collect();
    if lines.len() > MAX_SNIPPET_LINES {
        out.push("...".to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sample::{leak as diagnostic, sources, span_of};
    use tensor_lint_analyzer::source::Span;
    use tensor_lint_lints::diagnostic::{Applicability, Edit};

    #[test]
    fn plain_rendering_looks_like_rustc() {
        let (sources, id) = sources();
        let text = render_plain(&diagnostic(id), &sources);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "warning[tensor_lint::leak]: `x` is not released on this path"
        );
        assert_eq!(lines[1], "  --> src/a.rs:4:5");
        assert!(lines.contains(&"4 |     return;"), "{text}");
        assert!(
            lines.contains(&"  |     ^^^^^^ returns without releasing `x`"),
            "{text}"
        );
        assert!(
            lines.contains(&"  |             -------- allocated here"),
            "{text}"
        );
        assert!(
            lines.contains(&"  = note: the allocation comes from `alloc`"),
            "{text}"
        );
        assert!(
            lines.contains(&"  = help: release `x` before returning"),
            "{text}"
        );
        assert!(
            lines.contains(&"  = help: use the in-place form: `x.relu_()`"),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "plain output has no escape codes");
    }

    #[test]
    fn coloured_rendering_uses_ansi_escapes_and_keeps_the_text() {
        let (sources, id) = sources();
        let findings = vec![crate::report::Finding {
            diagnostic: diagnostic(id),
            origin: crate::report::Origin {
                package_id: String::new(),
                manifest_path: String::new(),
                target_name: String::new(),
                target_kind: Vec::new(),
                crate_types: Vec::new(),
                src_path: String::new(),
                edition: String::new(),
            },
        }];
        let report = Report {
            analysed: None,
            sources: &sources,
            findings,
        };
        let mut out = Vec::new();
        write_report(&report, true, &mut out).expect("writing to a vector succeeds");
        let text = String::from_utf8(out).expect("output is utf-8");
        assert!(text.contains('\u{1b}'), "{text}");
        assert!(text.contains("`x` is not released on this path"));
        assert!(text.contains("1 warning emitted"));
    }

    #[test]
    fn long_suggestions_show_the_edited_lines() {
        let (sources, id) = sources();
        let suggestion = Suggestion {
            message: "release `x` first".into(),
            edits: vec![Edit {
                span: span_of(id, "return;"),
                replacement: "free(x);\n    return;".into(),
            }],
            applicability: Applicability::MachineApplicable,
        };
        assert_eq!(
            suggestion_text(&suggestion, &sources),
            "release `x` first:\nfree(x);\nreturn;"
        );
        assert_eq!(
            prefixed("help", &suggestion_text(&suggestion, &sources)),
            "help: release `x` first:\n      free(x);\n      return;"
        );
    }

    #[test]
    fn deletions_name_the_removed_code() {
        let (sources, id) = sources();
        let suggestion = Suggestion {
            message: "remove the early return".into(),
            edits: vec![Edit {
                span: span_of(id, "return;"),
                replacement: String::new(),
            }],
            applicability: Applicability::MaybeIncorrect,
        };
        assert_eq!(
            suggestion_text(&suggestion, &sources),
            "remove the early return: remove `return;`"
        );
    }

    #[test]
    fn labels_in_unknown_files_are_dropped_instead_of_failing() {
        let (sources, id) = sources();
        let diagnostic = diagnostic(id).with_label(Span::new(FileId(9), 0, 1), "elsewhere");
        let text = render_plain(&diagnostic, &sources);
        assert!(text.starts_with("warning[tensor_lint::leak]:"));
        assert!(!text.contains("elsewhere"));
    }
}
