// repository: https://github.com/crossbeam-rs/crossbeam
// fix commit: 4265dbed8e653104ac5ed2e16cdba5e6afd840c9 (backported to the 0.8 branch as 06e851f8)
// files: crossbeam-utils/src/atomic/atomic_cell.rs (fn lock), crossbeam-utils/src/atomic/seq_lock.rs
// lint: false_sharing
// release with the bug: crossbeam-utils 0.8.17
// first fixed release: crossbeam-utils 0.8.18
//
// Fixed shape: every lock of the table sits in its own cache line
// (`CachePadded<SeqLock>`), and the table has 67 entries.
use crossbeam_utils::CachePadded;
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
            let prev = self.state.swap(1, Ordering::Acquire);
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
    const LEN: usize = 67;
    #[allow(clippy::declare_interior_mutable_const)]
    const L: CachePadded<SeqLock> = CachePadded::new(SeqLock::new());
    static LOCKS: [CachePadded<SeqLock>; LEN] = [L; LEN];
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
