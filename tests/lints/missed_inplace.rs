//! The `missed_inplace` lint: an out-of-place op in a kernel whose owned input dies right there.

use crate::common::lint::findings_with_libraries;

/// A kernel whose owned `x` dies at its `mapv`.
const DEAD_INPUT: &str = r#"
#[tensor_lint::kernel]
pub fn k(x: ndarray::Array2<f32>) -> ndarray::Array2<f32> {
    let y = x.mapv(|v| v + 1.0);
    y
}
"#;

#[test]
fn dead_owned_input_of_mapv_gets_a_machine_applicable_rename() {
    let found = findings_with_libraries("missed_inplace", DEAD_INPUT);
    assert_eq!(found.len(), 1, "{found:?}");
    let edit = &found[0].edits[0];
    assert_eq!(edit.applicability, "MachineApplicable");
    assert_eq!(edit.text, "mapv_into_any");
    assert_eq!(
        &DEAD_INPUT[edit.lo..edit.hi],
        "mapv",
        "only the method name is renamed"
    );
}

#[test]
fn input_used_later_or_outside_a_kernel_is_not_reported() {
    let later = r#"
#[tensor_lint::kernel]
pub fn k(x: ndarray::Array2<f32>) -> f32 {
    let y = x.mapv(|v| v + 1.0);
    x.sum() + y.sum()
}
"#;
    let found = findings_with_libraries("missed_inplace", later);
    assert!(found.is_empty(), "{found:?}");
    let cold = r#"
pub fn k(x: ndarray::Array2<f32>) -> ndarray::Array2<f32> {
    x.mapv(|v| v + 1.0)
}
"#;
    let found = findings_with_libraries("missed_inplace", cold);
    assert!(found.is_empty(), "{found:?}");
    let hot = format!("#[tensor_lint::kernel]{cold}");
    assert_eq!(findings_with_libraries("missed_inplace", &hot).len(), 1);
}

#[test]
fn input_used_again_inside_the_expression_is_not_moved() {
    let inside = r#"
#[tensor_lint::kernel]
pub fn k(x: ndarray::Array2<f32>) -> ndarray::Array2<f32> {
    let y = &x - x.sum();
    y
}
"#;
    let found = findings_with_libraries("missed_inplace", inside);
    assert!(found.is_empty(), "{found:?}");
    let before = r#"
#[tensor_lint::kernel]
pub fn k(x: ndarray::Array2<f32>) -> ndarray::Array2<f32> {
    let s = x.sum();
    let y = &x - s;
    y
}
"#;
    assert_eq!(findings_with_libraries("missed_inplace", before).len(), 1);
}

#[test]
fn borrowed_left_operand_is_taken_by_value() {
    let source = r#"
#[tensor_lint::kernel]
pub fn k(x: ndarray::Array2<f32>, m: f32) -> ndarray::Array2<f32> {
    let y = &x - m;
    y
}
"#;
    let found = findings_with_libraries("missed_inplace", source);
    assert_eq!(found.len(), 1, "{found:?}");
    let edit = &found[0].edits[0];
    assert!(edit.text.is_empty(), "{edit:?}");
    assert_eq!(&source[edit.lo..edit.hi], "&", "only the `&` goes");
}
