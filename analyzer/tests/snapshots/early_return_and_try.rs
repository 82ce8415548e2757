use std::alloc::{alloc, dealloc, Layout};

fn checked(n: usize) -> Result<(), String> {
    let layout = Layout::array::<u8>(n).map_err(|e| e.to_string())?;
    let p = unsafe { alloc(layout) };
    if n == 0 {
        return Err("empty".into());
    }
    validate(n)?;
    unsafe { dealloc(p, layout) };
    Ok(())
}

fn validate(n: usize) -> Result<(), String> {
    if n > 4 { Ok(()) } else { Err("small".into()) }
}
