//! What a lint pass reads and what it reports.

use tensor_lint_analyzer::program::CrateIr;
use tensor_lint_analyzer::source::SourceMap;

use crate::diagnostic::Diagnostic;
use crate::registry::Lint;

/// Everything a pass may read: the analyzer's IR and facts of one crate, and the
/// sources for wording (never for re-parsing).
pub struct LintContext<'a> {
    pub ir: &'a CrateIr,
    pub sources: &'a SourceMap,
    pub cache_line_bytes: u32,
}

/// A finding before levels apply: the driver turns it into a warning or an error (or
/// drops it) from the configuration and the command line.
#[derive(Clone, Debug)]
pub struct LintFinding {
    pub lint: &'static Lint,
    /// Proven for every input the assumptions allow (the oracle said `MustAlias`, or
    /// the path is certain), or only possible. Lints with `possible_is_warn` report
    /// possible findings one level lower.
    pub proven: bool,
    /// Its severity is replaced by the driver.
    pub diagnostic: Diagnostic,
}

/// A lint pass: reads the context, appends findings.
pub type CheckFn = fn(&LintContext<'_>, &mut Vec<LintFinding>);
