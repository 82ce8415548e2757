//! Errors of the tool itself (usage, configuration, I/O, cargo): rendered with miette,
//! exit status 2. Findings in the checked code are diagnostics, not these.

use std::fmt;
use std::path::Path;

use miette::{LabeledSpan, NamedSource, SourceSpan};

/// A configuration (or baseline) file with a bad key or value, pointing at it.
#[derive(Debug)]
pub struct ConfigError {
    source_code: NamedSource<String>,
    span: SourceSpan,
    message: String,
    label: String,
    help: Option<String>,
}

#[derive(Debug)]
pub enum ToolError {
    /// Boxed: it carries the whole file, and `Result<_, ToolError>` stays small.
    Config(Box<ConfigError>),
    Io {
        message: String,
        cause: std::io::Error,
    },
    Usage {
        message: String,
        help: Option<String>,
    },
    Cargo {
        message: String,
        detail: String,
    },
}

impl ToolError {
    pub fn config(
        file: &Path,
        text: &str,
        span: std::ops::Range<usize>,
        message: String,
        label: &str,
        help: Option<String>,
    ) -> ToolError {
        ToolError::Config(Box::new(ConfigError {
            source_code: NamedSource::new(file.display().to_string(), text.to_string())
                .with_language("TOML"),
            span: (span.start, span.end.saturating_sub(span.start)).into(),
            message,
            label: label.to_string(),
            help,
        }))
    }

    pub fn io(message: String, cause: std::io::Error) -> ToolError {
        ToolError::Io { message, cause }
    }

    pub fn usage(message: impl Into<String>, help: Option<String>) -> ToolError {
        ToolError::Usage {
            message: message.into(),
            help,
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Config(config) => f.write_str(&config.message),
            ToolError::Usage { message, .. } | ToolError::Cargo { message, .. } => {
                f.write_str(message)
            }
            ToolError::Io { message, cause } => write!(f, "{message}: {cause}"),
        }
    }
}

impl std::error::Error for ToolError {}

impl miette::Diagnostic for ToolError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let code = match self {
            ToolError::Config(_) => "tensor_lint::config",
            ToolError::Io { .. } => "tensor_lint::io",
            ToolError::Usage { .. } => "tensor_lint::usage",
            ToolError::Cargo { .. } => "tensor_lint::cargo",
        };
        Some(Box::new(code))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let help: &'a str = match self {
            ToolError::Config(config) => config.help.as_deref()?,
            ToolError::Usage { help, .. } => help.as_deref()?,
            ToolError::Cargo { detail, .. } if !detail.is_empty() => detail,
            _ => return None,
        };
        Some(Box::new(help))
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match self {
            ToolError::Config(config) => Some(&config.source_code),
            _ => None,
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        match self {
            ToolError::Config(config) => Some(Box::new(std::iter::once(
                LabeledSpan::new_primary_with_span(Some(config.label.clone()), config.span),
            ))),
            _ => None,
        }
    }
}
