//! UI tests: each `fixtures/ui/<lint>/<case>.rs` is checked as a loose file and the
//! human output must equal `<case>.stderr` beside it.
//!
//! A fixture may start with `//@ args: -D warnings` lines giving extra command-line
//! arguments. `TENSOR_LINT_BLESS=1 cargo test --test ui` rewrites the expectations.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let ui = repo_root().join("fixtures/ui");
    for group in std::fs::read_dir(&ui).expect("fixtures/ui exists") {
        let group = group.expect("readable fixtures/ui").path();
        if !group.is_dir() {
            continue;
        }
        for case in std::fs::read_dir(&group).expect("readable fixture folder") {
            let case = case.expect("readable fixture").path();
            if case.extension().is_some_and(|e| e == "rs") {
                found.push(case);
            }
        }
    }
    found.sort();
    found
}

fn extra_args(source: &str) -> Vec<String> {
    source
        .lines()
        .take_while(|l| l.starts_with("//@"))
        .filter_map(|l| l.strip_prefix("//@ args:"))
        .flat_map(|args| {
            args.split_whitespace()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Runs the linter on one fixture, as a user would, and returns what it printed on
/// stderr followed by its exit status.
fn run_fixture(case: &Path) -> String {
    let relative = case
        .strip_prefix(repo_root())
        .expect("fixture inside the repository");
    let source = std::fs::read_to_string(case).unwrap_or_default();
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-tensor-lint"))
        .current_dir(repo_root())
        .arg("--color=never")
        .args(extra_args(&source))
        .arg(relative)
        .env_remove("CLICOLOR_FORCE")
        .output()
        .expect("the linter runs");
    let mut text = String::from_utf8_lossy(&output.stderr).into_owned();
    text.push_str(&format!(
        "exit status: {}\n",
        output.status.code().unwrap_or(-1)
    ));
    text
}

#[test]
fn ui_fixtures_match_their_expected_output() {
    let bless = std::env::var_os("TENSOR_LINT_BLESS").is_some_and(|v| v != "0");
    let cases = fixtures();
    assert!(!cases.is_empty(), "no UI fixtures found");
    let mut failures = Vec::new();
    for case in &cases {
        let actual = run_fixture(case);
        let expected_path = case.with_extension("stderr");
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if actual == expected {
            continue;
        }
        if bless {
            std::fs::write(&expected_path, &actual).expect("writable fixture folder");
            continue;
        }
        let diff = similar::TextDiff::from_lines(&expected, &actual);
        let mut shown = format!("\n=== {} (- expected, + actual)\n", expected_path.display());
        for change in diff.iter_all_changes() {
            let sign = match change.tag() {
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
                similar::ChangeTag::Equal => ' ',
            };
            shown.push(sign);
            shown.push_str(change.as_str().unwrap_or(""));
            if !change.as_str().unwrap_or("").ends_with('\n') {
                shown.push('\n');
            }
        }
        failures.push(shown);
    }
    assert!(
        failures.is_empty(),
        "{} of {} UI fixtures differ; run `TENSOR_LINT_BLESS=1 cargo test --test ui` to accept the new output{}",
        failures.len(),
        cases.len(),
        failures.concat()
    );
}

#[test]
fn every_fixture_has_an_expectation_and_no_expectation_is_orphaned() {
    for case in fixtures() {
        assert!(
            case.with_extension("stderr").is_file(),
            "{} has no .stderr",
            case.display()
        );
    }
    let ui = repo_root().join("fixtures/ui");
    for group in std::fs::read_dir(&ui)
        .expect("fixtures/ui exists")
        .flatten()
    {
        for file in std::fs::read_dir(group.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = file.path();
            if path.extension().is_some_and(|e| e == "stderr") {
                assert!(
                    path.with_extension("rs").is_file(),
                    "{} has no fixture",
                    path.display()
                );
            }
        }
    }
}
