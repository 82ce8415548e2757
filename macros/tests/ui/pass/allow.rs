//! `#[tensor_lint::allow]` on every kind of item, with and without the tool prefix.

#[tensor_lint::allow(false_sharing)]
struct Counters {
    per_thread: [u64; 8],
}

#[tensor_lint::allow(tensor_lint::alias_race, unsafe_inplace)]
impl Counters {
    #[tensor_lint::allow(leak, double_free, use_after_free)]
    fn bump(&mut self, thread: usize) -> u64 {
        self.per_thread[thread] += 1;
        self.per_thread[thread]
    }
}

#[tensor_lint::allow(missed_inplace, alloc_in_loop)]
#[tensor_lint::kernel(assume(n >= 1))]
fn scaled(x: &[f32], n: usize) -> Vec<f32> {
    x.iter().take(n).map(|v| v * 2.0).collect()
}

#[tensor_lint::allow(alias_race)]
mod parallel {
    pub fn halves(x: &mut [f32]) -> (&mut [f32], &mut [f32]) {
        let mid = x.len() / 2;
        x.split_at_mut(mid)
    }
}

#[tensor_lint::allow(leak)]
trait Arena {
    fn reset(&mut self);
}

impl Arena for Counters {
    fn reset(&mut self) {
        self.per_thread = [0; 8];
    }
}

#[tensor_lint::allow(false_sharing)]
enum Layout {
    Packed,
    Padded,
}

#[tensor_lint::allow(false_sharing)]
static SLOTS: [u64; 4] = [0; 4];

#[tensor_lint::allow(tensor_lint::leak)]
const BLOCK: usize = 16;

/// Lint names passed through `macro_rules!` fragments.
macro_rules! quietly {
    ($lint:path, $item:item) => {
        #[tensor_lint::allow($lint)]
        $item
    };
}

quietly!(
    tensor_lint::alloc_in_loop,
    fn generated() -> u8 {
        3
    }
);

fn main() {
    #[tensor_lint::allow(alloc_in_loop)]
    fn local_helper() -> usize {
        BLOCK
    }

    let mut counters = Counters { per_thread: [0; 8] };
    assert_eq!(counters.bump(3), 1);
    counters.reset();
    assert_eq!(counters.per_thread, [0; 8]);
    assert_eq!(scaled(&[1.0, 2.0, 3.0], 2), [2.0, 4.0]);
    let mut data = [1.0, 2.0, 3.0, 4.0];
    let (a, b) = parallel::halves(&mut data);
    assert_eq!((a.len(), b.len()), (2, 2));
    assert_eq!(local_helper(), 16);
    assert_eq!(generated(), 3);
    assert_eq!(SLOTS.len(), 4);
    assert!(matches!(Layout::Padded, Layout::Padded));
    let _ = Layout::Packed;
}
