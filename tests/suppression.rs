//! Every documented way of silencing a finding works, in crate mode and on loose files:
//! `#[tensor_lint::allow(..)]` on a function, an `impl` block and an inline module, and
//! `// tensor-lint: allow(..)` on the line before or at the end of the line of a `let`
//! and of a statement (`fixtures/crates/suppression`). The note of a finding names a
//! suppression, and following it silences the finding.

mod common;

use common::bin;

use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/crates/suppression")
}

fn primary_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("--> "))
        .map(|l| l.trim_start().trim_start_matches("--> ").to_string())
        .collect()
}

#[test]
fn every_suppression_form_silences_its_finding_in_crate_mode() {
    let output = bin()
        .arg("--manifest-path")
        .arg(fixture().join("Cargo.toml"))
        .arg("--color=never")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    // Only the helper of `loud`, which nothing silences.
    assert_eq!(primary_lines(&err), ["src/lib.rs:7:22"], "{err}");
}

#[test]
fn every_suppression_form_silences_its_finding_as_a_loose_file() {
    let output = bin()
        .current_dir(fixture())
        .args(["--color=never", "src/lib.rs"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(primary_lines(&err), ["src/lib.rs:7:22"], "{err}");
}

#[test]
fn the_suppression_the_note_names_silences_the_finding() {
    let source = std::fs::read_to_string(fixture().join("src/lib.rs")).unwrap();
    // Inside the fixture's package (under its target folder), so that the copy
    // compiles with the package's dependency on the annotations.
    let dir = common::scratch_under(
        &fixture().join("target/tensor-lint-tests"),
        "note",
        &[("lib.rs", &source)],
    );
    let run = |dir: &Path| {
        let output = bin()
            .current_dir(dir)
            .args(["--color=never", "lib.rs"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let err = run(&dir);
    let note = err
        .lines()
        .find(|l| l.contains("= note: `tensor_lint::leak` warns by default"))
        .unwrap_or_else(|| panic!("no default-level note:\n{err}"));
    let start = note
        .find("`// tensor-lint:")
        .expect("the note names a comment")
        + 1;
    let comment = &note[start..start + note[start..].find('`').unwrap()];
    assert_eq!(comment, "// tensor-lint: allow(leak)");
    // Follow the advice: the comment on the line before the finding's line.
    let line: usize = primary_lines(&err)[0]
        .split(':')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let mut lines: Vec<&str> = source.lines().collect();
    lines.insert(line - 1, comment);
    std::fs::write(dir.join("lib.rs"), lines.join("\n")).unwrap();
    let after = run(&dir);
    assert!(primary_lines(&after).is_empty(), "{after}");
    let _ = std::fs::remove_dir_all(dir);
}
