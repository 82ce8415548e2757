use rayon::prelude::*;

fn par(a: &mut [f32], counts: &mut [u64], n: usize) {
    a.par_iter_mut().for_each(|x| *x = 0.0);
    a.par_chunks_mut(16).enumerate().for_each(|(i, chunk)| {
        chunk[0] = i as f32;
    });
    (0..n).into_par_iter().for_each(|i| {
        counts[i % 4] += 1;
    });
}
