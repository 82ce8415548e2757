//! The `unsafe_inplace` lint: in-place ops that clobber a value still needed.

use crate::common::lint::{findings_with_libraries, Finding};

fn findings(source: &str) -> Vec<Finding> {
    findings_with_libraries("unsafe_inplace", source)
}

/// `x` read after its `relu_` was bound to `y`: `x` was meant as the value before it.
const READ_AFTER_RENAMING: &str = r#"
pub fn k(mut x: tch::Tensor) -> tch::Tensor {
    let y = x.relu_();
    let z = &x + &y;
    z
}
"#;

#[test]
fn original_binding_read_after_its_relu_is_bound_to_a_new_name_is_reported() {
    let found = findings(READ_AFTER_RENAMING);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].message.contains("read again"),
        "{}",
        found[0].message
    );
}

#[test]
fn accumulator_read_after_the_op_is_not_reported() {
    let accumulator = r#"
pub fn k(mut x: tch::Tensor) -> tch::Tensor {
    x.relu_();
    &x * 2.0
}
"#;
    let found = findings(accumulator);
    assert!(found.is_empty(), "{found:?}");
    let result = r#"
pub fn k(mut x: tch::Tensor) -> tch::Tensor {
    let y = x.relu_();
    &y * 2.0
}
"#;
    let found = findings(result);
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(findings(READ_AFTER_RENAMING).len(), 1);
}

#[test]
fn writing_a_row_then_reading_its_array_is_not_reported() {
    let array = r#"
pub fn k(a: &mut ndarray::Array2<f32>) -> f32 {
    let mut r = a.row_mut(0);
    r.mapv_inplace(|v| v * 2.0);
    a.sum()
}
"#;
    let found = findings(array);
    assert!(found.is_empty(), "{found:?}");
    let pointer_into_the_row = r#"
pub fn k(a: &mut ndarray::Array2<f32>) -> f32 {
    let mut r = a.row_mut(0);
    let p = r.as_ptr();
    r.mapv_inplace(|v| v * 2.0);
    unsafe { *p }
}
"#;
    assert_eq!(findings(pointer_into_the_row).len(), 1);
}

#[test]
fn same_map_on_both_sides_is_safe_and_transpose_is_not() {
    let same = r#"
use tch::{Device, Kind, Tensor};
pub fn k() {
    let mut w = Tensor::zeros([4, 4], (Kind::Float, Device::Cpu));
    w.g_add_(&w.shallow_clone());
}
"#;
    let found = findings(same);
    assert!(found.is_empty(), "{found:?}");
    let transposed = same.replace("w.shallow_clone()", "w.tr()");
    let found = findings(&transposed);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .notes
            .iter()
            .any(|n| n.contains("both reach element")),
        "{:?}",
        found[0].notes
    );
}

#[test]
fn in_place_op_inside_no_grad_on_a_leaf_is_not_reported() {
    let inside = r#"
use tch::{Device, Kind, Tensor};
pub fn k(g: Tensor) {
    let mut w = Tensor::zeros([4], (Kind::Float, Device::Cpu)).set_requires_grad(true);
    tch::no_grad(|| {
        w.g_sub_(&g);
    });
}
"#;
    let found = findings(inside);
    assert!(found.is_empty(), "{found:?}");
    let outside = inside.replace(
        "tch::no_grad(|| {\n        w.g_sub_(&g);\n    });",
        "w.g_sub_(&g);",
    );
    assert_ne!(outside, inside);
    assert_eq!(findings(&outside).len(), 1);
}
