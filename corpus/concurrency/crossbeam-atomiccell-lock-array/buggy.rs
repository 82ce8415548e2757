// repository: https://github.com/crossbeam-rs/crossbeam
// fix commit: 4265dbed8e653104ac5ed2e16cdba5e6afd840c9 (backported to the 0.8 branch as 06e851f8)
// files: crossbeam-utils/src/atomic/atomic_cell.rs (fn lock, atomic_store/atomic_load/...), crossbeam-utils/src/atomic/seq_lock.rs (SeqLock::write)
// lint: false_sharing
// release with the bug: crossbeam-utils 0.8.17
// first fixed release: crossbeam-utils 0.8.18
//
// `AtomicCell<T>` for types without a native atomic falls back to a global
// table of sequence locks picked by address: `&LOCKS[addr % 97]`. Each
// `SeqLock` is a single `AtomicUsize` that every store swaps to "locked" and
// back, so 97 locks were packed eight to a 64-byte line. Threads updating
// *different* cells -- hashed to different locks on purpose, to spread
// contention -- still bounced the same few lines, and the effective
// concurrency was a handful of lines rather than 97 locks. The fix wraps each
// lock in `CachePadded` (and shrinks the table to 67 to bound its size).
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering};

struct SeqLock {
    state: AtomicUsize,
}

impl SeqLock {
    const fn new() -> Self {
        SeqLock { state: AtomicUsize::new(0) }
    }
    /// Takes the lock, runs `f`, releases with a new stamp.
    fn write<R>(&self, f: impl FnOnce() -> R) -> R {
        let prev = loop {
            let prev = self.state.swap(1, Ordering::Acquire); //~ false_sharing
            if prev != 1 {
                break prev;
            }
            std::hint::spin_loop();
        };
        let r = f();
        self.state.store(prev.wrapping_add(2), Ordering::Release);
        r
    }
}

/// The lock guarding the cell at `addr`.
fn lock(addr: usize) -> &'static SeqLock {
    const LEN: usize = 97;
    #[allow(clippy::declare_interior_mutable_const)]
    const L: SeqLock = SeqLock::new();
    static LOCKS: [SeqLock; LEN] = [L; LEN];
    &LOCKS[addr % LEN]
}

/// A cell too large for a native atomic.
struct WideCell {
    value: UnsafeCell<[u64; 3]>,
}
unsafe impl Sync for WideCell {}

impl WideCell {
    fn store(&self, v: [u64; 3]) {
        lock(self.value.get() as usize).write(|| unsafe { *self.value.get() = v });
    }
}

fn main() {
    let cells: Vec<WideCell> = (0..8).map(|_| WideCell { value: UnsafeCell::new([0; 3]) }).collect();
    std::thread::scope(|s| {
        for (t, cell) in cells.iter().enumerate() {
            s.spawn(move || {
                for i in 0..1_000_000u64 {
                    cell.store([i, t as u64, 0]);
                }
            });
        }
    });
    println!("{:?}", unsafe { *cells[0].value.get() });
}
