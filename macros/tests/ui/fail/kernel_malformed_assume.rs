struct Shape {
    rows: usize,
}

#[tensor_lint::kernel(assume())]
fn empty_list(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(assume(n % 16))]
fn not_a_comparison(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(assume(scale > 0.5))]
fn float_literal(scale: f32) -> f32 {
    scale
}

#[tensor_lint::kernel(assume(len(x) >= 1))]
fn function_call(x: &[f32]) -> usize {
    x.len()
}

#[tensor_lint::kernel(assume(x.len() % 16 == 0))]
fn method_call(x: &[f32]) -> usize {
    x.len()
}

#[tensor_lint::kernel(assume(shape.rows >= 1))]
fn field_access(shape: &Shape) -> usize {
    shape.rows
}

#[tensor_lint::kernel(assume(n >= 1 && n <= 64))]
fn conjunction(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(assume(1 <= n < 64))]
fn chained(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(assume(n << 4 == 64))]
fn shift(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(assume(n / 0 == 1))]
fn division_by_zero(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(assume(n >= std::usize::MIN))]
fn path(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(assume(16 % 16 == 0))]
fn constants_only(n: usize) -> usize {
    n
}

#[tensor_lint::kernel(assume(n > 0, m as i64 > 0, k == "4"))]
fn every_bad_condition_is_reported(n: usize, m: usize, k: usize) -> usize {
    n + m + k
}

fn main() {}
