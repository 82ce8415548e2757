//! The lint registry: every lint tensor-lint knows, with its documentation and pass, as
//! listed once in `lib.rs`.
//!
//! `--list`, `--explain`, the SARIF rules and the book all read this table.

use crate::context::{CheckFn, LintContext, LintFinding};
pub use crate::lint::{Group, Lint, Status};

/// Every lint, in the order `--list` shows them.
pub fn lints() -> &'static [&'static Lint] {
    crate::LINTS
}

/// Every lint with its pass (`None` for lints only declared so far).
pub fn passes() -> impl Iterator<Item = (&'static Lint, Option<CheckFn>)> {
    crate::LINTS
        .iter()
        .copied()
        .zip(crate::PASSES.iter().copied())
}

/// Runs every pass over one crate; findings in pass order.
pub fn check_crate(cx: &LintContext<'_>) -> Vec<LintFinding> {
    crate::context::done_checking();
    let mut findings = Vec::new();
    for (_, pass) in passes() {
        if let Some(pass) = pass {
            pass(cx, &mut findings);
        }
    }
    crate::context::done_checking();
    findings
}

/// Looks a lint up by `NAME` or `tensor_lint::NAME`.
pub fn find(name: &str) -> Option<&'static Lint> {
    let short = name.strip_prefix("tensor_lint::").unwrap_or(name);
    lints().iter().copied().find(|lint| lint.name == short)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lint_documents_the_three_sections() {
        for lint in lints() {
            let docs = lint.explanation();
            for section in ["### What it does", "### Why is this bad", "### Example"] {
                assert!(docs.contains(section), "{} lacks {section}", lint.name);
            }
            assert!(
                !lint.summary.ends_with('.'),
                "{}: summary ends with a period",
                lint.name
            );
        }
    }

    #[test]
    fn names_are_unique_and_found_with_or_without_prefix() {
        let mut names: Vec<_> = lints().iter().map(|l| l.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), lints().len());
        assert_eq!(find("tensor_lint::leak").map(|l| l.name), Some("leak"));
        assert_eq!(find("leak").map(|l| l.name), Some("leak"));
        assert!(find("leek").is_none());
    }

    #[test]
    fn a_lint_is_active_exactly_when_it_has_a_pass() {
        for (lint, pass) in passes() {
            assert_eq!(
                lint.status == Status::Active,
                pass.is_some(),
                "{}",
                lint.name
            );
        }
        assert_eq!(crate::PASSES.len(), lints().len());
    }
}
