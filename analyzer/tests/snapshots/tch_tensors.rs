use tch::Tensor;

fn tensors(x: &Tensor) -> Tensor {
    let y = x.shallow_clone();
    let z = x.copy();
    let e = x.expand(&[4, 3], false);
    let n = x.narrow(0, 1, 2);
    let t = x.tr();
    let _ = y.relu_();
    let mut w = Tensor::zeros(&[3, 3], tch::kind::FLOAT_CPU);
    w = w.set_requires_grad(true);
    tch::no_grad(|| {
        let _ = z.g_add_(&w);
    });
    let _ = (e, n, t);
    w
}
