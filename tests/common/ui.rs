//! What the UI tests of both front ends share: finding fixtures, running the linter on
//! one as a user would, and showing how its output differs from the expectation.

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether `TENSOR_LINT_BLESS` asks for the expectations to be rewritten.
pub fn bless() -> bool {
    std::env::var_os("TENSOR_LINT_BLESS").is_some_and(|v| v != "0")
}

/// The `.rs` files directly inside each folder of `dir`, sorted.
pub fn fixtures_in(dir: &Path) -> Vec<PathBuf> {
    files_in_groups(dir, "rs")
}

/// The files ending in `.{extension}` directly inside each folder of `dir`, sorted.
pub fn files_in_groups(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for group in std::fs::read_dir(dir)
        .expect("fixture folder exists")
        .flatten()
    {
        let group = group.path();
        if !group.is_dir() {
            continue;
        }
        for case in std::fs::read_dir(&group)
            .expect("readable fixture folder")
            .flatten()
        {
            let case = case.path();
            if case.extension().is_some_and(|e| e == extension) {
                found.push(case);
            }
        }
    }
    found.sort();
    found
}

/// The arguments of a fixture's leading `//@ args: ...` lines.
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

/// Runs the linter on one fixture, as a user would, and
/// returns what it printed on stderr followed by its exit status.
pub fn run_fixture(case: &Path) -> String {
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

/// Runs every one of `cases` and compares what it prints
/// with the `.stderr` beside it: the differences, or, when blessing, none, with the
/// expectations rewritten.
pub fn check_expectations(cases: &[PathBuf]) -> Vec<String> {
    let mut failures = Vec::new();
    for case in cases {
        let actual = run_fixture(case);
        let expected_path = case.with_extension("stderr");
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if actual == expected {
            continue;
        }
        if bless() {
            std::fs::write(&expected_path, &actual).expect("writable fixture folder");
            continue;
        }
        failures.push(diff(&expected, &actual, &expected_path));
    }
    failures
}

/// `expected` against `actual`, line by line, under the name of `path`.
pub fn diff(expected: &str, actual: &str, path: &Path) -> String {
    let diff = similar::TextDiff::from_lines(expected, actual);
    let mut shown = format!("\n=== {} (- expected, + actual)\n", path.display());
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
    shown
}
