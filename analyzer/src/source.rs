//! Source files, byte spans and the line/column arithmetic every renderer needs.

use std::path::{Path, PathBuf};

/// Index of a file in a [`SourceMap`].
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct FileId(pub u32);

/// A byte range `lo..hi` in one file.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Span {
    pub file: FileId,
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub fn new(file: FileId, lo: usize, hi: usize) -> Span {
        let lo = u32::try_from(lo).unwrap_or(u32::MAX);
        let hi = u32::try_from(hi).unwrap_or(u32::MAX).max(lo);
        Span { file, lo, hi }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.lo as usize..self.hi as usize
    }

    pub fn contains(self, other: Span) -> bool {
        self.file == other.file && self.lo <= other.lo && other.hi <= self.hi
    }
}

/// One source file: where it came from, how it is shown, and its text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub id: FileId,
    /// Path on disk, used to read it and to find `mod` children.
    pub path: PathBuf,
    /// Path as shown to the user (relative to the workspace root, or as given).
    pub display: String,
    pub text: String,
    line_starts: Vec<usize>,
}

/// A 1-based line and 1-based column counted in characters, as rustc reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

impl SourceFile {
    pub fn new(id: FileId, path: PathBuf, display: String, text: String) -> SourceFile {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SourceFile {
            id,
            path,
            display,
            text,
            line_starts,
        }
    }

    /// 0-based index of the line containing byte `offset` (clamped to the text).
    pub fn line_index(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    /// Byte offset where 0-based `line` starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len())
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The text of 0-based `line` without its line break.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_start(line);
        let end = self
            .line_starts
            .get(line + 1)
            .copied()
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// 1-based line and character column of byte `offset`.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = self.floor_char_boundary(offset.min(self.text.len()));
        let line = self.line_index(offset);
        let start = self.line_start(line);
        let column = self.text[start..offset].chars().count() + 1;
        LineCol {
            line: line + 1,
            column,
        }
    }

    /// Byte offset of a proc-macro2 line/column position (line 1-based, column in chars).
    pub fn offset_of(&self, line: usize, column: usize) -> usize {
        if line == 0 {
            return 0;
        }
        let start = self.line_start(line - 1);
        let rest = &self.text[start..];
        let line_len = rest.find('\n').unwrap_or(rest.len());
        rest[..line_len]
            .char_indices()
            .nth(column)
            .map(|(i, _)| start + i)
            .unwrap_or(start + line_len)
    }

    fn floor_char_boundary(&self, mut offset: usize) -> usize {
        while offset > 0 && !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }
}

/// All files of one run, addressed by [`FileId`].
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, path: PathBuf, display: String, text: String) -> FileId {
        let id = FileId(u32::try_from(self.files.len()).expect("fewer than 2^32 files"));
        self.files.push(SourceFile::new(id, path, display, text));
        id
    }

    /// Takes a file of another map, under a new id, with its line index.
    pub fn adopt(&mut self, mut file: SourceFile) -> FileId {
        let id = FileId(u32::try_from(self.files.len()).expect("fewer than 2^32 files"));
        file.id = id;
        self.files.push(file);
        id
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// The file, or `None` for an id this map never gave out.
    pub fn try_get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn files(&self) -> impl Iterator<Item = &SourceFile> {
        self.files.iter()
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn find_path(&self, path: &Path) -> Option<FileId> {
        self.files.iter().find(|f| f.path == path).map(|f| f.id)
    }
}

/// Something wrong with the input itself, reported with the place it was found.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SourceError {
    pub span: Span,
    pub message: String,
    pub label: String,
    /// The input may well be fine and only this tool unable to read it (a syntax syn
    /// does not know, a module file a macro or configuration would have found): such a
    /// problem is reported as a warning, not an error that fails a build rustc passes.
    pub unsure: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> SourceFile {
        SourceFile::new(FileId(0), "a.rs".into(), "a.rs".into(), text.into())
    }

    #[test]
    fn line_col_counts_characters_from_one() {
        let f = file("ab\nçd\n");
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, column: 1 });
        // `d` follows a two-byte character
        assert_eq!(f.line_col(5), LineCol { line: 2, column: 2 });
        assert_eq!(f.line_col(99), LineCol { line: 3, column: 1 });
    }

    #[test]
    fn offset_of_inverts_proc_macro_positions() {
        let f = file("fn a() {}\n  çx\n");
        assert_eq!(f.offset_of(2, 2), 12);
        assert_eq!(f.offset_of(2, 3), 14);
        assert_eq!(f.offset_of(2, 50), 15);
    }

    #[test]
    fn line_text_drops_line_breaks() {
        let f = file("one\r\ntwo");
        assert_eq!(f.line_text(0), "one");
        assert_eq!(f.line_text(1), "two");
    }
}
