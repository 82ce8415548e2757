//! Parsing one file with syn, turning syntax errors into [`SourceError`]s.

use crate::source::{FileId, SourceError, Span};

/// A parsed file of a crate, with the module path it is mounted at
/// (`[]` for the crate root, `["voxel", "grid"]` for `src/voxel/grid.rs`).
#[derive(Debug)]
pub struct ParsedFile {
    pub file: FileId,
    pub module_path: Vec<String>,
    pub ast: syn::File,
}

/// The files of one crate (one cargo target, or one loose file), root first.
#[derive(Debug, Default)]
pub struct CrateSources {
    pub name: String,
    pub files: Vec<ParsedFile>,
}

/// Parses `text` (the contents of `file`) as a Rust source file.
///
/// A leading shebang and a byte-order mark are accepted, as rustc accepts them.
pub fn parse_file(file: FileId, text: &str) -> Result<syn::File, SourceError> {
    syn::parse_file(text).map_err(|err| {
        let span = Span::from_proc_macro(file, err.span());
        // syn reports "unexpected end of input" with an empty span at the end; widen it
        // to the last character so that every renderer has something to underline.
        let span = if span.lo == span.hi && span.lo as usize >= text.len() && !text.is_empty() {
            let last = text.char_indices().last().map_or(0, |(i, _)| i);
            Span::new(file, last, text.len())
        } else {
            span
        };
        SourceError {
            span,
            message: format!("this file does not parse as Rust: {err}"),
            label: err.to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_error_points_at_the_offending_token() {
        let text = "fn main() {\n    let x = ;\n}\n";
        let err = parse_file(FileId(0), text).unwrap_err();
        assert_eq!(&text[err.span.range()], ";");
        assert!(err.message.starts_with("this file does not parse as Rust"));
    }

    #[test]
    fn unclosed_delimiter_has_a_nonempty_span() {
        let text = "fn main() {\n";
        let err = parse_file(FileId(0), text).unwrap_err();
        assert!(err.span.hi > err.span.lo, "{err:?}");
    }

    #[test]
    fn valid_file_parses() {
        assert!(parse_file(FileId(0), "#!/usr/bin/env run\nfn f() {}\n").is_ok());
    }
}
