fn kernel(v: &mut Vec<f32>, n: usize) {
    let p = v.as_mut_ptr();
    let q = unsafe { p.add(4) };
    let addr = q as usize;
    let back = addr as *mut f32;
    unsafe {
        *back = 1.0;
        *p.offset(2) += 3.0;
        let x = q.read();
        back.write(x);
    }
    let _ = n;
}
