//! The `alloc_in_loop` lint: a kernel allocating a buffer of unchanging size on every iteration.

use crate::common::lint::findings;

#[test]
fn fixed_size_buffer_in_a_kernel_loop_is_reported_and_growing_one_is_not() {
    let fixed = r#"
#[tensor_lint::kernel]
pub fn k(n: usize) {
    for _ in 0..n {
        let t = vec![0.0f32; 64];
        let _ = t;
    }
}
"#;
    let found = findings("alloc_in_loop", fixed);
    assert_eq!(found.len(), 1, "{found:?}");
    let growing = r#"
#[tensor_lint::kernel]
pub fn k(n: usize) {
    for i in 0..n {
        let t = vec![0.0f32; i];
        let _ = t;
    }
}
"#;
    let found = findings("alloc_in_loop", growing);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn buffer_kept_by_the_iteration_is_not_reported() {
    let kept = r#"
#[tensor_lint::kernel]
pub fn k(n: usize) -> Vec<Vec<f32>> {
    let mut out = Vec::new();
    for _ in 0..n {
        let t = vec![0.0f32; 8];
        out.push(t);
    }
    out
}
"#;
    let found = findings("alloc_in_loop", kept);
    assert!(found.is_empty(), "{found:?}");
    let dropped = r#"
#[tensor_lint::kernel]
pub fn k(n: usize, out: &mut Vec<f32>) {
    for _ in 0..n {
        let t = vec![0.0f32; 8];
        out.extend_from_slice(&t);
    }
}
"#;
    let found = findings("alloc_in_loop", dropped);
    assert_eq!(found.len(), 1, "{found:?}");
}
