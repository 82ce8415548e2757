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

mod common;

use std::path::{Path, PathBuf};

use common::ui::{bless, check_expectations, diff, files_in_groups, fixtures_in, repo_root};

const PARITY: &str = "fixtures/ui/compiler-parity.txt";

/// What the linter prints on stderr for one fixture with the compiler front end,
/// followed by its exit status.
fn run_fixture(case: &Path) -> String {
    common::ui::run_fixture(case, COMPILER)
}

/// The arguments that select the compiler front end.
const COMPILER: &[&str] = &["--front-end", "compiler"];

#[test]
fn compiler_fixtures_match_their_expected_output() {
    let cases = fixtures_in(&repo_root().join("fixtures/ui/compiler"));
    assert!(!cases.is_empty(), "no compiler UI fixtures found");
    let failures = check_expectations(&cases, COMPILER);
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
    for path in files_in_groups(&repo_root().join("fixtures/ui"), "compiler_stderr") {
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
