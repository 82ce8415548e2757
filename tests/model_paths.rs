//! Every row of the model table and of the table of roles
//! (`analyzer/src/models/paths.rs`) names an item of the library it is for: checked
//! with the compiler front end on a file that loads std, ndarray, rayon,
//! crossbeam-utils and crossbeam-epoch, so that a library moving an item (or a new
//! nightly moving one of std's) is a failing test rather than a model that silently
//! stops applying.

mod common;

use common::bin;

#[test]
fn every_model_row_of_a_loaded_library_resolves() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = bin()
        .current_dir(root)
        .arg("fixtures/ui/model-rows.rs")
        .env("TENSOR_LINT_CHECK_MODELS", "1")
        .output()
        .expect("the linter runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let unresolved: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("unresolved model row: "))
        .collect();
    assert!(
        unresolved.is_empty(),
        "rows that name nothing: {unresolved:?}"
    );
}
