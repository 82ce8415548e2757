// repository: https://github.com/Amanieu/atomic-rs
// fix commit: fd59766cb0d35270a178fda1824ad6a778541ce2
// files: src/fallback.rs (SPINLOCKS, lock_for_addr, lock, LockGuard)
// lint: false_sharing
// release with the bug: atomic 0.3.4
// first fixed release: atomic 0.4.0
//
// `Atomic<T>` for types without a native atomic guards each access with a
// spinlock chosen by hashing the object's address into a static table of
// 1024 `AtomicBool`s (built by a recursive `macro_rules! array!`). The lock
// is taken with a compare-and-swap and released by the guard's `Drop`
// (a store). With one byte per lock, 64 locks share each cache line, so
// threads working on unrelated atomics -- hashed to different locks --
// still write the same line on every acquire and release: the 1024-way table
// behaved like a 16-way one (atomic-rs #1). The fix makes each lock a
// `#[repr(align(64))]` word and shrinks the table to 64 entries.
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, Ordering};

macro_rules! array {
    (@twice [$($es:expr),*]) => { [$($es,)* $($es),*] };
    [$e:expr; 4] => { array!(@twice [$e, $e]) };
    [$e:expr; 16] => { array!(@twice [$e, $e, $e, $e, $e, $e, $e, $e]) };
}

#[allow(clippy::declare_interior_mutable_const)]
const UNLOCKED: AtomicBool = AtomicBool::new(false);
/// 16 x 16 = 256 one-byte spinlocks.
static SPINLOCKS: [[AtomicBool; 16]; 16] = array![array![UNLOCKED; 16]; 16];

fn lock_for_addr(addr: usize) -> &'static AtomicBool {
    let mut hash = addr >> 4;
    let low = hash & 255;
    hash >>= 16;
    hash ^= low;
    let i = hash & 255;
    &SPINLOCKS[i / 16][i % 16]
}

struct LockGuard(&'static AtomicBool);

impl Drop for LockGuard {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

fn lock(addr: usize) -> LockGuard {
    let l = lock_for_addr(addr);
    while l.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {} //~ false_sharing
    LockGuard(l)
}

unsafe fn atomic_store<T>(dst: *mut T, val: T) {
    let _l = lock(dst as usize);
    unsafe { std::ptr::write(dst, val) };
}

/// A value too wide for a native atomic.
struct Wide(UnsafeCell<[u64; 2]>);
unsafe impl Sync for Wide {}

fn main() {
    let cells: Vec<Box<Wide>> = (0..4).map(|_| Box::new(Wide(UnsafeCell::new([0; 2])))).collect();
    std::thread::scope(|s| {
        for (t, c) in cells.iter().enumerate() {
            s.spawn(move || {
                for i in 0..1_000_000u64 {
                    unsafe { atomic_store(c.0.get(), [i, t as u64]) };
                }
            });
        }
    });
    println!("{:?}", unsafe { *cells[1].0.get() });
}
