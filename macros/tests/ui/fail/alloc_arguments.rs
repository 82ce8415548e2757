struct Pool {
    slots: Vec<Vec<f32>>,
}

impl Pool {
    #[tensor_lint::alloc(len)]
    fn checkout(&mut self, len: usize) -> Vec<f32> {
        vec![0.0; len]
    }

    #[tensor_lint::alloc(returns = buf)]
    fn checkout_named(&mut self, len: usize) -> Vec<f32> {
        vec![0.0; len]
    }

    #[tensor_lint::alloc]
    fn prefill(&mut self, len: usize) {
        self.slots.push(vec![0.0; len]);
    }
}

fn main() {}
