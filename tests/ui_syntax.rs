//! UI tests of the syntax front end (`--front-end syntax`), which reads the code as text
//! without compiling it, until it is removed: each fixture of every front end
//! (`fixtures/ui/<lint>/<case>.rs`) must give its `.stderr`, or its `.syntax_stderr`
//! where that reading says less than the compiler's (an element type it cannot infer,
//! a file it parses on where rustc stops); the fixtures of `fixtures/ui/syntax/<lint>/`
//! are about that reading alone (a macro it cannot expand) and give their `.stderr`.
//!
//! `TENSOR_LINT_BLESS=1 cargo test --test ui_syntax` rewrites the `.syntax_stderr`
//! files: written where the output differs from `.stderr`, removed where it no longer
//! does.

mod common;

use common::ui::{bless, diff, files_in_groups, fixtures_in, repo_root, run_fixture};

const SYNTAX: &[&str] = &["--front-end", "syntax"];

#[test]
fn the_syntax_front_end_gives_each_fixture_its_expected_output() {
    let mut cases = fixtures_in(&repo_root().join("fixtures/ui"));
    cases.extend(fixtures_in(&repo_root().join("fixtures/ui/syntax")));
    assert!(!cases.is_empty(), "no UI fixtures found");
    let mut failures = Vec::new();
    let alone = repo_root().join("fixtures/ui/syntax");
    for case in &cases {
        let actual = run_fixture(case, SYNTAX);
        if case.starts_with(&alone) {
            // A fixture of this front end alone: its `.stderr` is this front end's.
            let path = case.with_extension("stderr");
            let expected = std::fs::read_to_string(&path).unwrap_or_default();
            if actual != expected {
                if bless() {
                    std::fs::write(&path, &actual).expect("writable fixture folder");
                } else {
                    failures.push(diff(&expected, &actual, &path));
                }
            }
            continue;
        }
        let shared = std::fs::read_to_string(case.with_extension("stderr")).unwrap_or_default();
        let own_path = case.with_extension("syntax_stderr");
        let own = std::fs::read_to_string(&own_path).ok();
        let expected = own.as_deref().unwrap_or(&shared);
        if actual == expected {
            continue;
        }
        if bless() {
            if actual == shared {
                std::fs::remove_file(&own_path).expect("removable expectation");
            } else {
                std::fs::write(&own_path, &actual).expect("writable fixture folder");
            }
            continue;
        }
        let shown = if own.is_some() {
            own_path
        } else {
            case.with_extension("stderr")
        };
        failures.push(diff(expected, &actual, &shown));
    }
    assert!(
        failures.is_empty(),
        "{} of {} UI fixtures differ with the syntax front end; run `TENSOR_LINT_BLESS=1 cargo test --test ui_syntax` to accept the new output{}",
        failures.len(),
        cases.len(),
        failures.concat()
    );
}

#[test]
fn every_fixture_of_the_syntax_front_end_alone_has_an_expectation() {
    let dir = repo_root().join("fixtures/ui/syntax");
    for case in fixtures_in(&dir) {
        assert!(
            case.with_extension("stderr").is_file(),
            "{} has no .stderr",
            case.display()
        );
    }
    for path in files_in_groups(&dir, "stderr") {
        assert!(
            path.with_extension("rs").is_file(),
            "{} has no fixture",
            path.display()
        );
    }
}

#[test]
fn every_syntax_expectation_belongs_to_a_fixture_and_differs_from_its_stderr() {
    for path in files_in_groups(&repo_root().join("fixtures/ui"), "syntax_stderr") {
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
