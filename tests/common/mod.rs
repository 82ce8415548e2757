//! What the integration tests share: scratch projects and the binary under test.

#![allow(dead_code)] // each test crate uses its own part of this module

pub mod lint;
pub mod ui;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The built `cargo-tensor-lint`, without colour whatever the environment says.
pub fn bin() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-tensor-lint"));
    command.env_remove("CLICOLOR_FORCE").env("NO_COLOR", "1");
    command
}

/// A fresh folder with `files` written into it; `tag` names the test crate using it.
pub fn scratch(tag: &str, files: &[(&str, &str)]) -> PathBuf {
    scratch_under(&std::env::temp_dir(), tag, files)
}

/// A fresh folder inside `base` with `files` written into it (`base` inside a package
/// makes loose files there compile with the package's dependencies).
pub fn scratch_under(base: &Path, tag: &str, files: &[(&str, &str)]) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = base.join(format!(
        "tensor-lint-{tag}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("nested path")).expect("scratch dir");
        std::fs::write(path, text).expect("scratch file");
    }
    dir
}

/// A `Cargo.toml` for a library package `name`.
pub fn package(name: &str) -> String {
    format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
}
