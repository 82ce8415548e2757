//! Threads of the analysis: a parallel map over independent items (the targets of a
//! run, the functions whose dataflow facts are computed), on threads with stacks big
//! enough for syn's recursion.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Stack of every worker thread: deep expressions recurse (the lowering bounds its own
/// depth, syn's parser does not), and the memory is only reserved, not used.
pub const WORKER_STACK_BYTES: usize = 512 << 20;

/// Runs `work` on every item on up to `threads` big-stack threads named `name`, each
/// taking the next item when done with one; results come back in the order of
/// `items`. A panic in `work` is raised again here, with its payload, once every
/// thread has stopped.
pub fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    name: &str,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.min(items.len()).max(1);
    if threads == 1 {
        return items.iter().map(work).collect();
    }
    let next = AtomicUsize::new(0);
    type Slot<R> = Mutex<Option<std::thread::Result<R>>>;
    let slots: Vec<Slot<R>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let spawned = std::thread::Builder::new()
                .name(name.to_string())
                .stack_size(WORKER_STACK_BYTES)
                .spawn_scoped(scope, || loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    let result =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(item)));
                    let failed = result.is_err();
                    *slots[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
                    if failed {
                        break;
                    }
                });
            if spawned.is_err() {
                break; // the threads already running (or this one, below) take the rest
            }
        }
    });
    // Whatever no thread took (none could be started, or one failed) runs here.
    items
        .iter()
        .zip(slots)
        .map(
            |(item, slot)| match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
                Some(Ok(result)) => result,
                Some(Err(payload)) => std::panic::resume_unwind(payload),
                None => work(item),
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_map_keeps_the_order_of_the_items() {
        let items: Vec<u64> = (0..500).collect();
        let squares = parallel_map(&items, 3, "tensor-lint-test", |&x| x * x);
        assert_eq!(squares, items.iter().map(|x| x * x).collect::<Vec<_>>());
    }

    #[test]
    fn parallel_map_raises_the_panic_of_an_item() {
        let items: Vec<u32> = (0..50).collect();
        let outcome = std::panic::catch_unwind(|| {
            parallel_map(&items, 2, "tensor-lint-test", |&x| {
                assert!(x != 37, "item {x} failed");
                x
            })
        });
        let payload = outcome.expect_err("the panic comes back");
        let message = payload.downcast_ref::<String>().map(String::as_str);
        assert_eq!(message, Some("item 37 failed"));
    }
}
