fn scan(a: &mut [f32], n: usize) {
    'outer: for i in 0..n {
        let mut j = 0;
        while j < n {
            if a[j] < 0.0 {
                continue 'outer;
            }
            if j == i {
                break;
            }
            a[i] += a[j];
            j += 1;
        }
        loop {
            break 'outer;
        }
    }
}
