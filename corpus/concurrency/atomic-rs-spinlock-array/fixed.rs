// repository: https://github.com/Amanieu/atomic-rs
// fix commit: fd59766cb0d35270a178fda1824ad6a778541ce2
// files: src/fallback.rs (SPINLOCKS, lock_for_addr, lock, LockGuard)
// lint: false_sharing
// release with the bug: atomic 0.3.4
// first fixed release: atomic 0.4.0
//
// Fixed shape: each spinlock is a word aligned to its own 64-byte line and
// the table has 64 of them.
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering};

#[repr(align(64))]
struct SpinLock(AtomicUsize);

macro_rules! array {
    (@twice [$($es:expr),*]) => { [$($es,)* $($es),*] };
    [$e:expr; 4] => { array!(@twice [$e, $e]) };
    [$e:expr; 16] => { array!(@twice [$e, $e, $e, $e, $e, $e, $e, $e]) };
}

#[allow(clippy::declare_interior_mutable_const)]
const UNLOCKED: SpinLock = SpinLock(AtomicUsize::new(0));
/// 4 x 16 = 64 cache-line-sized spinlocks.
static SPINLOCKS: [[SpinLock; 16]; 4] = array![array![UNLOCKED; 16]; 4];

fn lock_for_addr(addr: usize) -> &'static SpinLock {
    let mut hash = addr >> 4;
    let low = hash & 63;
    hash >>= 16;
    hash ^= low;
    let i = hash & 63;
    &SPINLOCKS[i / 16][i % 16]
}

struct LockGuard(&'static SpinLock);

impl Drop for LockGuard {
    fn drop(&mut self) {
        self.0 .0.store(0, Ordering::Release);
    }
}

fn lock(addr: usize) -> LockGuard {
    let l = lock_for_addr(addr);
    while l.0.compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed).is_err() {
        while l.0.load(Ordering::Relaxed) != 0 {
            std::hint::spin_loop();
        }
    }
    LockGuard(l)
}

unsafe fn atomic_store<T>(dst: *mut T, val: T) {
    let _l = lock(dst as usize);
    unsafe { std::ptr::write(dst, val) };
}

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
