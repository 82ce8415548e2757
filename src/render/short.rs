//! The `short` format: rustc's `--error-format=short`, one line per finding
//! (`src/a.rs:4:5: warning[tensor_lint::leak]: message`), then the summary line.

use std::io::{self, Write};

use codespan_reporting::term::termcolor::{self, ColorSpec, WriteColor};
use tensor_lint_analyzer::source::SourceMap;
use tensor_lint_lints::diagnostic::Diagnostic;

use super::location::locate;
use super::{write_level, write_summary, ColourWriter};
use crate::report::Report;

pub(crate) fn write_report(
    report: &Report<'_>,
    color: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    {
        let mut writer = if color {
            ColourWriter::Ansi(termcolor::Ansi::new(&mut *out))
        } else {
            ColourWriter::Plain(&mut *out)
        };
        for finding in &report.findings {
            write_line(&mut writer, &finding.diagnostic, report.sources)?;
        }
    }
    write_summary(report, color, out)
}

fn write_line(
    writer: &mut ColourWriter<'_>,
    diagnostic: &Diagnostic,
    sources: &SourceMap,
) -> io::Result<()> {
    if let Some(location) = locate(sources, diagnostic.primary.span) {
        write!(
            writer,
            "{}:{}:{}: ",
            location.file.display, location.start.line, location.start.column
        )?;
    }
    write_level(writer, diagnostic.severity)?;
    writer.set_color(ColorSpec::new().set_bold(true))?;
    if let Some(code) = &diagnostic.code {
        write!(writer, "[{code}]")?;
    }
    // Multi-line messages would break the one-finding-per-line promise.
    let message = diagnostic.message.replace(['\r', '\n'], " ");
    write!(writer, ": {message}")?;
    writer.reset()?;
    writeln!(writer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sample::finding;
    use tensor_lint_analyzer::source::{FileId, Span};
    use tensor_lint_lints::diagnostic::{Label, Severity};

    fn render(report: &Report<'_>, color: bool) -> String {
        let mut out = Vec::new();
        write_report(report, color, &mut out).expect("writing to a vector succeeds");
        String::from_utf8(out).expect("output is utf-8")
    }

    fn sources() -> (SourceMap, FileId) {
        let mut sources = SourceMap::new();
        let text = "fn f() {\n    let ç = x;\n    free(x);\n}\n";
        let id = sources.add("/w/src/a.rs".into(), "src/a.rs".into(), text.into());
        (sources, id)
    }

    #[test]
    fn one_line_per_finding_then_the_summary() {
        let (sources, id) = sources();
        let leak = Diagnostic::new(
            Severity::Warning,
            "`x` is not released on this path",
            Label::new(Span::new(id, 22, 23), "returns here"),
        )
        .with_code("tensor_lint::leak")
        .with_label(Span::new(id, 29, 33), "secondary labels are not shown")
        .with_note("notes are not shown either");
        let parse = Diagnostic::new(
            Severity::Error,
            "expected `;`",
            Label::new(Span::new(id, 38, 39), "here"),
        );
        let report = Report {
            analysed: None,
            sources: &sources,
            findings: vec![finding(leak), finding(parse)],
        };
        assert_eq!(
            render(&report, false),
            "src/a.rs:2:13: warning[tensor_lint::leak]: `x` is not released on this path\n\
             src/a.rs:4:1: error: expected `;`\n\
             error: aborting due to 1 previous error; 1 warning emitted\n"
        );
    }

    #[test]
    fn no_findings_print_nothing() {
        let (sources, _) = sources();
        let report = Report {
            analysed: None,
            sources: &sources,
            findings: Vec::new(),
        };
        assert_eq!(render(&report, false), "");
    }

    #[test]
    fn colour_wraps_the_level_in_ansi_escapes() {
        let (sources, id) = sources();
        let leak = Diagnostic::new(
            Severity::Warning,
            "leaked",
            Label::new(Span::new(id, 0, 2), "here"),
        );
        let report = Report {
            analysed: None,
            sources: &sources,
            findings: vec![finding(leak)],
        };
        let text = render(&report, true);
        assert!(text.starts_with("src/a.rs:1:1: \u{1b}["), "{text:?}");
        assert!(text.contains("warning\u{1b}[0m"), "{text:?}");
    }
}
