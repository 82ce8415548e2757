struct Pool {
    slots: Vec<Vec<f32>>,
}

impl Pool {
    #[tensor_lint::free(q)]
    fn checkout(&mut self, p: Vec<f32>) {
        self.slots.push(p);
    }

    #[tensor_lint::free(of = buf)]
    fn named_argument(&mut self, buf: Vec<f32>) {
        self.slots.push(buf);
    }

    #[tensor_lint::free]
    fn missing_argument(&mut self, buf: Vec<f32>) {
        self.slots.push(buf);
    }

    #[tensor_lint::free(a, b)]
    fn extra_argument(&mut self, a: Vec<f32>, b: Vec<f32>) {
        self.slots.push(a);
        self.slots.push(b);
    }

    #[tensor_lint::free(self.slots)]
    fn field(&mut self) {
        self.slots.clear();
    }
}

#[tensor_lint::free(self)]
fn no_receiver(buf: Vec<f32>) {
    drop(buf);
}

#[tensor_lint::free(slt)]
fn close_name(pool: &mut Pool, slot: usize) {
    pool.slots.remove(slot);
}

fn main() {}
