// repository: https://github.com/tokio-rs/tokio
// fix commit: 38d1bcd9df6af2de436c5f898829d071f8e46988
// files: tokio/src/sync/mpsc/chan.rs (struct Chan, fn channel), tokio/src/util/cacheline.rs (new CachePadded)
// lint: false_sharing
// release with the bug: tokio 1.29.1
// first fixed release: tokio 1.30.0
//
// The shared state of an mpsc channel is one `Chan` behind an `Arc`. Senders
// claim a slot with `tx.tail_position.fetch_add` and wake the receiver
// through `rx_waker`; the single receiver advances its own `rx_fields`
// (current block and read index) on every message and re-registers its
// waker. All of these were plain neighbouring fields, so the senders' tail
// counter and the receiver's cursor lived on the same cache lines: each send
// and each receive invalidated the line the other side was about to write.
// The fix puts `tx` and `rx_waker` first, each in a `CachePadded`, so the
// sender-written and receiver-written parts of `Chan` no longer share lines.
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Push half of the block list.
struct Tx {
    block_tail: AtomicUsize,
    tail_position: AtomicUsize,
}

/// Fields only the receiver touches.
struct RxFields {
    index: usize,
    closed: bool,
}

struct Chan {
    notify_rx_closed: AtomicUsize,
    tx: Tx,
    semaphore: AtomicUsize,
    rx_waker: AtomicUsize,
    tx_count: AtomicUsize,
    rx_fields: UnsafeCell<RxFields>,
    slots: Vec<AtomicUsize>,
}
unsafe impl Sync for Chan {}

impl Chan {
    /// Sender side.
    fn send(&self, v: usize) {
        let slot = self.tx.tail_position.fetch_add(1, Ordering::AcqRel); //~ false_sharing
        self.slots[slot % self.slots.len()].store(v + 1, Ordering::Release);
        self.rx_waker.fetch_or(1, Ordering::AcqRel);
    }

    /// Receiver side (only one thread).
    unsafe fn recv(&self) -> Option<usize> {
        let rx = unsafe { &mut *self.rx_fields.get() };
        let slot = &self.slots[rx.index % self.slots.len()];
        let v = slot.swap(0, Ordering::Acquire);
        if v == 0 {
            self.rx_waker.store(0, Ordering::Release);
            return None;
        }
        rx.index += 1;
        Some(v - 1)
    }
}

fn main() {
    let chan = Arc::new(Chan {
        notify_rx_closed: AtomicUsize::new(0),
        tx: Tx { block_tail: AtomicUsize::new(0), tail_position: AtomicUsize::new(0) },
        semaphore: AtomicUsize::new(0),
        rx_waker: AtomicUsize::new(0),
        tx_count: AtomicUsize::new(1),
        rx_fields: UnsafeCell::new(RxFields { index: 0, closed: false }),
        slots: (0..1 << 20).map(|_| AtomicUsize::new(0)).collect(),
    });
    std::thread::scope(|s| {
        for t in 0..3 {
            let chan = &chan;
            s.spawn(move || {
                for i in 0..100_000 {
                    chan.send(t * 100_000 + i);
                }
            });
        }
        let chan = &chan;
        s.spawn(move || {
            let mut got = 0;
            while got < 300_000 {
                if unsafe { chan.recv() }.is_some() {
                    got += 1;
                }
            }
        });
    });
    println!("{}", chan.tx.tail_position.load(Ordering::Relaxed));
}
