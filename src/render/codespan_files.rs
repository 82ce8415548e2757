//! codespan-reporting's view of a [`SourceMap`].
//!
//! Lines and columns come from [`SourceFile`] itself, so the `-->` position of the human
//! output is the same one the json, sarif and github formats report.

use std::ops::Range;

use codespan_reporting::files::{Error, Files};
use tensor_lint_analyzer::source::{FileId, SourceFile, SourceMap};

use super::location::source_file;

/// Borrows a [`SourceMap`] as a codespan file database.
pub(crate) struct CodespanFiles<'a> {
    sources: &'a SourceMap,
}

impl<'a> CodespanFiles<'a> {
    pub fn new(sources: &'a SourceMap) -> CodespanFiles<'a> {
        CodespanFiles { sources }
    }

    fn file(&self, id: FileId) -> Result<&'a SourceFile, Error> {
        source_file(self.sources, id).ok_or(Error::FileMissing)
    }
}

impl<'a> Files<'a> for CodespanFiles<'a> {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, Error> {
        Ok(self.file(id)?.display.as_str())
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, Error> {
        Ok(self.file(id)?.text.as_str())
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, Error> {
        Ok(self.file(id)?.line_index(byte_index))
    }

    fn column_number(
        &'a self,
        id: FileId,
        _line_index: usize,
        byte_index: usize,
    ) -> Result<usize, Error> {
        Ok(self.file(id)?.line_col(byte_index).column)
    }

    fn line_range(&'a self, id: FileId, line_index: usize) -> Result<Range<usize>, Error> {
        let file = self.file(id)?;
        if line_index >= file.line_count() {
            return Err(Error::LineTooLarge {
                given: line_index,
                max: file.line_count().saturating_sub(1),
            });
        }
        Ok(file.line_start(line_index)..file.line_start(line_index + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_match_the_source_file_arithmetic() {
        let mut sources = SourceMap::new();
        let text = "fn f() {\n    let é = ç;\n}\n";
        let id = sources.add("a.rs".into(), "src/a.rs".into(), text.into());
        let files = CodespanFiles::new(&sources);
        let file = sources.get(id);
        for offset in (0..=text.len()).filter(|&o| text.is_char_boundary(o)) {
            let expected = file.line_col(offset);
            let location = files.location(id, offset).expect("file is known");
            assert_eq!(
                (location.line_number, location.column_number),
                (expected.line, expected.column),
                "at byte {offset}"
            );
        }
        assert_eq!(files.name(id).ok(), Some("src/a.rs"));
    }

    #[test]
    fn line_ranges_include_the_line_break_and_stop_at_the_last_line() {
        let mut sources = SourceMap::new();
        let id = sources.add("a.rs".into(), "a.rs".into(), "ab\ncd".into());
        let files = CodespanFiles::new(&sources);
        assert_eq!(files.line_range(id, 0).ok(), Some(0..3));
        assert_eq!(files.line_range(id, 1).ok(), Some(3..5));
        assert!(files.line_range(id, 2).is_err());
        assert!(files.line_range(FileId(3), 0).is_err());
    }
}
