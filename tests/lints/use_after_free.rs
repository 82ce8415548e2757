//! The `use_after_free` lint: memory used after its release, and uses it must leave alone.

use crate::common::lint::findings;

#[test]
fn read_through_a_pointer_after_dealloc_is_reported() {
    let found = findings(
        "use_after_free",
        r#"
pub fn k(l: std::alloc::Layout) -> f32 {
    let p = unsafe { std::alloc::alloc(l) } as *mut f32;
    unsafe { std::alloc::dealloc(p as *mut u8, l) };
    let x = unsafe { *p };
    x
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].message.contains("read"), "{}", found[0].message);
}

#[test]
fn use_before_the_release_is_quiet() {
    let found = findings(
        "use_after_free",
        r#"
pub fn k(l: std::alloc::Layout) {
    let p = unsafe { std::alloc::alloc(l) } as *mut f32;
    unsafe { *p = 1.0 };
    unsafe { std::alloc::dealloc(p as *mut u8, l) };
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn raw_pointer_into_a_dropped_vector_dangles() {
    let found = findings(
        "use_after_free",
        r#"
pub fn k(n: usize) -> f32 {
    let p = {
        let v = vec![0.0f32; n];
        v.as_ptr()
    };
    unsafe { *p }
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].labels.len() > 1 && found[0].labels[1].1.contains("end of its scope"),
        "{:?}",
        found[0].labels
    );
}

#[test]
fn element_cast_to_a_number_after_the_release_is_a_read() {
    let found = findings(
        "use_after_free",
        r#"
pub fn k(l: std::alloc::Layout) -> f64 {
    let p = unsafe { std::alloc::alloc(l) } as *mut f32;
    unsafe { std::alloc::dealloc(p as *mut u8, l) };
    let x = unsafe { *p.add(1) } as f64;
    x
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].message.contains("is read"), "{}", found[0].message);
}

#[test]
fn owner_borrowed_after_an_explicit_drop_is_not_reported_without_a_raw_pointer() {
    // Safe code cannot do this; what the analyzer sees must not become a finding.
    let found = findings(
        "use_after_free",
        r#"
pub fn k(n: usize) -> usize {
    let v = vec![0.0f32; n];
    let len = v.len();
    drop(v);
    len
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn rebuilt_box_may_be_used() {
    let found = findings(
        "use_after_free",
        r#"
pub fn k(p: *mut [f32; 4]) -> f32 {
    let b = unsafe { Box::from_raw(p) };
    b[0]
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}
