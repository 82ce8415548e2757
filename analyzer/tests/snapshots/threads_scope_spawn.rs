fn threads(data: &mut [u64]) {
    std::thread::scope(|s| {
        for t in 0..4 {
            s.spawn(move || {
                data[t] += 1;
            });
        }
    });
    let h = std::thread::spawn(move || 1);
    let _ = h;
}
