//! The `sarif` format against the official SARIF 2.1.0 JSON schema.
//!
//! Code-scanning services reject a log that breaks the schema, often without saying
//! where, so every log the binary writes is validated here: one with findings of every
//! kind that reaches the renderers today (parse errors, malformed `tensor-lint:`
//! comments, unknown lints named in an allow) and one with none. The schema file and
//! where it comes from are described in `tests/data/README.md`.

mod common;

use common::{bin, scratch};

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

/// The schema exactly as published; see [`ecma_compatible_patterns`] for the one
/// adjustment made before compiling it.
const SCHEMA: &str = include_str!("data/sarif-schema-2.1.0.json");
const SCHEMA_ID: &str =
    "https://raw.githubusercontent.com/oasis-tcs/sarif-spec/master/Schemata/sarif-schema-2.1.0.json";

const MANIFEST: &str = "[package]\nname = \"kernels\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

/// A crate with every kind of finding the renderers see today, in files whose names
/// need percent-encoding in a URI and whose lines hold multi-byte characters.
fn crate_with_findings() -> PathBuf {
    scratch(
        "sarif",
        &[
            ("Cargo.toml", MANIFEST),
            ("src/lib.rs", "#[path = \"my kernels.rs\"]\nmod kernels;\n"),
            ("src/my kernels.rs", KERNELS),
        ],
    )
}

/// Three unknown lints (one after multi-byte characters), a malformed comment, a leak
/// and a double free.
const KERNELS: &str = "pub fn fill(v: &mut [f32]) {
    let größe = 0.0; // tensor-lint: allow(leek, alias_rac)
    // tensor-lint: allow(false_shareing)
    v.fill(größe);
    // tensor-lint: allow(
    v.fill(1.0);
}

pub fn forgets() {
    let v = vec![0.0f32; 16];
    std::mem::forget(v);
}

pub fn frees_twice() {
    let p = Box::into_raw(Box::new([0.0f32; 4]));
    unsafe {
        drop(Box::from_raw(p));
        drop(Box::from_raw(p));
    }
}
";

fn clean_crate() -> PathBuf {
    scratch("sarif", &[
        ("Cargo.toml", MANIFEST),
        (
            "src/lib.rs",
            "/// Doubles every element.\npub fn scale(v: &mut [f32]) {\n    for x in v.iter_mut() {\n        *x *= 2.0;\n    }\n}\n",
        ),
    ])
}

fn run(dir: &Path, format: &str) -> Output {
    bin()
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .args(["--message-format", format])
        .output()
        .expect("the binary runs")
}

fn sarif_log(dir: &Path) -> (Value, Option<i32>) {
    let output = run(dir, "sarif");
    let log = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one json document ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (log, output.status.code())
}

/// The schema as a JSON value, with its regular expressions made acceptable to an
/// ECMA-262 checker in Unicode mode.
fn schema() -> Value {
    let mut schema: Value = serde_json::from_str(SCHEMA).expect("the schema file is json");
    assert_eq!(
        schema["$id"], SCHEMA_ID,
        "tests/data holds the final SARIF 2.1.0 schema, not a draft of it"
    );
    ecma_compatible_patterns(&mut schema);
    schema
}

/// Escapes every `]` that closes no character class in a `pattern` of the schema.
///
/// The published schema's pattern for `run.language`,
/// `^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`, has such a bracket. JavaScript reads it
/// as a literal `]` (Annex B of ECMA-262), but the validator checks patterns in Unicode
/// mode, where it is a syntax error, and refuses to compile the schema. Escaping it
/// keeps the meaning JavaScript validators give the pattern.
fn ecma_compatible_patterns(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(pattern) if key == "pattern" => {
                        *pattern = escape_stray_brackets(pattern);
                    }
                    _ => ecma_compatible_patterns(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(ecma_compatible_patterns),
        _ => {}
    }
}

fn escape_stray_brackets(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut in_class = false;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some(escaped) = chars.next() {
                    out.push(escaped);
                }
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            ']' => out.push('\\'),
            _ => {}
        }
        out.push(c);
    }
    out
}

fn validator() -> jsonschema::Validator {
    jsonschema::options()
        // The schema declares formats (`uri`, `uri-reference`, `date-time`); check them
        // as code-scanning services do rather than treating them as annotations.
        .should_validate_formats(true)
        .build(&schema())
        .unwrap_or_else(|e| panic!("the SARIF schema compiles: {e} at {}", e.instance_path()))
}

/// Every way `log` breaks the schema, one line each with where.
fn schema_errors(validator: &jsonschema::Validator, log: &Value) -> Vec<String> {
    validator
        .iter_errors(log)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect()
}

/// cargo's JSON stream of the same run, one value per line.
fn json_messages(dir: &Path) -> Vec<Value> {
    let output = run(dir, "json");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("every json line is one value"))
        .filter(|message: &Value| message["reason"] == "compiler-message")
        .collect()
}

#[test]
fn log_with_findings_is_valid_sarif_2_1_0() {
    let dir = crate_with_findings();
    let (log, status) = sarif_log(&dir);
    assert_eq!(
        status,
        Some(1),
        "the double free and the malformed comment are errors"
    );
    let errors = schema_errors(&validator(), &log);
    assert!(errors.is_empty(), "{}", errors.join("\n"));

    let results = log["runs"][0]["results"]
        .as_array()
        .expect("results is an array");
    let levels: Vec<&str> = results.iter().filter_map(|r| r["level"].as_str()).collect();
    assert_eq!(
        levels.iter().filter(|l| **l == "error").count(),
        2,
        "the double free and the malformed comment: {levels:?}"
    );
    assert_eq!(
        levels.iter().filter(|l| **l == "warning").count(),
        4,
        "three unknown lints and the leak: {levels:?}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn sarif_results_are_the_json_findings_at_the_same_places() {
    let dir = crate_with_findings();
    let (log, _) = sarif_log(&dir);
    let messages = json_messages(&dir);
    let results = log["runs"][0]["results"]
        .as_array()
        .expect("results is an array");
    assert_eq!(results.len(), messages.len());
    assert!(!results.is_empty());
    for (result, message) in results.iter().zip(&messages) {
        let diagnostic = &message["message"];
        let span = &diagnostic["spans"][0];
        let physical = &result["locations"][0]["physicalLocation"];
        let file = span["file_name"].as_str().expect("a file name");
        let uri = physical["artifactLocation"]["uri"].as_str().expect("a uri");
        assert_eq!(uri, file.replace(' ', "%20"), "{result}");
        assert_eq!(physical["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        let region = &physical["region"];
        assert_eq!(region["startLine"], span["line_start"], "{result}");
        assert_eq!(region["startColumn"], span["column_start"], "{result}");
        assert_eq!(region["endLine"], span["line_end"], "{result}");
        assert_eq!(region["endColumn"], span["column_end"], "{result}");
        assert_eq!(region["byteOffset"], span["byte_start"], "{result}");
        assert_eq!(result["level"], diagnostic["level"]);
        let text = result["message"]["text"].as_str().expect("message text");
        let first_line = diagnostic["message"].as_str().expect("message");
        assert!(text.starts_with(first_line), "{text:?}");
    }
    // The column is counted in characters: `größe` is 7 bytes but 5 columns.
    let at = KERNELS.find("leek").expect("the name is in the file");
    let line_start = KERNELS[..at].rfind('\n').map_or(0, |k| k + 1);
    let column = KERNELS[line_start..at].chars().count() + 1;
    let unknown = results
        .iter()
        .find(|r| {
            r["message"]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("unknown lint `leek`"))
        })
        .expect("the unknown lint `leek` is reported");
    let region = &unknown["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startColumn"], column);
    assert_eq!(region["byteOffset"], at);
    assert_ne!(
        column,
        at - line_start + 1,
        "the line has multi-byte characters"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn log_without_findings_is_valid_sarif_and_lists_every_rule() {
    let dir = clean_crate();
    let (log, status) = sarif_log(&dir);
    assert_eq!(status, Some(0));
    let errors = schema_errors(&validator(), &log);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let run = &log["runs"][0];
    assert_eq!(run["results"], Value::Array(Vec::new()));
    let rules = run["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules is an array");
    let registered: Vec<String> = tensor_lint_lints::registry::lints()
        .iter()
        .map(|lint| lint.code())
        .collect();
    let ids: Vec<&str> = rules
        .iter()
        .filter_map(|rule| rule["id"].as_str())
        .collect();
    assert_eq!(ids, registered);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn validator_rejects_logs_that_break_the_schema() {
    let dir = crate_with_findings();
    let (log, _) = sarif_log(&dir);
    let validator = validator();
    let broken = |edit: &dyn Fn(&mut Value)| {
        let mut copy = log.clone();
        edit(&mut copy);
        schema_errors(&validator, &copy)
    };
    let unknown_level = broken(&|log| log["runs"][0]["results"][0]["level"] = "fatal".into());
    assert!(
        unknown_level
            .iter()
            .any(|e| e.contains("/runs/0/results/0/level")),
        "{unknown_level:?}"
    );
    let line_zero = broken(&|log| {
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
            0.into();
    });
    assert!(!line_zero.is_empty(), "lines are 1-based");
    let nameless_tool = broken(&|log| {
        if let Some(driver) = log["runs"][0]["tool"]["driver"].as_object_mut() {
            driver.remove("name");
        }
    });
    assert!(
        nameless_tool.iter().any(|e| e.contains("\"name\"")),
        "{nameless_tool:?}"
    );
    let bad_uri = broken(&|log| {
        log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
            ["uri"] = "src/my kernels.rs".into();
    });
    assert!(!bad_uri.is_empty(), "a space is not allowed in a uri");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn stray_brackets_are_escaped_and_classes_are_kept() {
    assert_eq!(
        escape_stray_brackets("^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$"),
        "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\\]?$"
    );
    assert_eq!(escape_stray_brackets(r"^[\]a]+\]$"), r"^[\]a]+\]$");
    // As in ECMA-262, `]` right after `[` or `[^` closes the class.
    assert_eq!(escape_stray_brackets("[^]]"), "[^]\\]");
    assert_eq!(escape_stray_brackets("a]b"), "a\\]b");
}
