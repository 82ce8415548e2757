#[tensor_lint::inplace(dst = a)]
fn named_argument(a: &mut [f32], b: &[f32]) {
    a.copy_from_slice(b);
}

#[tensor_lint::inplace(x)]
fn not_a_parameter(a: &mut [f32], b: &[f32]) {
    a.copy_from_slice(b);
}

#[tensor_lint::inplace(a, dst, a)]
fn missing_and_duplicate(a: &mut [f32], b: &[f32]) {
    a.copy_from_slice(b);
}

#[tensor_lint::inplace()]
fn empty(a: &mut [f32]) {
    a.fill(0.0);
}

fn main() {}
