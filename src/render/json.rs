//! The `json` format: cargo's `--message-format=json` stream.
//!
//! One `compiler-message` line per finding, carrying rustc's diagnostic JSON, then one
//! `build-finished` line. Tools that read `cargo check` output (rust-analyzer's
//! flycheck, CI annotators, anything using `cargo_metadata::Message`) read this as they
//! read rustc's own diagnostics, suggestions included.

use std::io::{self, Write};

use serde::Serialize;
use tensor_lint_analyzer::source::{SourceMap, Span};
use tensor_lint_lints::diagnostic::{Diagnostic, Severity};
use tensor_lint_lints::registry;

use super::human;
use super::location::{locate, Location};
use crate::report::{Finding, Origin, Report};

pub(crate) fn write_report(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    for finding in &report.findings {
        serde_json::to_writer(&mut *out, &compiler_message(finding, report.sources))?;
        writeln!(out)?;
    }
    let finished = BuildFinished {
        reason: "build-finished",
        success: !report.has_errors(),
        // Beside cargo's two fields (readers of cargo's messages ignore the others):
        // what the run read, for CI logs and scripts.
        tensor_lint: report.analysed.map(|a| Summary {
            analysed_files: a.files,
            analysed_lines: a.lines,
        }),
    };
    serde_json::to_writer(&mut *out, &finished)?;
    writeln!(out)
}

#[derive(Serialize)]
struct Summary {
    analysed_files: usize,
    analysed_lines: usize,
}

#[derive(Serialize)]
struct BuildFinished {
    reason: &'static str,
    success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    tensor_lint: Option<Summary>,
}

#[derive(Serialize)]
struct CompilerMessage<'a> {
    reason: &'static str,
    package_id: &'a str,
    manifest_path: &'a str,
    target: Target<'a>,
    message: RustcDiagnostic,
}

#[derive(Serialize)]
struct Target<'a> {
    kind: &'a [String],
    crate_types: &'a [String],
    name: &'a str,
    src_path: &'a str,
    edition: &'a str,
    doc: bool,
    doctest: bool,
    test: bool,
}

/// rustc's `--error-format=json` diagnostic; children use the same shape without
/// `$message_type`.
#[derive(Serialize)]
struct RustcDiagnostic {
    #[serde(rename = "$message_type", skip_serializing_if = "Option::is_none")]
    message_type: Option<&'static str>,
    message: String,
    code: Option<Code>,
    level: &'static str,
    spans: Vec<RustcSpan>,
    children: Vec<RustcDiagnostic>,
    rendered: Option<String>,
}

#[derive(Serialize)]
struct Code {
    code: String,
    explanation: Option<String>,
}

#[derive(Serialize)]
struct RustcSpan {
    file_name: String,
    byte_start: usize,
    byte_end: usize,
    line_start: usize,
    line_end: usize,
    column_start: usize,
    column_end: usize,
    is_primary: bool,
    text: Vec<SpanLine>,
    label: Option<String>,
    suggested_replacement: Option<String>,
    suggestion_applicability: Option<&'static str>,
    /// Always null: tensor-lint never expands macros.
    expansion: Option<()>,
}

#[derive(Serialize)]
struct SpanLine {
    text: String,
    highlight_start: usize,
    highlight_end: usize,
}

fn compiler_message<'a>(finding: &'a Finding, sources: &SourceMap) -> CompilerMessage<'a> {
    let origin = &finding.origin;
    let kinds = &origin.target_kind;
    let has_kind = |names: &[&str]| kinds.iter().any(|kind| names.contains(&kind.as_str()));
    let library = has_kind(&["lib", "rlib", "dylib", "proc-macro"]);
    CompilerMessage {
        reason: "compiler-message",
        package_id: &origin.package_id,
        manifest_path: &origin.manifest_path,
        target: Target {
            kind: kinds,
            crate_types: &origin.crate_types,
            name: &origin.target_name,
            src_path: &origin.src_path,
            edition: edition(origin),
            // cargo's defaults for targets that do not override them
            doc: library || has_kind(&["bin"]),
            doctest: library,
            test: library || has_kind(&["bin", "test"]),
        },
        message: diagnostic_json(&finding.diagnostic, sources),
    }
}

/// The edition as cargo writes it; cargo's own default when the origin does not say.
fn edition(origin: &Origin) -> &str {
    if origin.edition.is_empty() {
        "2015"
    } else {
        &origin.edition
    }
}

fn diagnostic_json(diagnostic: &Diagnostic, sources: &SourceMap) -> RustcDiagnostic {
    let primary = std::iter::once((&diagnostic.primary, true));
    let secondary = diagnostic.secondary.iter().map(|label| (label, false));
    let spans = primary
        .chain(secondary)
        .filter_map(|(label, is_primary)| {
            let mut span = span_json(sources, label.span, is_primary)?;
            span.label = (!label.message.is_empty()).then(|| label.message.clone());
            Some(span)
        })
        .collect();
    let notes = diagnostic
        .notes
        .iter()
        .map(|note| child("note", note, Vec::new()));
    let helps = diagnostic
        .helps
        .iter()
        .map(|help| child("help", help, Vec::new()));
    let suggestions = diagnostic.suggestions.iter().map(|suggestion| {
        let spans = suggestion
            .edits
            .iter()
            .filter_map(|edit| {
                let mut span = span_json(sources, edit.span, true)?;
                span.suggested_replacement = Some(edit.replacement.clone());
                span.suggestion_applicability = Some(suggestion.applicability.as_str());
                Some(span)
            })
            .collect();
        child("help", &suggestion.message, spans)
    });
    RustcDiagnostic {
        message_type: Some("diagnostic"),
        message: diagnostic.message.clone(),
        code: diagnostic.code.as_ref().map(|code| Code {
            code: code.clone(),
            explanation: registry::find(code).map(|lint| lint.explanation()),
        }),
        level: level(diagnostic.severity),
        spans,
        children: notes.chain(helps).chain(suggestions).collect(),
        rendered: Some(human::render_plain(diagnostic, sources)),
    }
}

fn child(level: &'static str, message: &str, spans: Vec<RustcSpan>) -> RustcDiagnostic {
    RustcDiagnostic {
        message_type: None,
        message: message.to_string(),
        code: None,
        level,
        spans,
        children: Vec::new(),
        rendered: None,
    }
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// A span as rustc describes it, without label or suggestion; `None` for a file the
/// map does not hold.
fn span_json(sources: &SourceMap, span: Span, is_primary: bool) -> Option<RustcSpan> {
    let location = locate(sources, span)?;
    Some(RustcSpan {
        file_name: location.file.display.clone(),
        byte_start: location.lo,
        byte_end: location.hi,
        line_start: location.start.line,
        line_end: location.end.line,
        column_start: location.start.column,
        column_end: location.end.column,
        is_primary,
        text: span_lines(&location),
        label: None,
        suggested_replacement: None,
        suggestion_applicability: None,
        expansion: None,
    })
}

/// Each covered line with the highlighted columns on it: from the span's start on its
/// first line, to its end on its last, the whole line in between.
fn span_lines(location: &Location<'_>) -> Vec<SpanLine> {
    let lines = location.lines();
    let (first, last) = (*lines.start(), *lines.end());
    lines
        .map(|line| {
            let text = location.file.line_text(line);
            SpanLine {
                text: text.to_string(),
                highlight_start: if line == first {
                    location.start.column
                } else {
                    1
                },
                highlight_end: if line == last {
                    location.end.column
                } else {
                    text.chars().count() + 1
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sample::{leak, origin, sources, span_of, TEXT};
    use serde_json::Value;
    use tensor_lint_lints::diagnostic::Label;

    fn lines(report: &Report<'_>) -> Vec<Value> {
        let mut out = Vec::new();
        write_report(report, &mut out).expect("writing to a vector succeeds");
        let text = String::from_utf8(out).expect("output is utf-8");
        text.lines()
            .map(|line| serde_json::from_str(line).expect("every line is one json value"))
            .collect()
    }

    #[test]
    fn each_finding_is_a_compiler_message_with_rustc_spans() {
        let (sources, id) = sources();
        let finding = Finding {
            diagnostic: leak(id),
            origin: origin(),
        };
        let report = Report {
            analysed: None,
            sources: &sources,
            findings: vec![finding],
        };
        let lines = lines(&report);
        assert_eq!(lines.len(), 2);
        let message = &lines[0];
        assert_eq!(message["reason"], "compiler-message");
        assert_eq!(message["target"]["kind"][0], "lib");
        assert_eq!(message["target"]["edition"], "2021");
        let m = &message["message"];
        assert_eq!(m["$message_type"], "diagnostic");
        assert_eq!(m["level"], "warning");
        assert_eq!(m["code"]["code"], "tensor_lint::leak");
        let explanation = m["code"]["explanation"]
            .as_str()
            .expect("leak is documented");
        assert!(explanation.contains("### What it does"));

        let primary = &m["spans"][0];
        assert_eq!(primary["is_primary"], true);
        assert_eq!(primary["file_name"], "src/a.rs");
        assert_eq!(primary["line_start"], 4);
        assert_eq!(primary["column_start"], 5);
        assert_eq!(primary["column_end"], 11);
        assert_eq!(primary["label"], "returns without releasing `x`");
        assert_eq!(primary["text"][0]["text"], "    return;");
        assert_eq!(primary["text"][0]["highlight_start"], 5);
        assert_eq!(primary["text"][0]["highlight_end"], 11);
        assert_eq!(primary["suggested_replacement"], Value::Null);
        assert_eq!(primary["expansion"], Value::Null);
        assert_eq!(m["spans"][1]["is_primary"], false);
        assert_eq!(m["spans"][1]["label"], "allocated here");

        let children = m["children"].as_array().expect("children is an array");
        let levels: Vec<&str> = children
            .iter()
            .filter_map(|c| c["level"].as_str())
            .collect();
        assert_eq!(levels, ["note", "help", "help"]);
        assert_eq!(children[0]["spans"].as_array().map(Vec::len), Some(0));
        let fix = &children[2]["spans"][0];
        assert_eq!(fix["suggested_replacement"], "x.relu_()");
        assert_eq!(fix["suggestion_applicability"], "MaybeIncorrect");
        assert_eq!(fix["is_primary"], true);

        let rendered = m["rendered"].as_str().expect("rendered is text");
        assert!(rendered.starts_with("warning[tensor_lint::leak]: `x` is not released"));
        assert_eq!(
            lines[1],
            serde_json::json!({"reason": "build-finished", "success": true})
        );
    }

    #[test]
    fn errors_fail_the_build_and_missing_codes_are_null() {
        let (sources, id) = sources();
        let parse = Diagnostic::new(
            Severity::Error,
            "expected `;`",
            Label::new(span_of(id, "}"), ""),
        );
        let report = Report {
            analysed: None,
            sources: &sources,
            findings: vec![Finding {
                diagnostic: parse,
                origin: origin(),
            }],
        };
        let lines = lines(&report);
        assert_eq!(lines[0]["message"]["code"], Value::Null);
        assert_eq!(lines[0]["message"]["level"], "error");
        assert_eq!(lines[0]["message"]["spans"][0]["label"], Value::Null);
        assert_eq!(lines[1]["success"], false);
    }

    #[test]
    fn multiline_spans_highlight_each_line_as_rustc_does() {
        let (sources, id) = sources();
        let lo = TEXT.find("alloc").expect("needle is in the text");
        let hi = TEXT.find("relu").expect("needle is in the text");
        let span = span_json(&sources, Span::new(id, lo, hi), true).expect("file is known");
        assert_eq!((span.line_start, span.line_end), (2, 3));
        assert_eq!((span.column_start, span.column_end), (13, 15));
        let highlights: Vec<(usize, usize)> = span
            .text
            .iter()
            .map(|l| (l.highlight_start, l.highlight_end))
            .collect();
        assert_eq!(highlights, [(13, 22), (1, 15)]);
    }

    #[test]
    fn an_empty_report_still_finishes_the_build() {
        let (sources, _) = sources();
        let report = Report {
            analysed: None,
            sources: &sources,
            findings: Vec::new(),
        };
        assert_eq!(
            lines(&report),
            [serde_json::json!({"reason": "build-finished", "success": true})]
        );
    }
}
