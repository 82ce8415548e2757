fn halves(a: &mut [f32], b: &[f32]) {
    let (lo, hi) = a.split_at_mut(8);
    rayon::join(|| lo[0] = b[0], || hi[0] = b[1]);
    rayon::scope(|s| {
        for i in 0..4 {
            s.spawn(move |_| {
                let _ = b[i];
            });
        }
    });
}
