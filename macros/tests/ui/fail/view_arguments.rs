#[tensor_lint::view(off = data)]
fn misspelt(data: &[f32], r: usize) -> &[f32] {
    &data[r..]
}

#[tensor_lint::view(data)]
fn missing_key(data: &[f32], r: usize) -> &[f32] {
    &data[r..]
}

#[tensor_lint::view]
fn missing_argument(data: &[f32], r: usize) -> &[f32] {
    &data[r..]
}

#[tensor_lint::view(of = dat)]
fn not_a_parameter(data: &[f32], r: usize) -> &[f32] {
    &data[r..]
}

#[tensor_lint::view(of = data, of = r)]
fn duplicate(data: &[f32], r: usize) -> &[f32] {
    &data[r..]
}

#[tensor_lint::view(of = data)]
fn returns_nothing(data: &[f32]) {
    let _ = data;
}

fn main() {}
