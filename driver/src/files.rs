//! The crate's own source files as the analyzer knows them, and compiler spans turned
//! into spans of those files.
//!
//! Spans are byte ranges of the file on disk: rustc normalises what it reads (a byte
//! order mark dropped, `\r\n` made `\n`), so positions are mapped back to the original
//! bytes. Code a macro expanded is shown where the user wrote the macro call, except
//! code a `macro_rules!` of the crate writes in its definition, which is shown there.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_middle::ty::TyCtxt;
use rustc_span::def_id::LOCAL_CRATE;
use rustc_span::{BytePos, FileName, SourceFile};

use tensor_lint_analyzer::source::{FileId, SourceMap, Span};

/// The crate's files, in the order the compiler loaded them.
pub(crate) struct Files {
    entries: Vec<Entry>,
    pub sources: SourceMap,
    /// Whether code of each macro expansion met so far comes from a `macro_rules!` of
    /// the crate (asked once per expansion, not once per span).
    crate_macros:
        std::cell::RefCell<rustc_data_structures::fx::FxHashMap<rustc_span::SyntaxContext, bool>>,
}

struct Entry {
    file: Arc<SourceFile>,
    id: FileId,
}

impl Files {
    pub(crate) fn new(tcx: TyCtxt<'_>) -> Files {
        let cwd = std::env::current_dir().unwrap_or_default();
        let mut sources = SourceMap::new();
        let mut entries = Vec::new();
        let source_map = tcx.sess.source_map();
        for file in source_map.files().iter() {
            if file.cnum != LOCAL_CRATE {
                continue;
            }
            let FileName::Real(name) = &file.name else {
                continue;
            };
            let Some(path) = name.local_path() else {
                continue;
            };
            let path = absolute(&cwd, path);
            // The text on disk is what the user sees and what spans index; the
            // compiler's copy stands in when the file cannot be read again.
            let text = std::fs::read_to_string(&path)
                .ok()
                .or_else(|| file.src.as_deref().cloned())
                .unwrap_or_default();
            let id = sources.add(path.clone(), path.display().to_string(), text);
            entries.push(Entry {
                file: Arc::clone(file),
                id,
            });
        }
        entries.sort_by_key(|e| e.file.start_pos);
        Files {
            entries,
            sources,
            crate_macros: Default::default(),
        }
    }

    /// Every file's path, by [`FileId`].
    pub(crate) fn paths(&self) -> Vec<PathBuf> {
        self.sources.files().map(|f| f.path.clone()).collect()
    }

    /// Lines of every file.
    pub(crate) fn lines(&self) -> usize {
        self.sources.files().map(|f| f.line_count()).sum()
    }

    /// `span` in the crate's files, at the macro call the user wrote when a macro made
    /// it; `None` for code with no place in them (another crate's, the compiler's).
    pub(crate) fn span(&self, span: rustc_span::Span) -> Option<Span> {
        let span = self
            .in_crate_macro(span)
            .unwrap_or_else(|| span.source_callsite());
        if span.is_dummy() {
            return None;
        }
        let (lo, hi) = (span.lo(), span.hi());
        let entry = self.entry_at(lo)?;
        let file = &entry.file;
        let lo = file.original_relative_byte_pos(lo).0 as usize;
        let hi = if hi <= file.end_position() {
            file.original_relative_byte_pos(hi).0 as usize
        } else {
            lo
        };
        let len = self.sources.get(entry.id).text.len();
        Some(Span::new(entry.id, lo.min(len), hi.min(len)))
    }

    /// Code a `macro_rules!` of the crate's own files expanded, where the definition
    /// writes it: the code is there, and every call of the macro runs the same code.
    fn in_crate_macro(&self, span: rustc_span::Span) -> Option<rustc_span::Span> {
        if !span.from_expansion() {
            return None;
        }
        let ctxt = span.ctxt();
        let known = self.crate_macros.borrow().get(&ctxt).copied();
        let of_crate = known.unwrap_or_else(|| {
            let data = ctxt.outer_expn_data();
            let of_crate = matches!(
                data.kind,
                rustc_span::ExpnKind::Macro(rustc_span::MacroKind::Bang, _)
            ) && data.macro_def_id.is_some_and(|d| d.is_local());
            self.crate_macros.borrow_mut().insert(ctxt, of_crate);
            of_crate
        });
        if !of_crate {
            return None;
        }
        self.entry_at(span.lo())?;
        Some(span.with_ctxt(rustc_span::SyntaxContext::root()))
    }

    /// The source text at `span`.
    pub(crate) fn text(&self, span: Span) -> Option<&str> {
        let file = self.sources.try_get(span.file)?;
        file.text.get(span.lo as usize..span.hi as usize)
    }

    fn entry_at(&self, pos: BytePos) -> Option<&Entry> {
        let k = self.entries.partition_point(|e| e.file.start_pos <= pos);
        let entry = self.entries.get(k.checked_sub(1)?)?;
        (pos <= entry.file.end_position()).then_some(entry)
    }
}

fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}
