// repository: https://github.com/tokio-rs/tokio
// fix commit: c17ecb53e7b8be7182198f91010d4c3dc3295126
// files: tokio-threadpool/src/worker/entry.rs (WorkerEntry::state), tokio-threadpool/src/task/queue.rs (Queue::head), tokio-threadpool/src/pool/mod.rs (Pool::state, Pool::sleep_stack, Pool::workers)
// lint: false_sharing
// release with the bug: tokio-threadpool 0.1.5
// first fixed release: tokio-threadpool 0.1.6
//
// The thread pool keeps one `WorkerEntry` per worker in a
// `Box<[WorkerEntry]>`. Each worker CASes its own `entry.state` all the time
// (running / sleeping / notified transitions), and any thread that submits
// work to worker j swaps `entries[j].inbound.head` and CASes
// `entries[j].state`. The entries were packed back to back, so worker i's
// hot state word shared a cache line with the tail of entry i-1 (its
// inbound queue head) -- per-worker words written by different threads on
// one line. The same went for the pool-wide `state` and `sleep_stack`
// words. The fix wraps `WorkerEntry::state`, `Queue::head`, `Pool::state`
// and `Pool::sleep_stack` in `CachePadded` (7-11% faster spawn benchmark).
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

struct Task {
    next: AtomicPtr<Task>,
}

/// MPSC queue of tasks submitted to one worker from outside.
struct Queue {
    head: AtomicPtr<Task>,
    tail: UnsafeCell<*mut Task>,
}

struct WorkerEntry {
    state: AtomicUsize,
    next_sleeper: UnsafeCell<usize>,
    inbound: Queue,
}
unsafe impl Sync for WorkerEntry {}

const PUSHED: usize = 1;

impl WorkerEntry {
    /// The worker itself, once per loop iteration.
    fn fetch_unset_pushed(&self) -> usize {
        self.state.fetch_and(!PUSHED, Ordering::AcqRel) //~ false_sharing
    }

    /// Any other thread handing this worker a task.
    fn submit_external(&self, task: *mut Task) {
        let prev = self.inbound.head.swap(task, Ordering::AcqRel);
        unsafe { (*prev).next.store(task, Ordering::Release) };
        self.state.fetch_or(PUSHED, Ordering::AcqRel);
    }
}

fn main() {
    let stubs: Vec<Box<Task>> = (0..4).map(|_| Box::new(Task { next: AtomicPtr::new(std::ptr::null_mut()) })).collect();
    let workers: Box<[WorkerEntry]> = stubs
        .iter()
        .map(|s| {
            let p = &**s as *const Task as *mut Task;
            WorkerEntry {
                state: AtomicUsize::new(0),
                next_sleeper: UnsafeCell::new(0),
                inbound: Queue { head: AtomicPtr::new(p), tail: UnsafeCell::new(p) },
            }
        })
        .collect();
    let jobs: Vec<Task> = (0..400_000).map(|_| Task { next: AtomicPtr::new(std::ptr::null_mut()) }).collect();
    std::thread::scope(|s| {
        for w in 0..workers.len() {
            let workers = &workers;
            s.spawn(move || {
                for _ in 0..1_000_000 {
                    workers[w].fetch_unset_pushed();
                }
            });
        }
        let (workers, jobs) = (&workers, &jobs);
        s.spawn(move || {
            for (i, job) in jobs.iter().enumerate() {
                workers[i % workers.len()].submit_external(job as *const Task as *mut Task);
            }
        });
    });
    println!("{}", unsafe { *workers[0].next_sleeper.get() } + unsafe { (*workers[0].inbound.tail.get()).is_null() } as usize);
}
