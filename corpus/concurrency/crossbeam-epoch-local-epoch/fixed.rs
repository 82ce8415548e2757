// repository: https://github.com/crossbeam-rs/crossbeam
// fix commit: 4bb27dbe9f8ef0494148228b4c5c49e2196f44ab (backported to the 0.8 branch as d6f9a111)
// files: crossbeam-epoch/src/internal.rs (struct Local, Local::pin/unpin, Global::try_advance)
// lint: false_sharing
// release with the bug: crossbeam-epoch 0.9.15
// first fixed release: crossbeam-epoch 0.9.16
//
// Fixed shape: the epoch that other threads poll lives at the end of the
// record in its own cache line (`CachePadded`), away from the cells the
// owner updates on every pin.
use crossbeam_utils::CachePadded;
use std::cell::Cell;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::Arc;

/// One participant of the collector.
struct Local {
    next: AtomicPtr<Local>,
    collector: *const Global,
    guard_count: Cell<usize>,
    pin_count: Cell<usize>,
    epoch: CachePadded<AtomicUsize>,
}
unsafe impl Sync for Local {}
unsafe impl Send for Local {}

struct Global {
    epoch: AtomicUsize,
    locals: Vec<Arc<Local>>,
}

impl Local {
    /// Called by the owning thread around every access to shared data.
    fn pin(&self) {
        let count = self.guard_count.get();
        self.guard_count.set(count + 1);
        if count == 0 {
            let global = unsafe { &*self.collector };
            self.epoch.store(global.epoch.load(Ordering::Relaxed) | 1, Ordering::SeqCst);
            self.pin_count.set(self.pin_count.get().wrapping_add(1));
        }
    }

    fn unpin(&self) {
        let count = self.guard_count.get();
        self.guard_count.set(count - 1);
        if count == 1 {
            self.epoch.store(0, Ordering::Release);
        }
    }
}

impl Global {
    /// Called by any thread: can the global epoch move on?
    fn try_advance(&self) -> bool {
        let global = self.epoch.load(Ordering::Relaxed);
        for local in &self.locals {
            let e = local.epoch.load(Ordering::Relaxed);
            if e & 1 == 1 && e & !1 != global {
                return false;
            }
        }
        self.epoch.store(global + 2, Ordering::Release);
        true
    }
}

fn main() {
    let mut global = Arc::new(Global { epoch: AtomicUsize::new(0), locals: Vec::new() });
    let gp = Arc::as_ptr(&global);
    let locals: Vec<Arc<Local>> = (0..4)
        .map(|_| {
            Arc::new(Local {
                next: AtomicPtr::new(std::ptr::null_mut()),
                collector: gp,
                guard_count: Cell::new(0),
                pin_count: Cell::new(0),
                epoch: CachePadded::new(AtomicUsize::new(0)),
            })
        })
        .collect();
    Arc::get_mut(&mut global).unwrap().locals = locals.clone();
    std::thread::scope(|s| {
        for local in &locals {
            let global = &global;
            s.spawn(move || {
                for i in 0..1_000_000 {
                    local.pin();
                    if i % 128 == 0 {
                        global.try_advance();
                    }
                    local.unpin();
                }
            });
        }
    });
    println!("{}", global.epoch.load(Ordering::Relaxed));
}
