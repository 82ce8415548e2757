// repository: https://github.com/crossbeam-rs/crossbeam
// fix commit: 4bb27dbe9f8ef0494148228b4c5c49e2196f44ab (backported to the 0.8 branch as d6f9a111)
// files: crossbeam-epoch/src/internal.rs (struct Local, Local::pin/unpin, Global::try_advance)
// lint: false_sharing
// release with the bug: crossbeam-epoch 0.9.15
// first fixed release: crossbeam-epoch 0.9.16
//
// Every thread registered with the epoch collector owns a `Local` record in
// a global intrusive list. The owner stores into `local.epoch` on every
// pin/unpin and bumps its bookkeeping cells (`guard_count`, `pin_count`)
// next to it, while any thread that tries to advance the global epoch walks
// the list and loads every participant's `epoch` and list link. `epoch` sat
// between the list `entry` and the collector pointer, on the same line as
// the fields the owner writes constantly, so scanners and owners kept
// stealing that line from each other (perf c2c showed heavy contention,
// crossbeam #1020). The fix moves `epoch` to the end of the struct inside
// `CachePadded`, giving it a line of its own.
use std::cell::Cell;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::Arc;

/// One participant of the collector.
struct Local {
    next: AtomicPtr<Local>,
    epoch: AtomicUsize,
    collector: *const Global,
    guard_count: Cell<usize>,
    pin_count: Cell<usize>,
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
        self.guard_count.set(count + 1); //~ false_sharing
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
                epoch: AtomicUsize::new(0),
                collector: gp,
                guard_count: Cell::new(0),
                pin_count: Cell::new(0),
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
