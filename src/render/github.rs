//! The `github` format: GitHub Actions workflow commands
//! (`::warning file=…,line=…::message`), which the runner turns into annotations on
//! the pull request's diff.
//!
//! An annotation has no room for labels, so the notes, helps and suggestions follow
//! the message on lines of their own.

use std::io::{self, Write};

use tensor_lint_analyzer::source::SourceMap;
use tensor_lint_lints::diagnostic::{Diagnostic, Severity};

use super::human::suggestion_text;
use super::location::locate;
use crate::report::Report;

pub(crate) fn write_report(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    for finding in &report.findings {
        writeln!(out, "{}", command(&finding.diagnostic, report.sources))?;
    }
    Ok(())
}

fn command(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    let name = match diagnostic.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "notice",
    };
    let mut properties: Vec<(&str, String)> = Vec::new();
    if let Some(location) = locate(sources, diagnostic.primary.span) {
        properties.push(("file", location.file.display.replace('\\', "/")));
        properties.push(("line", location.start.line.to_string()));
        // GitHub drops the columns of annotations that span several lines.
        let single_line = location.start.line == location.end.line;
        if single_line {
            properties.push(("col", location.start.column.to_string()));
        }
        properties.push(("endLine", location.end.line.to_string()));
        if single_line {
            properties.push(("endColumn", location.end.column.to_string()));
        }
    }
    if let Some(code) = &diagnostic.code {
        properties.push(("title", code.clone()));
    }
    let mut command = format!("::{name}");
    for (index, (key, value)) in properties.iter().enumerate() {
        command.push(if index == 0 { ' ' } else { ',' });
        command.push_str(key);
        command.push('=');
        command.push_str(&escape_property(value));
    }
    command.push_str("::");
    command.push_str(&escape_data(&message(diagnostic, sources)));
    command
}

/// The annotation's text: the message, then what rustc would print under it.
fn message(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    let mut text = diagnostic.message.clone();
    let notes = diagnostic.notes.iter().map(|note| format!("note: {note}"));
    let helps = diagnostic.helps.iter().map(|help| format!("help: {help}"));
    let suggestions = diagnostic
        .suggestions
        .iter()
        .map(|suggestion| format!("help: {}", suggestion_text(suggestion, sources)));
    for line in notes.chain(helps).chain(suggestions) {
        text.push('\n');
        text.push_str(&line);
    }
    text
}

/// GitHub's escaping of a command's message.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// GitHub's escaping of a property value, which also may not contain the separators.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sample::{leak, sources, span_of};
    use crate::report::{Finding, Origin};
    use tensor_lint_analyzer::source::{FileId, Span};
    use tensor_lint_lints::diagnostic::Label;

    fn render(sources: &SourceMap, diagnostics: Vec<Diagnostic>) -> String {
        let findings = diagnostics
            .into_iter()
            .map(|diagnostic| Finding {
                diagnostic,
                origin: Origin {
                    package_id: String::new(),
                    manifest_path: String::new(),
                    target_name: String::new(),
                    target_kind: Vec::new(),
                    crate_types: Vec::new(),
                    src_path: String::new(),
                    edition: String::new(),
                },
            })
            .collect();
        let report = Report {
            analysed: None,
            sources,
            findings,
        };
        let mut out = Vec::new();
        write_report(&report, &mut out).expect("writing to a vector succeeds");
        String::from_utf8(out).expect("output is utf-8")
    }

    #[test]
    fn findings_become_annotations_with_their_help() {
        let (sources, id) = sources();
        let leak = leak(id);
        let race = Diagnostic::new(
            Severity::Error,
            "100% overlap, in two tasks",
            Label::new(span_of(id, "alloc(4);\n    let y"), "here"),
        );
        assert_eq!(
            render(&sources, vec![leak, race]),
            "::warning file=src/a.rs,line=4,col=5,endLine=4,endColumn=11,\
             title=tensor_lint%3A%3Aleak::`x` is not released on this path\
             %0Anote: the allocation comes from `alloc`\
             %0Ahelp: release `x` before returning\
             %0Ahelp: use the in-place form: `x.relu_()`\n\
             ::error file=src/a.rs,line=2,endLine=3::100%25 overlap, in two tasks\n"
        );
    }

    #[test]
    fn properties_escape_separators_and_data_escapes_line_breaks() {
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
        assert_eq!(escape_data("a:b,c\r\n"), "a:b,c%0D%0A");
    }

    #[test]
    fn findings_in_unknown_files_have_no_position() {
        let sources = SourceMap::new();
        let orphan = Diagnostic::new(
            Severity::Warning,
            "leaked",
            Label::new(Span::new(FileId(0), 0, 1), "here"),
        );
        assert_eq!(render(&sources, vec![orphan]), "::warning::leaked\n");
    }
}
