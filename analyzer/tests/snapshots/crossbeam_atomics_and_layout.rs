use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicUsize, Ordering};

#[repr(align(64))]
struct Slot {
    hits: AtomicUsize,
}

struct Counters {
    padded: Vec<CachePadded<AtomicUsize>>,
    packed: [u64; 8],
}

fn count(slots: &[Slot], n: usize) {
    crossbeam::scope(|s| {
        for t in 0..n {
            s.spawn(move |_| {
                slots[t].hits.fetch_add(1, Ordering::Relaxed);
            });
        }
    })
    .unwrap();
}
