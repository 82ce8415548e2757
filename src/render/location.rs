//! Where a span sits in its file, in the units every output format reports.
//!
//! Diagnostics carry raw byte spans; this turns one into a clamped, char-aligned byte
//! range with rustc's 1-based line and character columns, so that no renderer slices
//! a file's text at an offset that is out of range or inside a character.

use tensor_lint_analyzer::source::{FileId, LineCol, SourceFile, SourceMap, Span};

/// A span resolved against its file.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Location<'a> {
    pub file: &'a SourceFile,
    /// Byte offsets, clamped to the text and moved down to character boundaries.
    pub lo: usize,
    pub hi: usize,
    pub start: LineCol,
    /// The position just after the span (exclusive end), as rustc's `column_end`.
    pub end: LineCol,
}

/// The file behind `id`, or `None` when it is not part of this map.
pub(crate) fn source_file(sources: &SourceMap, id: FileId) -> Option<&SourceFile> {
    sources
        .files()
        .nth(id.0 as usize)
        .filter(|file| file.id == id)
}

/// Resolves `span`; `None` when its file is not in `sources`.
pub(crate) fn locate(sources: &SourceMap, span: Span) -> Option<Location<'_>> {
    let file = source_file(sources, span.file)?;
    let (lo, hi) = clamp(file, span);
    Some(Location {
        file,
        lo,
        hi,
        start: file.line_col(lo),
        end: file.line_col(hi),
    })
}

/// The byte range of `span` inside `file`, safe to slice with.
pub(crate) fn clamp(file: &SourceFile, span: Span) -> (usize, usize) {
    let lo = floor_char_boundary(&file.text, span.lo as usize);
    let hi = floor_char_boundary(&file.text, span.hi as usize).max(lo);
    (lo, hi)
}

fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while offset > 0 && !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

impl Location<'_> {
    /// The 0-based indices of the lines from the span's start to its end.
    pub fn lines(&self) -> std::ops::RangeInclusive<usize> {
        let first = self.start.line - 1;
        let last = (self.end.line - 1).max(first);
        first..=last
    }

    /// The source text the span covers.
    pub fn snippet(&self) -> &str {
        &self.file.text[self.lo..self.hi]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(text: &str) -> (SourceMap, FileId) {
        let mut sources = SourceMap::new();
        let id = sources.add("a.rs".into(), "a.rs".into(), text.into());
        (sources, id)
    }

    #[test]
    fn locate_reports_one_based_character_columns() {
        let (sources, id) = map("let ç = x;\nfoo(ç);\n");
        // `x` is at byte 9 on line 1: `ç` is two bytes but one column
        let location = locate(&sources, Span::new(id, 9, 10)).expect("file is known");
        assert_eq!((location.start.line, location.start.column), (1, 9));
        assert_eq!((location.end.line, location.end.column), (1, 10));
        assert_eq!(location.snippet(), "x");
    }

    #[test]
    fn locate_clamps_spans_past_the_end_and_inside_characters() {
        let (sources, id) = map("aç");
        // byte 2 is inside `ç`, byte 99 is past the end
        let location = locate(&sources, Span::new(id, 2, 99)).expect("file is known");
        assert_eq!((location.lo, location.hi), (1, 3));
        assert_eq!(location.snippet(), "ç");
    }

    #[test]
    fn locate_rejects_files_outside_the_map() {
        let (sources, _) = map("a");
        assert!(locate(&sources, Span::new(FileId(7), 0, 1)).is_none());
    }

    #[test]
    fn lines_cover_every_line_a_multiline_span_touches() {
        let (sources, id) = map("one\ntwo\nthree\n");
        let location = locate(&sources, Span::new(id, 2, 10)).expect("file is known");
        assert_eq!(location.lines(), 0..=2);
    }
}
