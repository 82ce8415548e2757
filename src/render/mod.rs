//! Output formats: human, short, json, sarif, github.
//!
//! Every renderer reads a [`Report`] and writes the whole run in one format; none knows
//! which lint produced a finding beyond the code it carries (json and sarif look the
//! code up in the registry for its documentation). Output depends only on the report,
//! so the same findings always print the same bytes.

mod codespan_files;
mod github;
mod human;
mod json;
mod location;
mod sarif;
mod short;

use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;

use codespan_reporting::term::termcolor::{self, Color, ColorSpec, WriteColor};
use tensor_lint_analyzer::source::SourceMap;
use tensor_lint_lints::diagnostic::{Diagnostic, Severity};

use crate::report::Report;

/// The `--message-format` values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MessageFormat {
    /// rustc's diagnostics with source snippets.
    #[default]
    Human,
    /// rustc's `--error-format=short`: one line per finding.
    Short,
    /// cargo's JSON messages, as rust-analyzer and CI read them.
    Json,
    /// One SARIF 2.1.0 log, for code-scanning services.
    Sarif,
    /// GitHub Actions workflow commands, which become annotations on a pull request.
    Github,
}

impl MessageFormat {
    pub const ALL: [MessageFormat; 5] = [
        MessageFormat::Human,
        MessageFormat::Short,
        MessageFormat::Json,
        MessageFormat::Sarif,
        MessageFormat::Github,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MessageFormat::Human => "human",
            MessageFormat::Short => "short",
            MessageFormat::Json => "json",
            MessageFormat::Sarif => "sarif",
            MessageFormat::Github => "github",
        }
    }
}

impl fmt::Display for MessageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `--message-format` value that names no format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownMessageFormat(pub String);

impl fmt::Display for UnknownMessageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown message format `{}`, expected one of ", self.0)?;
        for (index, format) in MessageFormat::ALL.iter().enumerate() {
            if index > 0 {
                f.write_str(", ")?;
            }
            f.write_str(format.as_str())?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownMessageFormat {}

impl FromStr for MessageFormat {
    type Err = UnknownMessageFormat;

    fn from_str(text: &str) -> Result<MessageFormat, UnknownMessageFormat> {
        MessageFormat::ALL
            .into_iter()
            .find(|format| format.as_str() == text)
            .ok_or_else(|| UnknownMessageFormat(text.to_string()))
    }
}

impl clap::ValueEnum for MessageFormat {
    fn value_variants<'a>() -> &'a [MessageFormat] {
        &MessageFormat::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

/// How to render, beyond the format itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// ANSI colours in `human` and `short`; the other formats are for machines and never
    /// colour.
    pub color: bool,
}

/// Writes the whole report in `format`. `human` and `short` end with rustc's summary
/// (`warning: 2 warnings emitted`) when there is any finding.
pub fn render(
    format: MessageFormat,
    report: &Report<'_>,
    options: &RenderOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        MessageFormat::Human => human::write_report(report, options.color, out),
        MessageFormat::Short => short::write_report(report, options.color, out),
        MessageFormat::Json => json::write_report(report, out),
        MessageFormat::Sarif => sarif::write_report(report, out),
        MessageFormat::Github => github::write_report(report, out),
    }
}

/// The human rendering of one diagnostic without colour, ending with a blank line (the
/// `rendered` field of the json format, and what UI tests compare).
pub fn render_human_plain(diagnostic: &Diagnostic, sources: &SourceMap) -> String {
    human::render_plain(diagnostic, sources)
}

/// rustc's closing line, or `None` when nothing was found.
fn summary(report: &Report<'_>) -> Option<(Severity, String)> {
    let errors = report.count(Severity::Error);
    let warnings = report.count(Severity::Warning);
    let warnings_text = format!("{warnings} warning{} emitted", plural(warnings));
    match (errors, warnings) {
        (0, 0) => None,
        (0, _) => Some((Severity::Warning, warnings_text)),
        (_, 0) => Some((
            Severity::Error,
            format!("aborting due to {errors} previous error{}", plural(errors)),
        )),
        (_, _) => Some((
            Severity::Error,
            format!(
                "aborting due to {errors} previous error{}; {warnings_text}",
                plural(errors)
            ),
        )),
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// Writes the summary line, with the level coloured as rustc does.
fn write_summary(report: &Report<'_>, color: bool, out: &mut dyn Write) -> io::Result<()> {
    let Some((severity, text)) = summary(report) else {
        return Ok(());
    };
    let mut writer = if color {
        ColourWriter::Ansi(termcolor::Ansi::new(out))
    } else {
        ColourWriter::Plain(out)
    };
    write_level(&mut writer, severity)?;
    writer.set_color(ColorSpec::new().set_bold(true))?;
    write!(writer, ": {text}")?;
    writer.reset()?;
    writeln!(writer)
}

/// `error` or `warning`, bold and in rustc's colour when colour is on.
fn write_level(writer: &mut ColourWriter<'_>, severity: Severity) -> io::Result<()> {
    let colour = match severity {
        Severity::Error => Color::Red,
        Severity::Warning => Color::Yellow,
        Severity::Note => Color::Green,
    };
    writer.set_color(
        ColorSpec::new()
            .set_fg(Some(colour))
            .set_bold(true)
            .set_intense(true),
    )?;
    write!(writer, "{}", severity.as_str())?;
    writer.reset()
}

/// A writer that colours or not, decided once per run.
enum ColourWriter<'a> {
    Ansi(termcolor::Ansi<&'a mut dyn Write>),
    Plain(&'a mut dyn Write),
}

impl Write for ColourWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            ColourWriter::Ansi(writer) => writer.write(buf),
            ColourWriter::Plain(writer) => writer.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            ColourWriter::Ansi(writer) => writer.flush(),
            ColourWriter::Plain(writer) => writer.flush(),
        }
    }
}

impl WriteColor for ColourWriter<'_> {
    fn supports_color(&self) -> bool {
        matches!(self, ColourWriter::Ansi(_))
    }

    fn set_color(&mut self, spec: &ColorSpec) -> io::Result<()> {
        match self {
            ColourWriter::Ansi(writer) => writer.set_color(spec),
            ColourWriter::Plain(_) => Ok(()),
        }
    }

    fn reset(&mut self) -> io::Result<()> {
        match self {
            ColourWriter::Ansi(writer) => writer.reset(),
            ColourWriter::Plain(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_formats_round_trip_through_their_names() {
        for format in MessageFormat::ALL {
            assert_eq!(format.as_str().parse::<MessageFormat>(), Ok(format));
            assert_eq!(format.to_string(), format.as_str());
        }
        assert_eq!(MessageFormat::default(), MessageFormat::Human);
    }

    #[test]
    fn unknown_message_formats_list_the_known_ones() {
        let error = "xml"
            .parse::<MessageFormat>()
            .expect_err("xml is no format");
        assert_eq!(
            error.to_string(),
            "unknown message format `xml`, expected one of human, short, json, sarif, github"
        );
    }

    #[test]
    fn clap_sees_every_format() {
        use clap::ValueEnum;
        let names: Vec<String> = MessageFormat::value_variants()
            .iter()
            .filter_map(|format| format.to_possible_value())
            .map(|value| value.get_name().to_string())
            .collect();
        assert_eq!(names, ["human", "short", "json", "sarif", "github"]);
    }

    fn report_with<'a>(sources: &'a SourceMap, severities: &[Severity]) -> Report<'a> {
        use crate::report::{Finding, Origin};
        use tensor_lint_analyzer::source::{FileId, Span};
        use tensor_lint_lints::diagnostic::Label;
        let findings = severities
            .iter()
            .map(|&severity| Finding {
                diagnostic: Diagnostic::new(
                    severity,
                    "found",
                    Label::new(Span::new(FileId(0), 0, 1), "here"),
                ),
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
        Report {
            analysed: None,
            sources,
            findings,
        }
    }

    #[test]
    fn summaries_count_errors_and_warnings_like_rustc() {
        let mut sources = SourceMap::new();
        sources.add("a.rs".into(), "a.rs".into(), "fn a() {}\n".into());
        let summary_of = |severities: &[Severity]| {
            let report = report_with(&sources, severities);
            let mut out = Vec::new();
            write_summary(&report, false, &mut out).expect("writing to a vector succeeds");
            String::from_utf8(out).expect("the summary is utf-8")
        };
        use Severity::{Error, Warning};
        assert_eq!(summary_of(&[]), "");
        assert_eq!(summary_of(&[Warning]), "warning: 1 warning emitted\n");
        assert_eq!(
            summary_of(&[Warning, Warning]),
            "warning: 2 warnings emitted\n"
        );
        assert_eq!(
            summary_of(&[Error]),
            "error: aborting due to 1 previous error\n"
        );
        assert_eq!(
            summary_of(&[Error, Warning, Error]),
            "error: aborting due to 2 previous errors; 1 warning emitted\n"
        );
    }

    #[test]
    fn coloured_summaries_colour_the_level() {
        let mut sources = SourceMap::new();
        sources.add("a.rs".into(), "a.rs".into(), "fn a() {}\n".into());
        let report = report_with(&sources, &[Severity::Error]);
        let mut out = Vec::new();
        write_summary(&report, true, &mut out).expect("writing to a vector succeeds");
        let text = String::from_utf8(out).expect("the summary is utf-8");
        assert!(text.starts_with("\u{1b}["), "{text:?}");
        assert!(text.contains("error\u{1b}[0m"), "{text:?}");
        assert!(text.contains("aborting due to 1 previous error"));
    }

    #[test]
    fn plural_counts_read_like_rustc() {
        assert_eq!(plural(1), "");
        assert_eq!(plural(0), "s");
        assert_eq!(plural(2), "s");
    }
}
