//! `alias_race`: parallel tasks whose writes reach the same elements.

use crate::common::lint::{findings, findings_with_libraries};

#[test]
fn raw_halves_one_element_too_long_are_proven_under_assumptions() {
    let found = findings(
        "alias_race",
        r#"
#[tensor_lint::kernel(assume(n >= 2))]
pub fn k(v: &mut Vec<f32>, n: usize) {
    let p = v.as_mut_ptr();
    let a = unsafe { std::slice::from_raw_parts_mut(p, n / 2 + 1) };
    let b = unsafe { std::slice::from_raw_parts_mut(p.add(n / 2), n - n / 2) };
    std::thread::scope(|s| {
        s.spawn(|| a.fill(0.0));
        s.spawn(|| b.fill(1.0));
    });
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].message,
        "parallel tasks write overlapping elements of `v`"
    );
    assert!(
        found[0].notes[0].contains("both element"),
        "{:?}",
        found[0].notes
    );
}

#[test]
fn exact_raw_halves_do_not_race() {
    let found = findings(
        "alias_race",
        r#"
pub fn k(v: &mut Vec<f32>, n: usize) {
    let p = v.as_mut_ptr();
    let a = unsafe { std::slice::from_raw_parts_mut(p, n / 2) };
    let b = unsafe { std::slice::from_raw_parts_mut(p.add(n / 2), n - n / 2) };
    std::thread::scope(|s| {
        s.spawn(|| a.fill(0.0));
        s.spawn(|| b.fill(1.0));
    });
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn overlap_of_unknown_sizes_is_said_with_may() {
    let found = findings(
        "alias_race",
        r#"
pub fn k(v: &mut Vec<f32>, n: usize) {
    let p = v.as_mut_ptr();
    let a = unsafe { std::slice::from_raw_parts_mut(p, n) };
    let b = unsafe { std::slice::from_raw_parts_mut(p.add(4), 4) };
    std::thread::scope(|s| {
        s.spawn(|| a.fill(0.0));
        s.spawn(|| b.fill(1.0));
    });
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].message.contains("may write"),
        "{}",
        found[0].message
    );
}

#[test]
fn safe_split_at_mut_is_left_to_the_borrow_checker() {
    let found = findings(
        "alias_race",
        r#"
pub fn k(v: &mut [f32]) {
    let (a, b) = v.split_at_mut(4);
    std::thread::scope(|s| {
        s.spawn(|| a.fill(0.0));
        s.spawn(|| b.fill(1.0));
    });
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn spawned_threads_writing_one_address_race_with_each_other() {
    let found = findings(
        "alias_race",
        r#"
pub fn k(v: &mut Vec<u32>) {
    let addr = v.as_mut_ptr() as usize;
    std::thread::scope(|s| {
        for t in 0..4 {
            s.spawn(move || unsafe { *(addr as *mut u32) = t });
        }
    });
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .message
            .starts_with("parallel iterations write the same"),
        "{}",
        found[0].message
    );
}

#[test]
fn loop_variables_inside_a_task_are_bounded_by_their_loop() {
    let found = findings(
        "alias_race",
        r#"
pub fn k(v: &mut Vec<u32>, w: usize) {
    let addr = v.as_mut_ptr() as usize;
    std::thread::scope(|s| {
        for t in 0..4 {
            s.spawn(move || {
                let p = addr as *mut u32;
                for j in 0..w {
                    unsafe { *p.add(t * w + j) = 1 };
                }
            });
        }
    });
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn scope_body_writes_after_a_spawn_race_with_it() {
    let found = findings(
        "alias_race",
        r#"
#[tensor_lint::kernel(assume(n >= 1))]
pub fn k(v: &mut Vec<u32>, n: usize) {
    let addr = v.as_mut_ptr() as usize;
    std::thread::scope(|s| {
        s.spawn(move || {
            let p = addr as *mut u32;
            for i in 0..n {
                unsafe { *p.add(i) = 0 };
            }
        });
        unsafe { *(addr as *mut u32) = 1 };
    });
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].message,
        "parallel tasks write overlapping elements of `v`"
    );
    assert!(
        found[0].notes[0].starts_with("the scope body writes"),
        "{:?}",
        found[0].notes
    );
}

#[test]
fn scope_body_writes_before_the_first_spawn_do_not_race() {
    let found = findings(
        "alias_race",
        r#"
pub fn k(v: &mut Vec<u32>, n: usize) {
    let addr = v.as_mut_ptr() as usize;
    std::thread::scope(|s| {
        unsafe { *(addr as *mut u32) = 1 };
        s.spawn(move || {
            let p = addr as *mut u32;
            for i in 0..n {
                unsafe { *p.add(i) = 0 };
            }
        });
    });
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn preparing_each_part_before_spawning_its_task_does_not_race() {
    let found = findings(
        "alias_race",
        r#"
pub fn k(v: &mut Vec<u32>) {
    let addr = v.as_mut_ptr() as usize;
    std::thread::scope(|s| {
        for t in 0..4 {
            unsafe { *(addr as *mut u32).add(t) = 0 };
            s.spawn(move || unsafe { *(addr as *mut u32).add(t) += 1 });
        }
    });
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn bands_with_a_shorter_last_band_are_decided_without_the_solver() {
    let found = findings(
        "alias_race",
        r#"
struct SendPtr(*mut f32);
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}

#[tensor_lint::kernel(assume(band >= 1))]
pub unsafe fn k(rows: usize, cols: usize, band: usize, out: *mut f32) {
    let out = &SendPtr(out);
    std::thread::scope(|s| {
        for b in 0..rows.div_ceil(band) {
            s.spawn(move || {
                let first = b * band;
                let height = band.min(rows - first);
                let tile = unsafe {
                    std::slice::from_raw_parts_mut(out.0.add(first * cols), height * cols)
                };
                for r in 0..height {
                    for c in 0..cols {
                        tile[r * cols + c] += 1.0;
                    }
                }
            });
        }
    });
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_read_another_task_may_overwrite_says_it_may_write() {
    let text = r#"
pub fn f(v: &mut [f32], k: usize) -> f32 {
    let p = v.as_mut_ptr() as usize;
    let n = v.len();
    let mut sum = 0.0;
    std::thread::scope(|s| {
        s.spawn(|| unsafe { *(p as *mut f32).add(k) = 1.0 });
        s.spawn(|| {
            for i in 0..n {
                sum += unsafe { *(p as *const f32).add(i) };
            }
        });
    });
    sum
}
"#;
    let found = findings("alias_race", text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].level, "warning");
    assert_eq!(
        found[0].message,
        "a parallel task reads elements of `v` that another task may write"
    );
    assert!(found[0].has_label("task 2 reads `p` here"), "{found:?}");
    // The write past the elements read: no overlap.
    let past = text.replace(".add(k) = 1.0", ".add(n + k) = 1.0");
    assert!(findings("alias_race", &past).is_empty());
}

#[test]
fn crossbeam_scoped_threads_are_tasks() {
    let text = r#"
pub fn halves(v: &mut [f32]) {
    let n = v.len();
    let p = v.as_mut_ptr() as usize;
    crossbeam_utils::thread::scope(|s| {
        s.spawn(|_| unsafe { std::slice::from_raw_parts_mut(p as *mut f32, n / 2 + 1) }.fill(1.0));
        s.spawn(|_| {
            let rest = unsafe { std::slice::from_raw_parts_mut((p as *mut f32).add(n / 2), n - n / 2) };
            rest.fill(2.0)
        });
    })
    .unwrap();
}
"#;
    let found = findings_with_libraries("alias_race", text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].notes[0].contains("both element"), "{found:?}");
    // Halves that meet.
    let exact = text.replace("n / 2 + 1)", "n / 2)");
    assert!(findings_with_libraries("alias_race", &exact).is_empty());
}
