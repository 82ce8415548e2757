//! The five output formats through the public API, read back the way their consumers
//! read them: cargo_metadata for json, a SARIF reader's view for sarif, line by line for
//! the rest.

use cargo_metadata::diagnostic::{Applicability as CargoApplicability, DiagnosticLevel};
use cargo_metadata::{Message, TargetKind};
use cargo_tensor_lint::render::{render, render_human_plain, MessageFormat, RenderOptions};
use cargo_tensor_lint::report::{Finding, Origin, Report};
use serde_json::Value;
use tensor_lint_analyzer::source::{FileId, SourceMap, Span};
use tensor_lint_lints::diagnostic::{Applicability, Diagnostic, Edit, Label, Severity, Suggestion};

const KERNEL: &str = "\
pub fn kernel(n: usize) {
    let buf = alloc(n);
    let out = buf.relu();
    if n == 0 {
        return;
    }
    free(buf);
}
";

const RACE: &str = "\
pub fn race(a: &mut [f32]) {
    rayon::join(|| a[0] += 1.0, || a[0] += 2.0);
}
";

fn span_of(sources: &SourceMap, file: FileId, needle: &str) -> Span {
    let text = &sources.get(file).text;
    let lo = text.find(needle).expect("needle is in the fixture text");
    Span::new(file, lo, lo + needle.len())
}

fn origin() -> Origin {
    Origin {
        package_id: "path+file:///work/demo#demo@0.1.0".into(),
        manifest_path: "/work/demo/Cargo.toml".into(),
        target_name: "demo".into(),
        target_kind: vec!["lib".into()],
        crate_types: vec!["lib".into()],
        src_path: "/work/demo/src/lib.rs".into(),
        edition: "2021".into(),
    }
}

struct Fixture {
    sources: SourceMap,
    kernel: FileId,
    race: FileId,
}

fn fixture() -> Fixture {
    let mut sources = SourceMap::new();
    let kernel = sources.add(
        "/work/demo/src/kernel.rs".into(),
        "src/kernel.rs".into(),
        KERNEL.into(),
    );
    let race = sources.add(
        "/work/demo/src/race.rs".into(),
        "src/race.rs".into(),
        RACE.into(),
    );
    Fixture {
        sources,
        kernel,
        race,
    }
}

fn findings(fixture: &Fixture) -> Vec<Finding> {
    let sources = &fixture.sources;
    let leak = Diagnostic::new(
        Severity::Warning,
        "`buf` is not released on this path",
        Label::new(
            span_of(sources, fixture.kernel, "return"),
            "returns without releasing `buf`",
        ),
    )
    .with_code("tensor_lint::leak")
    .with_label(
        span_of(sources, fixture.kernel, "alloc(n)"),
        "allocated here",
    )
    .with_note("`buf` is released on the other path, by `free(buf)`")
    .with_help("release `buf` before returning")
    .with_suggestion(Suggestion {
        message: "use the in-place form".into(),
        edits: vec![Edit {
            span: span_of(sources, fixture.kernel, "buf.relu()"),
            replacement: "buf.relu_()".into(),
        }],
        applicability: Applicability::MaybeIncorrect,
    });
    let race = Diagnostic::new(
        Severity::Error,
        "two parallel tasks write `a[0]`",
        Label::new(
            span_of(sources, fixture.race, "a[0] += 1.0"),
            "written by the first task",
        ),
    )
    .with_code("tensor_lint::alias_race")
    .with_label(
        span_of(sources, fixture.race, "a[0] += 2.0"),
        "written by the second task",
    )
    .with_note("`a[0]` and `a[0]` both reach element 0 of `a`");
    vec![
        Finding {
            diagnostic: leak,
            origin: origin(),
        },
        Finding {
            diagnostic: race,
            origin: origin(),
        },
    ]
}

fn rendered(format: MessageFormat, report: &Report<'_>, color: bool) -> String {
    let mut out = Vec::new();
    render(format, report, &RenderOptions { color }, &mut out).expect("rendering into memory");
    String::from_utf8(out).expect("every format is utf-8")
}

#[test]
fn json_parses_as_cargo_messages_with_rustc_diagnostics() {
    let fixture = fixture();
    let report = Report {
        analysed: None,
        sources: &fixture.sources,
        findings: findings(&fixture),
    };
    let text = rendered(MessageFormat::Json, &report, false);
    let messages: Vec<Message> = Message::parse_stream(text.as_bytes())
        .collect::<Result<_, _>>()
        .expect("reading from memory");
    assert_eq!(messages.len(), 3);

    let Message::CompilerMessage(leak) = &messages[0] else {
        panic!("first message is not a compiler message: {:?}", messages[0]);
    };
    assert_eq!(leak.package_id.repr, "path+file:///work/demo#demo@0.1.0");
    assert_eq!(leak.target.name, "demo");
    assert_eq!(leak.target.kind, [TargetKind::Lib]);
    assert_eq!(leak.target.src_path.as_str(), "/work/demo/src/lib.rs");
    let diagnostic = &leak.message;
    assert_eq!(diagnostic.message, "`buf` is not released on this path");
    assert_eq!(diagnostic.level, DiagnosticLevel::Warning);
    let code = diagnostic
        .code
        .as_ref()
        .expect("lint findings carry a code");
    assert_eq!(code.code, "tensor_lint::leak");
    assert!(code
        .explanation
        .as_deref()
        .is_some_and(|text| text.contains("### Example")));

    let primary = &diagnostic.spans[0];
    assert!(primary.is_primary);
    assert_eq!(primary.file_name, "src/kernel.rs");
    assert_eq!((primary.line_start, primary.column_start), (5, 9));
    assert_eq!((primary.line_end, primary.column_end), (5, 15));
    assert_eq!(
        &KERNEL[primary.byte_start as usize..primary.byte_end as usize],
        "return"
    );
    assert_eq!(
        primary.label.as_deref(),
        Some("returns without releasing `buf`")
    );
    assert_eq!(primary.text[0].text, "        return;");
    assert_eq!(
        (
            primary.text[0].highlight_start,
            primary.text[0].highlight_end
        ),
        (9, 15)
    );
    let secondary = &diagnostic.spans[1];
    assert!(!secondary.is_primary);
    assert_eq!(secondary.line_start, 2);

    let levels: Vec<&DiagnosticLevel> = diagnostic.children.iter().map(|c| &c.level).collect();
    assert_eq!(
        levels,
        [
            &DiagnosticLevel::Note,
            &DiagnosticLevel::Help,
            &DiagnosticLevel::Help
        ]
    );
    let fix = &diagnostic.children[2].spans[0];
    assert_eq!(fix.suggested_replacement.as_deref(), Some("buf.relu_()"));
    assert_eq!(
        fix.suggestion_applicability,
        Some(CargoApplicability::MaybeIncorrect)
    );
    assert_eq!(
        diagnostic.rendered.as_deref(),
        Some(render_human_plain(&report.findings[0].diagnostic, &fixture.sources).as_str())
    );

    let Message::CompilerMessage(race) = &messages[1] else {
        panic!(
            "second message is not a compiler message: {:?}",
            messages[1]
        );
    };
    assert_eq!(race.message.level, DiagnosticLevel::Error);
    assert_eq!(race.message.spans[0].file_name, "src/race.rs");

    let Message::BuildFinished(finished) = &messages[2] else {
        panic!(
            "the stream does not end with build-finished: {:?}",
            messages[2]
        );
    };
    assert!(!finished.success, "an error-level finding fails the build");
}

#[test]
fn json_of_warnings_only_succeeds() {
    let fixture = fixture();
    let mut findings = findings(&fixture);
    findings.truncate(1);
    let report = Report {
        analysed: None,
        sources: &fixture.sources,
        findings,
    };
    let text = rendered(MessageFormat::Json, &report, false);
    let last = Message::parse_stream(text.as_bytes())
        .last()
        .expect("the stream is not empty")
        .expect("reading from memory");
    assert!(matches!(last, Message::BuildFinished(finished) if finished.success));
}

#[test]
fn human_output_is_each_plain_diagnostic_then_the_summary() {
    let fixture = fixture();
    let report = Report {
        analysed: None,
        sources: &fixture.sources,
        findings: findings(&fixture),
    };
    let text = rendered(MessageFormat::Human, &report, false);
    let mut expected: String = report
        .findings
        .iter()
        .map(|finding| render_human_plain(&finding.diagnostic, &fixture.sources))
        .collect();
    expected.push_str("error: aborting due to 1 previous error; 1 warning emitted\n");
    assert_eq!(text, expected);
    assert!(text.contains("error[tensor_lint::alias_race]: two parallel tasks write `a[0]`\n"));
    assert!(text.contains("  --> src/race.rs:2:20\n"));
    assert_eq!(
        text,
        rendered(MessageFormat::Human, &report, false),
        "output is deterministic"
    );

    let coloured = rendered(MessageFormat::Human, &report, true);
    assert!(coloured.contains("\u{1b}["));
    assert!(!text.contains('\u{1b}'));
}

#[test]
fn short_output_is_one_line_per_finding() {
    let fixture = fixture();
    let report = Report {
        analysed: None,
        sources: &fixture.sources,
        findings: findings(&fixture),
    };
    assert_eq!(
        rendered(MessageFormat::Short, &report, false),
        "src/kernel.rs:5:9: warning[tensor_lint::leak]: `buf` is not released on this path\n\
         src/race.rs:2:20: error[tensor_lint::alias_race]: two parallel tasks write `a[0]`\n\
         error: aborting due to 1 previous error; 1 warning emitted\n"
    );
}

#[test]
fn github_output_is_one_workflow_command_per_finding() {
    let fixture = fixture();
    let report = Report {
        analysed: None,
        sources: &fixture.sources,
        findings: findings(&fixture),
    };
    let text = rendered(MessageFormat::Github, &report, false);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with(
        "::warning file=src/kernel.rs,line=5,col=9,endLine=5,endColumn=15,\
         title=tensor_lint%3A%3Aleak::`buf` is not released on this path%0A"
    ));
    assert!(lines[0].contains("%0Ahelp: use the in-place form: `buf.relu_()`"));
    assert!(lines[1].starts_with("::error file=src/race.rs,line=2,col=20,"));
}

#[test]
fn sarif_results_point_at_registered_rules() {
    let fixture = fixture();
    let report = Report {
        analysed: None,
        sources: &fixture.sources,
        findings: findings(&fixture),
    };
    let log: Value = serde_json::from_str(&rendered(MessageFormat::Sarif, &report, false))
        .expect("the sarif log is json");
    assert_eq!(log["version"], "2.1.0");
    let runs = log["runs"].as_array().expect("runs is an array");
    assert_eq!(runs.len(), 1);
    let rules = runs[0]["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules is an array");
    let results = runs[0]["results"].as_array().expect("results is an array");
    assert_eq!(results.len(), 2);
    for result in results {
        let index = result["ruleIndex"]
            .as_u64()
            .expect("lint results have a rule index");
        let rule = rules.get(index as usize).expect("the index is in range");
        assert_eq!(rule["id"], result["ruleId"]);
        assert!(result["message"]["text"]
            .as_str()
            .is_some_and(|text| !text.is_empty()));
        let region = &result["locations"][0]["physicalLocation"]["region"];
        assert!(region["startLine"].as_u64().is_some_and(|line| line >= 1));
        assert!(region["startColumn"]
            .as_u64()
            .is_some_and(|column| column >= 1));
    }
    assert_eq!(results[1]["level"], "error");
    assert_eq!(
        results[1]["relatedLocations"][0]["message"]["text"],
        "written by the second task"
    );
}

#[test]
fn no_findings_print_no_summary() {
    let fixture = fixture();
    let report = Report {
        analysed: None,
        sources: &fixture.sources,
        findings: Vec::new(),
    };
    assert_eq!(rendered(MessageFormat::Human, &report, false), "");
    assert_eq!(rendered(MessageFormat::Short, &report, false), "");
    assert_eq!(rendered(MessageFormat::Github, &report, false), "");
    assert_eq!(
        rendered(MessageFormat::Json, &report, false),
        "{\"reason\":\"build-finished\",\"success\":true}\n"
    );
}

#[test]
fn broken_spans_render_in_every_format_without_panicking() {
    let mut sources = SourceMap::new();
    let file = sources.add(
        "/x/ü.rs".into(),
        "src/ü.rs".into(),
        "let ü = 1;\nü\n".into(),
    );
    let bad = [
        Span::new(file, 5, 6),       // inside `ü`
        Span::new(file, 9, 4000),    // past the end
        Span::new(FileId(42), 0, 3), // a file the map does not hold
        Span::new(file, 14, 14),     // empty, before the last line break
        Span::new(file, 15, 15),     // empty, at the very end
    ];
    let findings = bad
        .iter()
        .map(|&span| {
            let diagnostic =
                Diagnostic::new(Severity::Warning, "odd span", Label::new(span, "here"))
                    .with_code("tensor_lint::leak")
                    .with_label(span, "again")
                    .with_suggestion(Suggestion {
                        message: "edit it".into(),
                        edits: vec![Edit {
                            span,
                            replacement: "x\ny".into(),
                        }],
                        applicability: Applicability::Unspecified,
                    });
            Finding {
                diagnostic,
                origin: origin(),
            }
        })
        .collect();
    let report = Report {
        analysed: None,
        sources: &sources,
        findings,
    };
    for format in MessageFormat::ALL {
        let text = rendered(format, &report, false);
        assert!(!text.is_empty(), "{format} printed nothing");
    }
    let text = rendered(MessageFormat::Json, &report, false);
    let parsed: Vec<Message> = Message::parse_stream(text.as_bytes())
        .collect::<Result<_, _>>()
        .expect("reading from memory");
    assert!(
        parsed.iter().all(|m| !matches!(m, Message::TextLine(_))),
        "{text}"
    );
}
