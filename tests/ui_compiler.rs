//! UI tests of the compiler front end (`--front-end compiler`): each fixture is compiled
//! as a loose file, with the dependencies of `fixtures/ui/Cargo.toml`, and checked by
//! the driver.
//!
//! - `fixtures/ui/compiler/<lint>/<case>.rs`: fixtures of the compiler front end alone
//!   (shapes a reading of the syntax cannot tell apart); the output must equal
//!   `<case>.stderr` beside it.
//! - `fixtures/ui/<lint>/<case>.rs`: the fixtures of both front ends. Those listed in
//!   `fixtures/ui/compiler-parity.txt` give exactly their `.stderr` with the compiler
//!   front end too; every other one must not (so the list says exactly how far the
//!   compiler front end has come, and grows with it).
//!
//!   Where the compiler front end says more than the syntax front end can (an element
//!   type it infers), its output is `<case>.compiler_stderr` beside the fixture, written
//!   by hand, and the book's chapter on the compiler front end says why.
//!
//! `TENSOR_LINT_BLESS=1 cargo test --test ui_compiler` rewrites the compiler fixtures'
//! expectations and the list.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const PARITY: &str = "fixtures/ui/compiler-parity.txt";

/// The `.rs` files directly inside each folder of `dir`, sorted.
fn fixtures_in(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut groups: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("fixture folder exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    groups.sort();
    for group in groups {
        for case in std::fs::read_dir(&group)
            .expect("readable fixture folder")
            .flatten()
        {
            let case = case.path();
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

/// What the linter prints on stderr for one fixture with the compiler front end,
/// followed by its exit status.
fn run_fixture(case: &Path) -> String {
    let relative = case
        .strip_prefix(repo_root())
        .expect("fixture inside the repository");
    let source = std::fs::read_to_string(case).unwrap_or_default();
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-tensor-lint"))
        .current_dir(repo_root())
        .args(["--front-end", "compiler", "--color=never"])
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

fn diff(expected: &str, actual: &str, name: &Path) -> String {
    let diff = similar::TextDiff::from_lines(expected, actual);
    let mut shown = format!("\n=== {} (- expected, + actual)\n", name.display());
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

fn bless() -> bool {
    std::env::var_os("TENSOR_LINT_BLESS").is_some_and(|v| v != "0")
}

#[test]
fn compiler_fixtures_match_their_expected_output() {
    let cases = fixtures_in(&repo_root().join("fixtures/ui/compiler"));
    assert!(!cases.is_empty(), "no compiler UI fixtures found");
    let mut failures = Vec::new();
    for case in &cases {
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
    assert!(
        failures.is_empty(),
        "{} of {} compiler UI fixtures differ; run `TENSOR_LINT_BLESS=1 cargo test --test ui_compiler` to accept the new output{}",
        failures.len(),
        cases.len(),
        failures.concat()
    );
}

#[test]
fn the_parity_list_is_exactly_the_shared_fixtures_the_compiler_front_end_passes() {
    let root = repo_root();
    let listed_text = std::fs::read_to_string(root.join(PARITY)).unwrap_or_default();
    let listed: Vec<&str> = listed_text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let mut passing = Vec::new();
    let mut regressed = Vec::new();
    let mut stale = Vec::new();
    let shared: Vec<PathBuf> = fixtures_in(&root.join("fixtures/ui"))
        .into_iter()
        .filter(|c| !c.starts_with(root.join("fixtures/ui/compiler")))
        .collect();
    for case in &shared {
        let name = case
            .strip_prefix(&root)
            .expect("inside the repository")
            .display()
            .to_string();
        let expected = std::fs::read_to_string(shared_expectation(case)).unwrap_or_default();
        let actual = run_fixture(case);
        let passes = actual == expected;
        let is_listed = listed.contains(&name.as_str());
        if passes {
            passing.push(name.clone());
        }
        match (passes, is_listed) {
            (false, true) => regressed.push(diff(&expected, &actual, case)),
            (true, false) => stale.push(name),
            _ => {}
        }
    }
    if bless() {
        let mut text = String::from(
            "# The fixtures of both front ends whose expected output the compiler front end\n\
             # gives exactly (tests/ui_compiler.rs checks this list both ways).\n",
        );
        for name in &passing {
            text.push_str(name);
            text.push('\n');
        }
        std::fs::write(root.join(PARITY), text).expect("writable list");
        return;
    }
    assert!(
        regressed.is_empty() && stale.is_empty(),
        "the compiler front end no longer passes {} listed fixture(s) and now passes {} unlisted one(s) {:?}; run `TENSOR_LINT_BLESS=1 cargo test --test ui_compiler` to update {PARITY}{}",
        regressed.len(),
        stale.len(),
        stale,
        regressed.concat()
    );
    assert!(
        passing.len() * 4 >= shared.len(),
        "the compiler front end passes only {} of {} shared fixtures",
        passing.len(),
        shared.len()
    );
}

/// What the compiler front end must print for a shared fixture: its own expectation
/// where it is more exact than the syntax front end, else the shared one.
fn shared_expectation(case: &Path) -> PathBuf {
    let own = case.with_extension("compiler_stderr");
    if own.is_file() {
        own
    } else {
        case.with_extension("stderr")
    }
}

#[test]
fn every_compiler_expectation_belongs_to_a_shared_fixture_and_differs_from_it() {
    let root = repo_root().join("fixtures/ui");
    for group in std::fs::read_dir(&root)
        .expect("fixtures/ui exists")
        .flatten()
    {
        for file in std::fs::read_dir(group.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = file.path();
            if path.extension().is_none_or(|e| e != "compiler_stderr") {
                continue;
            }
            assert!(
                path.with_extension("rs").is_file(),
                "{} has no fixture",
                path.display()
            );
            let own = std::fs::read_to_string(&path).unwrap_or_default();
            let shared = std::fs::read_to_string(path.with_extension("stderr")).unwrap_or_default();
            assert_ne!(
                own,
                shared,
                "{} says nothing the shared expectation does not",
                path.display()
            );
        }
    }
}
