//! The lint registry: every lint tensor-lint knows, with its documentation.
//!
//! `--list`, `--explain`, the SARIF rules and the book all read this table.

use crate::context::{CheckFn, LintContext, LintFinding};
use crate::diagnostic::Level;

/// What kind of problem a lint finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Memory bugs: the program is wrong.
    Correctness,
    /// Wasted memory or time inside kernels.
    Perf,
}

impl Group {
    pub fn as_str(self) -> &'static str {
        match self {
            Group::Correctness => "correctness",
            Group::Perf => "perf",
        }
    }
}

/// Whether a lint has a pass behind it yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Active,
    /// Declared and documented, but no pass reports it yet: it never fires.
    Planned,
}

/// A lint's declaration.
#[derive(Debug)]
pub struct Lint {
    /// Short name, as written in `-D NAME` and `allow(NAME)`.
    pub name: &'static str,
    pub default_level: Level,
    /// When findings that are only possible (not proven) are shown one level lower.
    pub possible_is_warn: bool,
    pub group: Group,
    pub summary: &'static str,
    /// Markdown with the sections "What it does", "Why is this bad", "Example".
    pub docs: &'static str,
    pub status: Status,
}

impl Lint {
    /// `tensor_lint::NAME`, the code findings carry.
    pub fn code(&self) -> String {
        format!("tensor_lint::{}", self.name)
    }

    /// The docs with the leading spaces doc comments leave removed.
    pub fn explanation(&self) -> String {
        let mut out = String::new();
        for line in self.docs.lines() {
            out.push_str(line.strip_prefix(' ').unwrap_or(line));
            out.push('\n');
        }
        out.trim().to_string()
    }
}

/// Declares a lint with its docs, written as doc comments:
///
/// ```ignore
/// declare_lint! {
///     /// ### What it does
///     /// ...
///     pub LEAK = "leak", Warn, Correctness, "allocation not released on some path"
/// }
/// ```
#[macro_export]
macro_rules! declare_lint {
    (
        $(#[doc = $doc:literal])*
        pub $ident:ident = $name:literal, $level:ident, $group:ident, $summary:literal
        $(, possible_is_warn = $possible:literal)?
        $(, status = $status:ident)?
    ) => {
        $(#[doc = $doc])*
        pub static $ident: $crate::registry::Lint = $crate::registry::Lint {
            name: $name,
            default_level: $crate::diagnostic::Level::$level,
            possible_is_warn: $crate::declare_lint!(@or $($possible)?, false),
            group: $crate::registry::Group::$group,
            summary: $summary,
            docs: concat!($($doc, "\n"),*),
            status: $crate::declare_lint!(@status $($status)?),
        };
    };
    (@or $value:literal, $default:literal) => { $value };
    (@or , $default:literal) => { $default };
    (@status $status:ident) => { $crate::registry::Status::$status };
    (@status) => { $crate::registry::Status::Active };
}

/// Every lint, in the order `--list` shows them.
pub fn lints() -> &'static [&'static Lint] {
    static LINTS: [&Lint; 8] = [
        &crate::leak::LEAK,
        &crate::double_free::DOUBLE_FREE,
        &crate::use_after_free::USE_AFTER_FREE,
        &crate::alias_race::ALIAS_RACE,
        &crate::false_sharing::FALSE_SHARING,
        &crate::unsafe_inplace::UNSAFE_INPLACE,
        &crate::missed_inplace::MISSED_INPLACE,
        &crate::alloc_in_loop::ALLOC_IN_LOOP,
    ];
    &LINTS
}

/// Every lint with its pass (`None` for lints only declared so far).
pub fn passes() -> [(&'static Lint, Option<CheckFn>); 8] {
    [
        (&crate::leak::LEAK, crate::leak::PASS),
        (&crate::double_free::DOUBLE_FREE, crate::double_free::PASS),
        (
            &crate::use_after_free::USE_AFTER_FREE,
            crate::use_after_free::PASS,
        ),
        (&crate::alias_race::ALIAS_RACE, crate::alias_race::PASS),
        (
            &crate::false_sharing::FALSE_SHARING,
            crate::false_sharing::PASS,
        ),
        (
            &crate::unsafe_inplace::UNSAFE_INPLACE,
            crate::unsafe_inplace::PASS,
        ),
        (
            &crate::missed_inplace::MISSED_INPLACE,
            crate::missed_inplace::PASS,
        ),
        (
            &crate::alloc_in_loop::ALLOC_IN_LOOP,
            crate::alloc_in_loop::PASS,
        ),
    ]
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
        let listed: Vec<_> = passes().iter().map(|(l, _)| l.name).collect();
        let registered: Vec<_> = lints().iter().map(|l| l.name).collect();
        assert_eq!(listed, registered);
    }

    #[test]
    fn the_design_table_is_registered() {
        for name in [
            "leak",
            "double_free",
            "use_after_free",
            "alias_race",
            "false_sharing",
            "unsafe_inplace",
            "missed_inplace",
            "alloc_in_loop",
        ] {
            assert!(find(name).is_some(), "{name} is not registered");
        }
    }
}
