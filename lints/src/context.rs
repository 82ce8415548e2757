//! What a lint pass reads and what it reports.

use std::cell::Cell;
use std::sync::OnceLock;

use tensor_lint_analyzer::ir::FnIr;
use tensor_lint_analyzer::program::CrateIr;
use tensor_lint_analyzer::source::{SourceMap, Span};

use crate::diagnostic::Diagnostic;
use crate::lint::Lint;

/// Everything a pass may read: the analyzer's IR and facts of one crate, and the
/// sources for wording (never for re-parsing).
pub struct LintContext<'a> {
    pub ir: &'a CrateIr,
    pub sources: &'a SourceMap,
    pub cache_line_bytes: u32,
}

impl LintContext<'_> {
    /// The crate's functions, for a pass to check one after another. The function being
    /// checked is remembered on this thread, so that an internal error in a pass is
    /// reported at it ([`function_being_checked`]).
    pub fn functions(&self) -> impl Iterator<Item = &FnIr> + '_ {
        self.ir.functions().inspect(|f| {
            CHECKING.with(|c| c.set(Some(f.span)));
            if injected_failure().and_then(|v| v.strip_prefix("fn:")) == Some(f.name.as_str()) {
                panic!("failure injected by {INJECT_FAILURE_ENV}");
            }
        })
    }
}

thread_local! {
    static CHECKING: Cell<Option<Span>> = const { Cell::new(None) };
}

/// Where the function a pass was checking on this thread is, until the passes end.
pub fn function_being_checked() -> Option<Span> {
    CHECKING.with(|c| c.get())
}

/// Says what is being checked on this thread before the passes run (a file being
/// lowered), for an internal error there.
pub fn checking(at: Span) {
    CHECKING.with(|c| c.set(Some(at)));
}

/// Forgets the function being checked (the passes are done, or a new crate begins).
pub fn done_checking() {
    CHECKING.with(|c| c.set(None));
}

/// Debug builds fail on purpose where this variable says, so that tests see an internal
/// error travel to its diagnostic: on a file whose shown path ends with its value, or,
/// for `fn:NAME`, while a pass checks function `NAME`. Release builds ignore it.
pub const INJECT_FAILURE_ENV: &str = "TENSOR_LINT_TEST_FAIL_ON";

/// The value of [`INJECT_FAILURE_ENV`] in debug builds.
pub fn injected_failure() -> Option<&'static str> {
    static VALUE: OnceLock<Option<String>> = OnceLock::new();
    if !cfg!(debug_assertions) {
        return None;
    }
    VALUE
        .get_or_init(|| std::env::var(INJECT_FAILURE_ENV).ok())
        .as_deref()
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
