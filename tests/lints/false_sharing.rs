//! `false_sharing`: threads repeatedly writing distinct bytes of one cache line.

use crate::common::lint::findings;

#[test]
fn packed_counters_bumped_in_a_loop_share_a_line() {
    let found = findings(
        "false_sharing",
        r#"
pub fn k(pts: &[f32], hits: &mut Vec<u64>) {
    std::thread::scope(|s| {
        for h in hits.iter_mut() {
            s.spawn(move || {
                for _p in pts {
                    *h += 1;
                }
            });
        }
    });
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].message.contains("64-byte cache line"),
        "{}",
        found[0].message
    );
    assert!(
        found[0].helps[0].contains("CachePadded<u64>"),
        "{:?}",
        found[0].helps
    );
}

#[test]
fn cache_padded_counters_do_not_share_a_line() {
    let found = findings(
        "false_sharing",
        r#"
#[repr(align(64))]
pub struct CachePadded<T>(T);

pub fn k(pts: &[f32], hits: &mut Vec<CachePadded<u64>>) {
    std::thread::scope(|s| {
        for h in hits.iter_mut() {
            s.spawn(move || {
                for _p in pts {
                    h.0 += 1;
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
fn neighbouring_struct_fields_bumped_by_two_tasks_share_a_line() {
    let found = findings(
        "false_sharing",
        r#"
struct Stats {
    hits: u64,
    misses: u64,
}

pub fn k(pts: &[f32]) {
    let mut s = Stats { hits: 0, misses: 0 };
    let (h, m) = (&mut s.hits, &mut s.misses);
    std::thread::scope(|sc| {
        sc.spawn(|| for _p in pts { *h += 1; });
        sc.spawn(|| for _p in pts { *m += 1; });
    });
}
"#,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].helps[0].contains("CachePadded<u64>` fields"),
        "{:?}",
        found[0].helps
    );
}

#[test]
fn counters_written_once_are_not_reported() {
    let found = findings(
        "false_sharing",
        r#"
pub fn k(hits: &mut Vec<u64>) {
    std::thread::scope(|s| {
        for h in hits.iter_mut() {
            s.spawn(move || *h = 1);
        }
    });
}
"#,
    );
    assert!(found.is_empty(), "{found:?}");
}
