//! The book's lint pages must be what the registry and the UI fixtures generate.
//! `TENSOR_LINT_BLESS=1 cargo test -p tensor-lint-lints --test book_sync` rewrites them.

use std::path::{Path, PathBuf};

use tensor_lint_lints::book::{index_page, lint_page, Fixture};
use tensor_lint_lints::registry::lints;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("lints/ is in the repository")
        .to_path_buf()
}

fn fixtures(lint: &str) -> Vec<Fixture> {
    let dir = repo().join("fixtures/ui").join(lint);
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "rs"))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
        .into_iter()
        .map(|path| Fixture {
            name: path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            source: std::fs::read_to_string(&path).unwrap_or_default(),
            expected: std::fs::read_to_string(path.with_extension("stderr")).unwrap_or_default(),
        })
        .collect()
}

#[test]
fn book_lint_pages_match_the_registry() {
    let bless = std::env::var_os("TENSOR_LINT_BLESS").is_some_and(|v| v != "0");
    let dir = repo().join("book/src/lints");
    let mut pages = vec![("index.md".to_string(), index_page())];
    for lint in lints() {
        pages.push((
            format!("{}.md", lint.name),
            lint_page(lint, &fixtures(lint.name)),
        ));
    }
    let mut stale = Vec::new();
    for (name, expected) in &pages {
        let path = dir.join(name);
        let actual = std::fs::read_to_string(&path).unwrap_or_default();
        if &actual == expected {
            continue;
        }
        if bless {
            std::fs::create_dir_all(&dir).expect("book/src/lints can be created");
            std::fs::write(&path, expected).expect("book page can be written");
        } else {
            stale.push(name.clone());
        }
    }
    assert!(
        stale.is_empty(),
        "book pages out of date with the registry: {stale:?}; run `TENSOR_LINT_BLESS=1 cargo test -p tensor-lint-lints --test book_sync`"
    );
}

#[test]
fn summary_lists_every_lint_page() {
    let summary = std::fs::read_to_string(repo().join("book/src/SUMMARY.md"))
        .expect("book/src/SUMMARY.md exists");
    assert!(summary.contains("(lints/index.md)"));
    for lint in lints() {
        assert!(
            summary.contains(&format!("(lints/{}.md)", lint.name)),
            "SUMMARY.md lacks {}",
            lint.name
        );
    }
}
