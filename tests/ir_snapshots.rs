//! Snapshot tests of the IR: each `fixtures/ir/NAME.rs` is copied into a scratch folder and
//! what `--dump-ir NAME.rs` prints there (every function of the file, compiled as a crate of
//! its own) must equal `fixtures/ir/NAME.ir`. A `NAME.toml` beside the file is the
//! `tensor-lint.toml` of that run (for its `[[models]]` rows). The snapshots of
//! `fixtures/ir/libraries/` are run inside the UI fixtures' package, so they compile with its
//! libraries (ndarray, rayon, tch, crossbeam, ...); the others with std alone.
//! `TENSOR_LINT_BLESS=1 cargo test --test ir_snapshots` rewrites the expectations.

mod common;

use std::path::{Path, PathBuf};

use common::ui::{bless, diff, repo_root};
use common::{bin, scratch, scratch_under};

fn snapshot_dir() -> PathBuf {
    repo_root().join("fixtures/ir")
}

/// The folder of the snapshots that use libraries: those of `fixtures/ui/Cargo.toml`.
fn library_dir() -> PathBuf {
    snapshot_dir().join("libraries")
}

/// The files of `dir` ending in `.{extension}`, sorted.
fn files_in(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{} is not readable: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    found.sort();
    found
}

/// The files of the snapshot folder and of its `libraries/` ending in `.{extension}`.
fn snapshot_files(extension: &str) -> Vec<PathBuf> {
    let mut found = files_in(&snapshot_dir(), extension);
    found.extend(files_in(&library_dir(), extension));
    found
}

/// A fresh folder holding `files` for the run of the snapshot `source`: for one of
/// `libraries/`, inside the UI fixtures' package (in its target folder, which no fixture
/// listing reads), so that a loose file there compiles with that package's dependencies;
/// for the others, in the temporary folder, outside any package (std only).
fn scratch_for(source: &Path, files: &[(&str, &str)]) -> PathBuf {
    if source.parent() == Some(library_dir().as_path()) {
        let base = repo_root().join("fixtures/ui/target/ir-snapshots");
        std::fs::create_dir_all(&base).expect("scratch dir");
        scratch_under(&base, "ir", files)
    } else {
        scratch("ir", files)
    }
}

/// `text` with every spelling of the scratch folder `dir` and of the temporary folder
/// written as `$DIR` and `$TMP`, so that the expectation holds on any machine.
fn normalise(text: &str, dir: &Path) -> String {
    let mut out = text.to_string();
    let tmp = std::env::temp_dir();
    for (path, name) in [(dir.to_path_buf(), "$DIR"), (tmp, "$TMP")] {
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        for spelling in [canonical, path] {
            let spelling = spelling.display().to_string();
            let spelling = spelling.trim_end_matches('/');
            if !spelling.is_empty() {
                out = out.replace(spelling, name);
            }
        }
    }
    out
}

/// What `--dump-ir` prints for the snapshot `source`, run in a scratch folder holding it
/// (and its configuration).
fn dump(source: &Path) -> String {
    let name = source
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a snapshot name");
    let text = std::fs::read_to_string(source).expect("readable snapshot");
    let config = std::fs::read_to_string(source.with_extension("toml")).ok();
    let mut files = vec![(name, text.as_str())];
    if let Some(config) = &config {
        files.push(("tensor-lint.toml", config.as_str()));
    }
    let dir = scratch_for(source, &files);
    let output = bin()
        .current_dir(&dir)
        .args(["--dump-ir", name])
        .output()
        .expect("the linter runs");
    let out = normalise(&String::from_utf8_lossy(&output.stdout), &dir);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        output.status.success() && out.lines().any(|l| l.starts_with("fn ")),
        "no IR for {name} (does it compile?):\n{out}\n{stderr}"
    );
    out
}

#[test]
fn ir_of_each_snapshot_matches_its_expectation() {
    let sources = snapshot_files("rs");
    assert!(!sources.is_empty(), "no snapshots in fixtures/ir");
    let mut failures = Vec::new();
    for source in &sources {
        let actual = dump(source);
        let expected_path = source.with_extension("ir");
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if actual == expected {
            continue;
        }
        if bless() {
            std::fs::write(&expected_path, &actual).expect("writable fixtures/ir");
            continue;
        }
        failures.push(diff(&expected, &actual, &expected_path));
    }
    assert!(
        failures.is_empty(),
        "the IR of {} of {} snapshots differs; run `TENSOR_LINT_BLESS=1 cargo test --test ir_snapshots` to accept it{}",
        failures.len(),
        sources.len(),
        failures.concat()
    );
}

#[test]
fn every_expectation_and_configuration_belongs_to_a_snapshot() {
    for path in snapshot_files("ir")
        .into_iter()
        .chain(snapshot_files("toml"))
    {
        assert!(
            path.with_extension("rs").is_file(),
            "{} has no snapshot",
            path.display()
        );
    }
}
