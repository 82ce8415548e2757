//! What a run read: how many files and lines were analysed, and which files under a
//! package's `src/` no target reached (a module declared in a way the loader does not
//! follow, or a file no module declares), said as a note so that "no findings" never
//! hides "not looked at".

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tensor_lint_analyzer::source::{FileId, Span};
use tensor_lint_lints::diagnostic::{Diagnostic, Label, Severity};

/// How much of the code a run analysed: every file counted once, however many targets
/// mount it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Analysed {
    pub files: usize,
    pub lines: usize,
}

/// How many unreached files a note names before it says "and N more".
const NAMED: usize = 5;

/// The `.rs` files under `src_dir` (not following links) that are not in `mounted` and
/// not `excluded`, sorted.
pub fn unreached(
    src_dir: &Path,
    mounted: &BTreeSet<PathBuf>,
    excluded: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![src_dir.to_path_buf()];
    // A bound on the walk: a `src/` of more files than this is not walked further.
    let mut budget = 100_000usize;
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.path());
        for entry in entries {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                break;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if excluded(&path) {
                continue;
            }
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|e| e == "rs") {
                let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
                if !mounted.contains(&canonical) {
                    found.push(path);
                }
            }
        }
    }
    found.sort();
    found
}

/// The note for a package whose `src/` has files no target reached, at the start of the
/// package's first root file. `shown` names a path as the user sees it.
pub fn unreached_note(
    root: FileId,
    unreached: &[PathBuf],
    shown: &dyn Fn(&Path) -> String,
) -> Option<Diagnostic> {
    let count = unreached.len();
    if count == 0 {
        return None;
    }
    let mut names: Vec<String> = unreached
        .iter()
        .take(NAMED)
        .map(|p| format!("`{}`", shown(p)))
        .collect();
    if count > NAMED {
        names.push(format!("and {} more", count - NAMED));
    }
    let (files, were) = if count == 1 {
        ("file", "was")
    } else {
        ("files", "were")
    };
    Some(
        Diagnostic::new(
            Severity::Note,
            format!("{count} {files} under `src/` {were} not analysed"),
            Label::new(
                Span::new(root, 0, 0),
                "no module declaration compiled in this configuration names them",
            ),
        )
        .with_note(format!("not analysed: {}", names.join(", ")))
        .with_help(
            "`--all-features` (or `--features ..`) analyses modules behind features this run did not enable; \
             declare the others with `mod`, or list them under `exclude` in `tensor-lint.toml` if they are not part of the crate",
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_no_target_mounts_are_unreached_and_named_up_to_five() {
        let dir = std::env::temp_dir().join(format!("tl-coverage-{}", std::process::id()));
        let src = dir.join("src");
        std::fs::create_dir_all(src.join("deep")).unwrap();
        for name in [
            "lib.rs",
            "a.rs",
            "b.rs",
            "deep/c.rs",
            "deep/d.rs",
            "e.rs",
            "f.rs",
            "notes.txt",
        ] {
            std::fs::write(src.join(name), "").unwrap();
        }
        let lib = std::fs::canonicalize(src.join("lib.rs")).unwrap();
        let mounted: BTreeSet<PathBuf> = [lib].into_iter().collect();
        let excluded = |p: &Path| p.ends_with("f.rs");
        let found = unreached(&src, &mounted, &excluded);
        let names: Vec<String> = found
            .iter()
            .map(|p| p.strip_prefix(&src).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["a.rs", "b.rs", "deep/c.rs", "deep/d.rs", "e.rs"]);
        let shown = |p: &Path| p.strip_prefix(&dir).unwrap().display().to_string();
        let note = unreached_note(FileId(0), &found, &shown).expect("a note");
        assert_eq!(note.message, "5 files under `src/` were not analysed");
        assert_eq!(note.severity, Severity::Note);
        let mut more = found.clone();
        more.push(src.join("z.rs"));
        let note = unreached_note(FileId(0), &more, &shown).expect("a note");
        assert!(note.notes[0].ends_with("and 1 more"), "{:?}", note.notes);
        assert!(unreached_note(FileId(0), &[], &shown).is_none());
        let _ = std::fs::remove_dir_all(dir);
    }
}
