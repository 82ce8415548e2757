//! UI tests: each `fixtures/ui/<lint>/<case>.rs` is checked as a loose file and the
//! human output must equal `<case>.stderr` beside it.
//!
//! A fixture may start with `//@ args: -D warnings` lines giving extra command-line
//! arguments. `TENSOR_LINT_BLESS=1 cargo test --test ui` rewrites the expectations.

mod common;

use common::ui::{check_expectations, fixtures_in, repo_root};

fn fixtures() -> Vec<std::path::PathBuf> {
    fixtures_in(&repo_root().join("fixtures/ui"))
}

#[test]
fn ui_fixtures_match_their_expected_output() {
    let cases = fixtures();
    assert!(!cases.is_empty(), "no UI fixtures found");
    let failures = check_expectations(&cases, &[]);
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
