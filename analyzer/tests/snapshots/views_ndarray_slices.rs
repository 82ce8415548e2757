use ndarray::{s, Array2, Axis};

fn views(n: usize) {
    let mut a = Array2::<f32>::zeros((4, 6));
    let top = a.slice(s![0..2, ..]);
    let rev = a.slice(s![.., ..;-1]);
    let every_other = a.slice(s![1..;2, 3]);
    let neg = a.slice(s![-1, -3..]);
    let t = a.t();
    let row = a.row(2);
    let col = a.index_axis(Axis(1), 5);
    let d = a.diag();
    let (l, r) = a.view_mut().split_at(Axis(1), 3);
    let b = a.slice(s![.., 1..3]).broadcast((3, 4, 2));
    let _ = (top, rev, every_other, neg, t, row, col, d, l, r, b, n);
}
