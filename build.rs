//! The binary doubles as rustc's wrapper, which links the compiler of the pinned
//! toolchain: it finds the compiler's shared libraries through an rpath to that
//! toolchain, wherever it is started from.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=rust-toolchain.toml");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok());
    if let Some(sysroot) = sysroot {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,-rpath,{}/lib",
            sysroot.trim()
        );
    }
}
