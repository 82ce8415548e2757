#[tensor_lint::kernel]
struct Tile {
    data: [f32; 16],
}

#[tensor_lint::alloc]
impl Tile {
    fn zeroed() -> Tile {
        Tile { data: [0.0; 16] }
    }
}

#[tensor_lint::free(x)]
const BLOCK: usize = 16;

#[tensor_lint::view(of = x)]
mod views {}

#[tensor_lint::inplace(x)]
trait Relu {
    fn relu_(&mut self);
}

fn main() {}
