use ndarray::{par_azip, Array1, Zip};

fn zips(a: &mut Array1<f32>, b: &Array1<f32>) {
    par_azip!((x in a, &y in b) *x += y);
    Zip::from(a).and(b).par_for_each(|x, y| *x = *y);
    a.par_mapv_inplace(|v| v * 2.0);
}
