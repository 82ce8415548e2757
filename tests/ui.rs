//! UI tests: each fixture (`fixtures/ui/<lint>/<case>.rs`) is checked as a loose file,
//! as a user would check it, and the human output must equal `<case>.stderr` beside it.
//!
//! Each loose file is compiled as a crate of its own, with the dependencies of
//! `fixtures/ui/Cargo.toml`. A fixture may start with `//@ args: -D warnings` lines
//! giving extra command-line arguments. `TENSOR_LINT_BLESS=1 cargo test --test ui`
//! rewrites the expectations.

mod common;

use std::path::PathBuf;

use common::ui::{check_expectations, files_in_groups, fixtures_in, repo_root};

fn fixtures() -> Vec<PathBuf> {
    fixtures_in(&repo_root().join("fixtures/ui"))
}

#[test]
fn ui_fixtures_match_their_expected_output() {
    let cases = fixtures();
    assert!(!cases.is_empty(), "no UI fixtures found");
    let failures = check_expectations(&cases);
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
    for path in files_in_groups(&repo_root().join("fixtures/ui"), "stderr") {
        assert!(
            path.with_extension("rs").is_file(),
            "{} has no fixture",
            path.display()
        );
    }
}
