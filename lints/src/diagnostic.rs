//! The diagnostic model: what a finding says, where, and how to fix it.
//!
//! Lints build these; renderers read them without knowing which lint built them.

use tensor_lint_analyzer::source::{FileId, Span};

/// How loudly a lint reports, as configured (`allow`, `warn`, `deny`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Allow,
    Warn,
    Deny,
}

impl Level {
    pub fn parse(text: &str) -> Option<Level> {
        match text {
            "allow" => Some(Level::Allow),
            "warn" => Some(Level::Warn),
            "deny" => Some(Level::Deny),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }

    /// The severity a finding at this level is shown with; `None` for `allow`.
    pub fn severity(self) -> Option<Severity> {
        match self {
            Level::Allow => None,
            Level::Warn => Some(Severity::Warning),
            Level::Deny => Some(Severity::Error),
        }
    }
}

/// The level a diagnostic is shown with, as rustc names them.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Severity {
    Error,
    Warning,
    /// Something the user should know about the run, not a problem in the code.
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// rustc's suggestion applicability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Applicability {
    MachineApplicable,
    MaybeIncorrect,
    HasPlaceholders,
    Unspecified,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::MachineApplicable => "MachineApplicable",
            Applicability::MaybeIncorrect => "MaybeIncorrect",
            Applicability::HasPlaceholders => "HasPlaceholders",
            Applicability::Unspecified => "Unspecified",
        }
    }
}

/// A span with the text that explains it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

impl Label {
    pub fn new(span: Span, message: impl Into<String>) -> Label {
        Label {
            span,
            message: message.into(),
        }
    }
}

/// Replace the text of `span` with `replacement`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
}

/// A fix offered as edits, shown as `help: MESSAGE` with the edited code.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Suggestion {
    pub message: String,
    pub edits: Vec<Edit>,
    pub applicability: Applicability,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Diagnostic {
    /// `tensor_lint::NAME` for lint findings; `None` for problems with the input itself
    /// (a file that does not parse, a malformed annotation).
    pub code: Option<String>,
    pub severity: Severity,
    /// Lowercase, no trailing period: what is wrong in this code.
    pub message: String,
    /// What happens at the place the finding is about.
    pub primary: Label,
    /// The other side of the conflict.
    pub secondary: Vec<Label>,
    /// Facts: witnesses, why a level applies.
    pub notes: Vec<String>,
    /// How to fix it, in words.
    pub helps: Vec<String>,
    /// How to fix it, as edits.
    pub suggestions: Vec<Suggestion>,
}

impl Diagnostic {
    pub fn new(severity: Severity, message: impl Into<String>, primary: Label) -> Diagnostic {
        Diagnostic {
            code: None,
            severity,
            message: message.into(),
            primary,
            secondary: Vec::new(),
            notes: Vec::new(),
            helps: Vec::new(),
            suggestions: Vec::new(),
        }
    }

    pub fn with_code(mut self, code: impl Into<String>) -> Diagnostic {
        self.code = Some(code.into());
        self
    }

    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label::new(span, message));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.helps.push(help.into());
        self
    }

    pub fn with_suggestion(mut self, suggestion: Suggestion) -> Diagnostic {
        self.suggestions.push(suggestion);
        self
    }

    /// Renumbers the files of every span (when source maps are merged).
    pub fn map_files(&mut self, map: impl Fn(FileId) -> FileId) {
        let relabel = |span: &mut Span| span.file = map(span.file);
        relabel(&mut self.primary.span);
        self.secondary.iter_mut().for_each(|l| relabel(&mut l.span));
        for suggestion in &mut self.suggestions {
            suggestion
                .edits
                .iter_mut()
                .for_each(|e| relabel(&mut e.span));
        }
    }
}
