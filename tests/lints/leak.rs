//! The `leak` lint: memory not released on some path, and the releases that satisfy it.

use crate::common::lint::{findings, findings_with};

#[test]
fn question_mark_before_the_release_leaks_the_checkout() {
    let found = findings(
        "leak",
        r#"
pub struct Pool;
impl Pool {
    #[tensor_lint::alloc]
    pub fn checkout(&self, n: usize) -> *mut f32 {
        todo!()
    }
    #[tensor_lint::free(buf)]
    pub unsafe fn give_back(&self, buf: *mut f32, n: usize) {}
}
pub fn step(pool: &Pool, ok: Result<(), ()>) -> Result<(), ()> {
    let grid = pool.checkout(8);
    ok?;
    unsafe { pool.give_back(grid, 8) };
    Ok(())
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].message.contains("`?`"), "{}", found[0].message);
    assert!(found[0].has_help("Pool::give_back"), "{:?}", found[0].helps);
}

#[test]
fn early_return_gets_the_release_written_elsewhere_as_a_suggestion() {
    let source = r#"
pub fn k(l: std::alloc::Layout, bad: bool) {
    let p = unsafe { std::alloc::alloc(l) };
    if bad {
        return;
    }
    unsafe { std::alloc::dealloc(p, l) };
}
"#;
    let found = findings("leak", source);
    assert_eq!(found.len(), 1, "{found:?}");
    let edit = &found[0].edits[0];
    assert_eq!(edit.lo, edit.hi, "an insertion");
    assert_eq!(&source[edit.lo..edit.lo + "return;".len()], "return;");
    assert_eq!(edit.text, "unsafe { std::alloc::dealloc(p, l) };\n        ");
}

#[test]
fn configured_alloc_model_is_an_obligation_its_free_model_meets() {
    let config = r#"
[[models]]
path = "arena::take"
effect = "alloc"

[[models]]
path = "arena::put"
effect = "free"
arg = 0
"#;
    let arena = r#"
mod arena {
    extern "C" {
        pub fn take(n: usize) -> *mut f32;
        pub fn put(t: *mut f32);
    }
}
"#;
    let leaky = r#"
pub fn k(bad: bool) {
    let t = unsafe { arena::take(64) };
    if bad {
        return;
    }
    unsafe { arena::put(t) };
}
"#;
    let found = findings_with("leak", &[arena, leaky].concat(), Some(config));
    assert_eq!(found.len(), 1, "{found:?}");
    let fixed = r#"
pub fn k(bad: bool) {
    let t = unsafe { arena::take(64) };
    if bad {
        unsafe { arena::put(t) };
        return;
    }
    unsafe { arena::put(t) };
}
"#;
    let found = findings_with("leak", &[arena, fixed].concat(), Some(config));
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn release_on_every_path_is_quiet() {
    let found = findings(
        "leak",
        r#"
pub fn k(l: std::alloc::Layout, bad: bool) {
    let p = unsafe { std::alloc::alloc(l) };
    if p.is_null() {
        return;
    }
    if bad {
        unsafe { std::alloc::dealloc(p, l) };
        return;
    }
    unsafe { std::alloc::dealloc(p, l) };
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
    let found = findings(
        "leak",
        r#"
pub fn k(l: std::alloc::Layout, bad: bool) {
    let p = unsafe { std::alloc::alloc(l) };
    if p.is_null() {
        return;
    }
    if bad {
        return;
    }
    unsafe { std::alloc::dealloc(p, l) };
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn allocation_replaced_in_a_loop_is_reported_once() {
    let found = findings(
        "leak",
        r#"
pub fn k(l: std::alloc::Layout, n: usize) {
    let mut p = std::ptr::null_mut();
    for _ in 0..n {
        p = unsafe { std::alloc::alloc(l) };
    }
    unsafe { std::alloc::dealloc(p, l) };
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn pointer_passed_to_unknown_code_is_handed_on() {
    let found = findings(
        "leak",
        r#"
extern "C" {
    fn register(p: *mut u8);
}
pub fn k(l: std::alloc::Layout) {
    let p = unsafe { std::alloc::alloc(l) };
    unsafe { register(p) };
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
    let found = findings(
        "leak",
        r#"
pub fn k(l: std::alloc::Layout) {
    let p = unsafe { std::alloc::alloc(l) };
    let _ = p;
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn asserted_null_checkout_holds_nothing() {
    let pool = r#"
pub struct Pool;
impl Pool {
    #[tensor_lint::alloc]
    pub fn checkout(&self, n: usize) -> *mut f32 {
        todo!()
    }
}
"#;
    let over_budget = r#"
pub fn over_budget(pool: &Pool) {
    assert!(pool.checkout(1 << 30).is_null());
}
"#;
    let found = findings("leak", &[pool, over_budget].concat());
    assert!(found.is_empty(), "{found:?}");
    let held = r#"
pub fn held(pool: &Pool) {
    assert!(!pool.checkout(1 << 30).is_null());
}
"#;
    let found = findings("leak", &[pool, held].concat());
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn correlated_flag_allocation_and_release_is_quiet() {
    let found = findings(
        "leak",
        r#"
pub fn k(l: std::alloc::Layout, need: bool) {
    let p = if need { unsafe { std::alloc::alloc(l) } } else { std::ptr::null_mut() };
    if need {
        unsafe { std::alloc::dealloc(p, l) }
    }
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
    let found = findings(
        "leak",
        r#"
pub fn k(l: std::alloc::Layout, need: bool, done: bool) {
    let p = if need { unsafe { std::alloc::alloc(l) } } else { std::ptr::null_mut() };
    if done {
        unsafe { std::alloc::dealloc(p, l) }
    }
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn forgotten_vector_is_reported_at_the_forget() {
    let found = findings(
        "leak",
        r#"
pub fn k(n: usize) {
    let v = vec![0.0f32; n];
    let p = v.as_ptr();
    std::mem::forget(v);
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].label().contains("mem::forget"),
        "{:?}",
        found[0].labels
    );
}
