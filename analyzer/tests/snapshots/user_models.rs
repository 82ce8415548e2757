// models: [{"path": "mypool::Pool::checkout", "effect": "alloc"}, {"method": "checkin", "effect": "free", "arg": 1}, {"method": "blur_into", "effect": "write", "arg": 1}]
use mypool::Pool;

fn borrow(pool: &mut Pool, img: &[f32], out: &mut [f32]) {
    let buf = Pool::checkout(pool, 64);
    img.blur_into(out);
    pool.checkin(buf);
}
