//! The `sarif` format: one SARIF 2.1.0 log for code-scanning services (GitHub code
//! scanning, IDE SARIF viewers).
//!
//! The log describes every registered lint as a rule, and each finding as a result
//! with its primary location, its secondary labels as related locations, its
//! suggestions as fixes, and a partial fingerprint that survives unrelated edits which
//! only move the finding to another line.

use std::collections::BTreeMap;

use std::io::{self, Write};

use serde::Serialize;
use tensor_lint_analyzer::source::{FileId, SourceMap, Span};
use tensor_lint_lints::diagnostic::{Diagnostic, Level, Severity, Suggestion};
use tensor_lint_lints::registry::{self, Lint};

use super::location::{locate, Location};
use crate::report::Report;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The base the relative artifact URIs are resolved against; the uploader (for GitHub,
/// the checkout directory) says where it is.
const SOURCE_ROOT: &str = "%SRCROOT%";
const FINGERPRINT_KEY: &str = "tensorLintLineHash/v1";

pub(crate) fn write_report(report: &Report<'_>, out: &mut dyn Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &log(report))?;
    writeln!(out)
}

#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    results: Vec<SarifResult>,
    column_kind: &'static str,
    /// What the run read: `{"analysedFiles": N, "analysedLines": M}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    properties: Option<RunProperties>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunProperties {
    analysed_files: usize,
    analysed_lines: usize,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    information_uri: Option<&'static str>,
    version: &'static str,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: String,
    name: &'static str,
    short_description: Text,
    full_description: Text,
    help: Markdown,
    default_configuration: Configuration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Markdown {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties {
    tags: Vec<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: &'static str,
    message: Text,
    locations: Vec<SarifLocation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<SarifLocation>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    partial_fingerprints: BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fixes: Vec<Fix>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    /// Exclusive, as SARIF and rustc's `column_end` both count it.
    end_column: usize,
    byte_offset: usize,
    byte_length: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Fix {
    description: Text,
    artifact_changes: Vec<ArtifactChange>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactChange {
    artifact_location: ArtifactLocation,
    replacements: Vec<Replacement>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Replacement {
    deleted_region: Region,
    inserted_content: Text,
}

fn log(report: &Report<'_>) -> Log {
    let lints = registry::lints();
    // The same fingerprints as baselines use, so both identify a finding alike.
    let results = report
        .findings
        .iter()
        .zip(report.fingerprints())
        .map(|(finding, fingerprint)| {
            result(&finding.diagnostic, report.sources, lints, fingerprint)
        })
        .collect();
    let repository = env!("CARGO_PKG_REPOSITORY");
    Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "tensor-lint",
                    information_uri: (!repository.is_empty()).then_some(repository),
                    version: env!("CARGO_PKG_VERSION"),
                    rules: lints.iter().map(|lint| rule(lint)).collect(),
                },
            },
            results,
            column_kind: "unicodeCodePoints",
            properties: report.analysed.map(|a| RunProperties {
                analysed_files: a.files,
                analysed_lines: a.lines,
            }),
        }],
    }
}

fn rule(lint: &Lint) -> Rule {
    let docs = lint.explanation();
    Rule {
        id: lint.code(),
        name: lint.name,
        short_description: Text {
            text: lint.summary.to_string(),
        },
        full_description: Text {
            text: section(&docs, "What it does").unwrap_or_else(|| lint.summary.to_string()),
        },
        help: Markdown {
            text: docs.clone(),
            markdown: docs,
        },
        default_configuration: Configuration {
            level: match lint.default_level {
                Level::Allow => "none",
                Level::Warn => "warning",
                Level::Deny => "error",
            },
        },
        properties: RuleProperties {
            tags: vec![lint.group.as_str()],
        },
    }
}

/// The text of the markdown section `### NAME`, paragraphs joined with spaces.
fn section(docs: &str, name: &str) -> Option<String> {
    let mut lines = docs
        .lines()
        .skip_while(|line| line.trim() != format!("### {name}"));
    lines.next()?;
    let text = lines
        .take_while(|line| !line.starts_with("### "))
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    (!text.is_empty()).then_some(text)
}

fn result(
    diagnostic: &Diagnostic,
    sources: &SourceMap,
    lints: &[&Lint],
    fingerprint: String,
) -> SarifResult {
    let primary = locate(sources, diagnostic.primary.span);
    let mut partial_fingerprints = BTreeMap::new();
    if primary.is_some() {
        partial_fingerprints.insert(FINGERPRINT_KEY, fingerprint);
    }
    let related_locations = diagnostic
        .secondary
        .iter()
        .filter_map(|label| Some((label, locate(sources, label.span)?)))
        .enumerate()
        .map(|(index, (label, location))| SarifLocation {
            id: Some(index + 1),
            physical_location: physical_location(&location),
            message: Some(Text {
                text: label.message.clone(),
            }),
        })
        .collect();
    SarifResult {
        rule_id: diagnostic.code.clone(),
        rule_index: diagnostic
            .code
            .as_ref()
            .and_then(|code| lints.iter().position(|lint| lint.code() == *code)),
        level: match diagnostic.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        },
        message: Text {
            text: message_text(diagnostic),
        },
        locations: primary
            .map(|location| SarifLocation {
                id: None,
                physical_location: physical_location(&location),
                message: (!diagnostic.primary.message.is_empty()).then(|| Text {
                    text: diagnostic.primary.message.clone(),
                }),
            })
            .into_iter()
            .collect(),
        related_locations,
        partial_fingerprints,
        fixes: diagnostic
            .suggestions
            .iter()
            .filter_map(|suggestion| fix(suggestion, sources))
            .collect(),
    }
}

/// The message, then its notes and helps, each on its own line.
fn message_text(diagnostic: &Diagnostic) -> String {
    let mut text = diagnostic.message.clone();
    for note in &diagnostic.notes {
        text.push_str("\nnote: ");
        text.push_str(note);
    }
    for help in &diagnostic.helps {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    text
}

fn physical_location(location: &Location<'_>) -> PhysicalLocation {
    PhysicalLocation {
        artifact_location: artifact_location(&location.file.display),
        region: region(location),
    }
}

fn region(location: &Location<'_>) -> Region {
    Region {
        start_line: location.start.line,
        start_column: location.start.column,
        end_line: location.end.line,
        end_column: location.end.column,
        byte_offset: location.lo,
        byte_length: location.hi - location.lo,
    }
}

/// The shown path as a URI: relative ones against [`SOURCE_ROOT`], absolute ones (loose
/// files given that way) as `file:` URIs.
fn artifact_location(display: &str) -> ArtifactLocation {
    let path = display.replace('\\', "/");
    let bytes = path.as_bytes();
    let has_drive =
        bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'/';
    if has_drive {
        let (drive, rest) = path.split_at(2);
        return ArtifactLocation {
            uri: format!("file:///{drive}{}", encode_path(rest)),
            uri_base_id: None,
        };
    }
    if path.starts_with('/') {
        return ArtifactLocation {
            uri: format!("file://{}", encode_path(&path)),
            uri_base_id: None,
        };
    }
    let mut relative = path.as_str();
    while let Some(rest) = relative.strip_prefix("./") {
        relative = rest;
    }
    ArtifactLocation {
        uri: encode_path(relative),
        uri_base_id: Some(SOURCE_ROOT),
    }
}

/// Percent-encodes everything but unreserved characters and `/` (RFC 3986).
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

fn fix(suggestion: &Suggestion, sources: &SourceMap) -> Option<Fix> {
    let mut by_file: BTreeMap<FileId, Vec<(Span, &str)>> = BTreeMap::new();
    for edit in &suggestion.edits {
        by_file
            .entry(edit.span.file)
            .or_default()
            .push((edit.span, &edit.replacement));
    }
    let artifact_changes: Vec<ArtifactChange> = by_file
        .into_values()
        .filter_map(|edits| {
            let replacements: Vec<(ArtifactLocation, Replacement)> = edits
                .into_iter()
                .filter_map(|(span, replacement)| {
                    let location = locate(sources, span)?;
                    Some((
                        artifact_location(&location.file.display),
                        Replacement {
                            deleted_region: region(&location),
                            inserted_content: Text {
                                text: replacement.to_string(),
                            },
                        },
                    ))
                })
                .collect();
            let artifact_location = replacements.first()?.0.clone();
            Some(ArtifactChange {
                artifact_location,
                replacements: replacements.into_iter().map(|(_, r)| r).collect(),
            })
        })
        .collect();
    (!artifact_changes.is_empty()).then(|| Fix {
        description: Text {
            text: suggestion.message.clone(),
        },
        artifact_changes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sample::{finding, leak, span_of, TEXT};
    use crate::report::Finding;
    use serde_json::Value;
    use tensor_lint_lints::diagnostic::Label;

    fn render(sources: &SourceMap, findings: Vec<Finding>) -> Value {
        let report = Report {
            analysed: None,
            sources,
            findings,
        };
        let mut out = Vec::new();
        write_report(&report, &mut out).expect("writing to a vector succeeds");
        serde_json::from_slice(&out).expect("the log is one json document")
    }

    #[test]
    fn the_log_describes_every_lint_as_a_rule() {
        let sources = SourceMap::new();
        let log = render(&sources, Vec::new());
        assert_eq!(log["$schema"], SCHEMA);
        assert_eq!(log["version"], "2.1.0");
        let driver = &log["runs"][0]["tool"]["driver"];
        assert_eq!(driver["name"], "tensor-lint");
        assert_eq!(driver["version"], env!("CARGO_PKG_VERSION"));
        let rules = driver["rules"].as_array().expect("rules is an array");
        assert_eq!(rules.len(), registry::lints().len());
        for (rule, lint) in rules.iter().zip(registry::lints()) {
            assert_eq!(rule["id"], lint.code());
            assert_eq!(rule["shortDescription"]["text"], lint.summary);
            assert!(rule["help"]["markdown"]
                .as_str()
                .is_some_and(|docs| docs.contains("### Why is this bad")));
            let full = rule["fullDescription"]["text"].as_str().unwrap_or_default();
            assert!(!full.is_empty() && !full.contains("###"), "{full}");
        }
        let leak = registry::find("leak").expect("leak is registered");
        let index = registry::lints()
            .iter()
            .position(|l| l.name == "leak")
            .unwrap_or(0);
        let expected = if leak.default_level == Level::Warn {
            "warning"
        } else {
            "error"
        };
        assert_eq!(rules[index]["defaultConfiguration"]["level"], expected);
        assert_eq!(log["runs"][0]["results"].as_array().map(Vec::len), Some(0));
    }

    #[test]
    fn results_carry_locations_related_labels_fixes_and_fingerprints() {
        let mut sources = SourceMap::new();
        let id = sources.add("/w/src/a.rs".into(), "src/a.rs".into(), TEXT.into());
        let log = render(&sources, vec![finding(leak(id))]);
        let result = &log["runs"][0]["results"][0];
        assert_eq!(result["ruleId"], "tensor_lint::leak");
        let rule_index = result["ruleIndex"].as_u64().expect("leak has a rule") as usize;
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"][rule_index]["id"],
            "tensor_lint::leak"
        );
        assert_eq!(result["level"], "warning");
        assert_eq!(
            result["message"]["text"],
            "`x` is not released on this path\nnote: the allocation comes from `alloc`\n\
             help: release `x` before returning"
        );
        let physical = &result["locations"][0]["physicalLocation"];
        assert_eq!(physical["artifactLocation"]["uri"], "src/a.rs");
        assert_eq!(physical["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let region = &physical["region"];
        assert_eq!(
            (
                &region["startLine"],
                &region["startColumn"],
                &region["endLine"],
                &region["endColumn"]
            ),
            (
                &Value::from(4),
                &Value::from(5),
                &Value::from(4),
                &Value::from(11)
            )
        );
        let related = &result["relatedLocations"][0];
        assert_eq!(related["id"], 1);
        assert_eq!(related["message"]["text"], "allocated here");
        assert_eq!(related["physicalLocation"]["region"]["startLine"], 2);
        let replacement = &result["fixes"][0]["artifactChanges"][0]["replacements"][0];
        assert_eq!(replacement["insertedContent"]["text"], "x.relu_()");
        assert_eq!(replacement["deletedRegion"]["startColumn"], 13);
        let fingerprint = result["partialFingerprints"][FINGERPRINT_KEY]
            .as_str()
            .expect("the result has a fingerprint");
        assert!(fingerprint.ends_with(":1"), "{fingerprint}");
    }

    #[test]
    fn fingerprints_survive_line_shifts_and_separate_repeats() {
        let mut sources = SourceMap::new();
        let id = sources.add("/w/src/a.rs".into(), "src/a.rs".into(), TEXT.into());
        let shifted_text = format!("// a new first line\n{TEXT}");
        let shifted = sources.add(
            "/v/src/a.rs".into(),
            "src/a.rs".into(),
            shifted_text.clone(),
        );
        let at = |file, text: &str| {
            let lo = text.find("return").expect("needle is in the text");
            Span::new(file, lo, lo + 6)
        };
        let diagnostic = |span| {
            Diagnostic::new(Severity::Warning, "leaked", Label::new(span, "here"))
                .with_code("tensor_lint::leak")
        };
        let log = render(
            &sources,
            vec![
                finding(diagnostic(at(id, TEXT))),
                finding(diagnostic(at(shifted, &shifted_text))),
            ],
        );
        let fingerprint = |index: usize| {
            log["runs"][0]["results"][index]["partialFingerprints"][FINGERPRINT_KEY]
                .as_str()
                .map(str::to_string)
                .unwrap_or_default()
        };
        let (first, second) = (fingerprint(0), fingerprint(1));
        assert_eq!(first.split(':').next(), second.split(':').next());
        assert_ne!(first, second, "repeats are told apart by occurrence");
    }

    #[test]
    fn findings_without_a_code_have_no_rule() {
        let mut sources = SourceMap::new();
        let id = sources.add("/w/src/a.rs".into(), "src/a.rs".into(), TEXT.into());
        let parse = Diagnostic::new(
            Severity::Error,
            "expected `;`",
            Label::new(span_of(id, "}"), ""),
        );
        let log = render(&sources, vec![finding(parse)]);
        let result = &log["runs"][0]["results"][0];
        assert!(result.get("ruleId").is_none());
        assert!(result.get("ruleIndex").is_none());
        assert_eq!(result["level"], "error");
        assert!(result["locations"][0].get("message").is_none());
    }

    #[test]
    fn artifact_uris_are_relative_with_forward_slashes_or_file_uris() {
        let relative = artifact_location("./src\\my kernels\\a.rs");
        assert_eq!(relative.uri, "src/my%20kernels/a.rs");
        assert_eq!(relative.uri_base_id, Some(SOURCE_ROOT));
        let absolute = artifact_location("/tmp/loose.rs");
        assert_eq!(absolute.uri, "file:///tmp/loose.rs");
        assert_eq!(absolute.uri_base_id, None);
        let windows = artifact_location("C:\\work\\a.rs");
        assert_eq!(windows.uri, "file:///C:/work/a.rs");
    }

    #[test]
    fn sections_are_read_from_the_markdown_docs() {
        let docs = "### What it does\nFinds leaks.\n\nOn every path.\n### Why is this bad\nMemory.";
        assert_eq!(
            section(docs, "What it does").as_deref(),
            Some("Finds leaks. On every path.")
        );
        assert_eq!(section(docs, "Example"), None);
    }
}
