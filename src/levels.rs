//! What a run shows of a crate's findings: suppressions honoured, levels applied from
//! the lint defaults, the configuration and the `-W/-A/-D` flags, as rustc does.

use std::collections::BTreeMap;

use tensor_lint_analyzer::source::SourceError;
use tensor_lint_analyzer::suppress::AllowRegion;
use tensor_lint_lints::context::LintFinding;
use tensor_lint_lints::diagnostic::{Diagnostic, Label, Level, Severity};
use tensor_lint_lints::registry;

use crate::config::{suggest_lint, Config};

/// A `-W/-A/-D` flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelFlag {
    Lint(&'static str, Level),
    /// `-D warnings`, `-A warnings`, `-W warnings`: applies to every finding shown as a
    /// warning after the lint levels are settled.
    Warnings(Level),
}

/// What a run shows of one crate's results: its input problems, the unknown lints its
/// allows name, and its lint findings with suppressions honoured and levels applied.
pub(crate) fn settle(
    lint_findings: Vec<LintFinding>,
    problems: &[&SourceError],
    regions: &[AllowRegion],
    config: &Config,
    flags: &[LevelFlag],
) -> Vec<Diagnostic> {
    let mut diagnostics: Vec<Diagnostic> = problems
        .iter()
        .map(|p| input_error(p))
        .filter_map(|d| match d.severity {
            Severity::Warning => apply_warnings_flag(d, flags),
            _ => Some(d),
        })
        .collect();
    diagnostics.extend(
        unknown_allow_names(regions)
            .into_iter()
            .filter_map(|d| apply_warnings_flag(d, flags)),
    );
    for finding in lint_findings {
        if is_suppressed(&finding, regions) {
            continue;
        }
        if let Some(diagnostic) = apply_level(finding, &config.levels, flags) {
            diagnostics.push(diagnostic);
        }
    }
    diagnostics
}

fn unknown_allow_names(regions: &[AllowRegion]) -> Vec<Diagnostic> {
    regions
        .iter()
        .flat_map(|r| &r.names)
        .filter(|name| registry::find(&name.name).is_none())
        .map(|name| {
            Diagnostic::new(
                Severity::Warning,
                format!("unknown lint `{}`", name.name),
                Label::new(name.span, "no lint of this name"),
            )
            .with_help(suggest_lint(&name.name))
        })
        .collect()
}

fn is_suppressed(finding: &LintFinding, regions: &[AllowRegion]) -> bool {
    let primary = finding.diagnostic.primary.span;
    regions.iter().any(|region| {
        region.region.file == primary.file
            && region.region.lo <= primary.lo
            && primary.lo < region.region.hi.max(region.region.lo + 1)
            && region
                .names
                .iter()
                .any(|n| registry::find(&n.name).is_some_and(|l| std::ptr::eq(l, finding.lint)))
    })
}

/// Applies configuration and command-line levels to a finding; `None` when allowed.
///
/// A lint's level is, in order of precedence: the last `-W/-A/-D LINT` flag, the
/// configuration, its default (one level lower for merely possible findings of lints
/// that distinguish them). `-D/-W/-A warnings` then applies to what is a warning.
pub fn apply_level(
    finding: LintFinding,
    configured: &BTreeMap<&'static str, Level>,
    flags: &[LevelFlag],
) -> Option<Diagnostic> {
    let lint = finding.lint;
    let from_flag = flags.iter().rev().find_map(|flag| match flag {
        LevelFlag::Lint(name, level) if *name == lint.name => Some(*level),
        _ => None,
    });
    let explicit = from_flag.or_else(|| configured.get(lint.name).copied());
    let (mut level, mut source) = match explicit {
        Some(level) if from_flag.is_some() => (
            level,
            format!(
                "`-{} {}` given on the command line",
                flag_letter(level),
                lint.name
            ),
        ),
        Some(level) => (
            level,
            format!(
                "`{} = \"{}\"` set in the configuration",
                lint.name,
                level.as_str()
            ),
        ),
        None if lint.possible_is_warn && !finding.proven && lint.default_level == Level::Deny => (
            Level::Warn,
            format!(
                "`{}` warns by default when what it reports is possible but not proven; `// tensor-lint: allow({})` on the line before silences this finding",
                lint.code(),
                lint.name
            ),
        ),
        None => (
            lint.default_level,
            format!(
                "`{}` {} by default; `// tensor-lint: allow({})` on the line before silences this finding",
                lint.code(),
                match lint.default_level {
                    Level::Deny => "is an error",
                    _ => "warns",
                },
                lint.name
            ),
        ),
    };
    if level == Level::Warn {
        if let Some(LevelFlag::Warnings(w)) = flags
            .iter()
            .rev()
            .find(|f| matches!(f, LevelFlag::Warnings(_)))
        {
            if *w != Level::Warn {
                source = format!(
                    "`-{} {}` implied by `-{} warnings`",
                    flag_letter(*w),
                    lint.name,
                    flag_letter(*w)
                );
            }
            level = *w;
        }
    }
    let severity = level.severity()?;
    let mut diagnostic = finding.diagnostic;
    diagnostic.severity = severity;
    diagnostic.code = Some(lint.code());
    diagnostic.notes.push(source);
    Some(diagnostic)
}

/// `-D/-A/-W warnings` for warnings that are not lint findings (an unknown lint named in
/// an allow), as rustc treats its `unknown_lints`.
fn apply_warnings_flag(mut diagnostic: Diagnostic, flags: &[LevelFlag]) -> Option<Diagnostic> {
    let last = flags.iter().rev().find_map(|f| match f {
        LevelFlag::Warnings(level) => Some(*level),
        LevelFlag::Lint(..) => None,
    });
    match last {
        Some(Level::Allow) => None,
        Some(Level::Deny) => {
            diagnostic.severity = Severity::Error;
            diagnostic
                .notes
                .push("`-D warnings` turns this warning into an error".into());
            Some(diagnostic)
        }
        _ => Some(diagnostic),
    }
}

fn flag_letter(level: Level) -> char {
    match level {
        Level::Allow => 'A',
        Level::Warn => 'W',
        Level::Deny => 'D',
    }
}

/// A problem with the input itself, never suppressed: an error when the input is surely
/// wrong, a warning when rustc may accept what this tool cannot read.
fn input_error(error: &SourceError) -> Diagnostic {
    let severity = if error.unsure {
        Severity::Warning
    } else {
        Severity::Error
    };
    let diagnostic = Diagnostic::new(
        severity,
        error.message.clone(),
        Label::new(error.span, error.label.clone()),
    );
    if error.unsure {
        diagnostic.with_note(
            "this code was not checked; it is a warning because rustc may accept what tensor-lint cannot read",
        )
    } else {
        diagnostic
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use tensor_lint_analyzer::source::{FileId, Span};
    use tensor_lint_analyzer::suppress::AllowedName;

    use super::*;

    fn finding(lint: &'static str, proven: bool, lo: usize) -> LintFinding {
        LintFinding {
            lint: registry::find(lint).expect("registered lint"),
            proven,
            diagnostic: Diagnostic::new(
                Severity::Warning,
                "m",
                Label::new(Span::new(FileId(0), lo, lo + 1), "here"),
            ),
        }
    }

    fn level_of(
        f: LintFinding,
        configured: &[(&'static str, Level)],
        flags: &[LevelFlag],
    ) -> Option<Severity> {
        let configured: BTreeMap<_, _> = configured.iter().copied().collect();
        apply_level(f, &configured, flags).map(|d| d.severity)
    }

    #[test]
    fn defaults_follow_the_registry_and_possible_races_are_warnings() {
        assert_eq!(
            level_of(finding("leak", true, 0), &[], &[]),
            Some(Severity::Warning)
        );
        assert_eq!(
            level_of(finding("double_free", true, 0), &[], &[]),
            Some(Severity::Error)
        );
        assert_eq!(
            level_of(finding("alias_race", true, 0), &[], &[]),
            Some(Severity::Error)
        );
        assert_eq!(
            level_of(finding("alias_race", false, 0), &[], &[]),
            Some(Severity::Warning)
        );
    }

    #[test]
    fn flags_beat_configuration_and_the_last_flag_wins() {
        let configured = [("leak", Level::Allow)];
        assert_eq!(level_of(finding("leak", true, 0), &configured, &[]), None);
        let flags = [
            LevelFlag::Lint("leak", Level::Deny),
            LevelFlag::Lint("leak", Level::Warn),
        ];
        assert_eq!(
            level_of(finding("leak", true, 0), &configured, &flags),
            Some(Severity::Warning)
        );
    }

    #[test]
    fn deny_warnings_turns_every_warning_into_an_error_and_says_why() {
        let flags = [LevelFlag::Warnings(Level::Deny)];
        let configured = BTreeMap::new();
        let d = apply_level(finding("leak", true, 0), &configured, &flags).expect("shown");
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(d.code.as_deref(), Some("tensor_lint::leak"));
        assert_eq!(
            d.notes.last().map(String::as_str),
            Some("`-D leak` implied by `-D warnings`")
        );
        // allowed lints stay allowed
        let allowed = [
            LevelFlag::Lint("leak", Level::Allow),
            LevelFlag::Warnings(Level::Deny),
        ];
        assert_eq!(level_of(finding("leak", true, 0), &[], &allowed), None);
        assert_eq!(
            level_of(
                finding("leak", true, 0),
                &[],
                &[LevelFlag::Warnings(Level::Allow)]
            ),
            None
        );
    }

    #[test]
    fn suppression_matches_the_lint_and_the_region() {
        let region = AllowRegion {
            region: Span::new(FileId(0), 10, 20),
            names: vec![AllowedName {
                name: "tensor_lint::leak".into(),
                span: Span::new(FileId(0), 0, 1),
            }],
        };
        let regions = [region];
        assert!(is_suppressed(&finding("leak", true, 12), &regions));
        assert!(!is_suppressed(&finding("leak", true, 25), &regions));
        assert!(!is_suppressed(&finding("double_free", true, 12), &regions));
    }
}
