//! The `double_free` lint: memory released twice, and the single releases it must leave alone.

use crate::common::lint::findings;

#[test]
fn dealloc_through_a_copied_pointer_is_a_second_release() {
    let found = findings(
        "double_free",
        r#"
pub fn k(l: std::alloc::Layout) {
    let p = unsafe { std::alloc::alloc(l) };
    let q = p;
    unsafe { std::alloc::dealloc(p, l) };
    unsafe { std::alloc::dealloc(q, l) };
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].notes.iter().any(|n| n.contains("same allocation")),
        "{:?}",
        found[0].notes
    );
}

#[test]
fn releases_on_exclusive_branches_are_quiet() {
    let found = findings(
        "double_free",
        r#"
pub fn k(l: std::alloc::Layout, c: bool) {
    let p = unsafe { std::alloc::alloc(l) };
    if c {
        unsafe { std::alloc::dealloc(p, l) }
    } else {
        unsafe { std::alloc::dealloc(p, l) }
    }
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn allocate_and_release_per_iteration_is_quiet() {
    let found = findings(
        "double_free",
        r#"
pub fn k(l: std::alloc::Layout, n: usize) {
    for _ in 0..n {
        let p = unsafe { std::alloc::alloc(l) };
        unsafe { std::alloc::dealloc(p, l) };
    }
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn release_inside_a_loop_of_an_outer_allocation_repeats() {
    let found = findings(
        "double_free",
        r#"
pub fn k(l: std::alloc::Layout, n: usize) {
    let p = unsafe { std::alloc::alloc(l) };
    for _ in 0..n {
        unsafe { std::alloc::dealloc(p, l) };
    }
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].message.contains("next iteration"),
        "{}",
        found[0].message
    );
}

#[test]
fn pointer_nulled_after_its_release_is_not_released_again() {
    let found = findings(
        "double_free",
        r#"
pub fn k(l: std::alloc::Layout, early: bool) {
    let mut p = unsafe { std::alloc::alloc(l) };
    if early {
        unsafe { std::alloc::dealloc(p, l) };
        p = std::ptr::null_mut();
    }
    if !p.is_null() {
        unsafe { std::alloc::dealloc(p, l) }
    }
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn owner_dropped_after_its_buffer_was_deallocated_frees_twice() {
    let found = findings(
        "double_free",
        r#"
pub fn k(n: usize, l: std::alloc::Layout) {
    let mut v = vec![0.0f32; n];
    unsafe { std::alloc::dealloc(v.as_mut_ptr() as *mut u8, l) };
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].label().contains("end of its scope"),
        "{:?}",
        found[0].labels
    );
}

#[test]
fn old_block_is_freed_where_realloc_failed() {
    let found = findings(
        "double_free",
        r#"
pub fn k(l: std::alloc::Layout) -> *mut u8 {
    let p = unsafe { std::alloc::alloc(l) };
    let q = unsafe { std::alloc::realloc(p, l, 64) };
    if q.is_null() {
        unsafe { std::alloc::dealloc(p, l) }
    }
    q
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn dropping_the_rebuilt_box_is_its_only_release() {
    let found = findings(
        "double_free",
        r#"
pub fn k(p: *mut [f32; 4]) {
    let b = unsafe { Box::from_raw(p) };
    drop(b);
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}
