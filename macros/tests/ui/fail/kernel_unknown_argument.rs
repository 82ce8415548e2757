#[tensor_lint::kernel(asume(n >= 1))]
fn misspelt(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(hot)]
fn not_an_argument(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(n % 16 == 0)]
fn condition_outside_assume(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(assume)]
fn assume_without_a_list(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(assume(n >= 1), assume(n < 64))]
fn two_lists(n: usize) -> usize {
    n
}

fn main() {}
