//! The toolchain tensor-lint checks with: the nightly pinned in `rust-toolchain.toml`
//! (its compiler is the one the driver is built against), installed by rustup when it
//! is missing, whatever toolchain the checked project pins for itself.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::error::ToolError;

/// The pinned toolchain file, read when this binary was built.
const TOOLCHAIN_FILE: &str = include_str!("../rust-toolchain.toml");

/// The components the driver needs besides the compiler.
const COMPONENTS: &[&str] = &["rustc-dev", "rust-src"];

/// The channel of the pinned toolchain (`nightly-2026-10-30`).
pub fn channel() -> &'static str {
    static CHANNEL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CHANNEL.get_or_init(|| {
        let parsed: Option<toml::Table> = toml::from_str(TOOLCHAIN_FILE).ok();
        parsed
            .as_ref()
            .and_then(|t| t.get("toolchain")?.get("channel")?.as_str())
            .map(str::to_string)
            .unwrap_or_else(|| "nightly".into())
    })
}

/// The pinned toolchain, installed: its sysroot. Installs it with rustup (saying so on
/// stderr) when it is missing.
pub fn ensure_installed() -> Result<PathBuf, ToolError> {
    if let Some(sysroot) = sysroot() {
        return Ok(sysroot);
    }
    let channel = channel();
    eprintln!(
        "     Installing toolchain `{channel}` (tensor-lint checks with it, whatever the project pins)"
    );
    let mut install = Command::new("rustup");
    install
        .args(["toolchain", "install", channel, "--profile", "minimal"])
        .args(COMPONENTS.iter().flat_map(|c| ["--component", c]))
        .stdout(Stdio::null());
    let status = install.status().map_err(|e| {
        ToolError::io(
            "cannot run `rustup`, which tensor-lint needs to install its toolchain".into(),
            e,
        )
    })?;
    if !status.success() {
        return Err(ToolError::Cargo {
            message: format!("`rustup toolchain install {channel}` failed"),
            detail: format!(
                "tensor-lint checks code with the compiler of `{channel}`; install it with \
                 `rustup toolchain install {channel} --component {}`",
                COMPONENTS.join(",")
            ),
        });
    }
    sysroot().ok_or_else(|| ToolError::Cargo {
        message: format!("toolchain `{channel}` was installed but its compiler cannot be run"),
        detail: String::new(),
    })
}

/// The sysroot of the pinned toolchain, when it is installed.
fn sysroot() -> Option<PathBuf> {
    let output = Command::new("rustc")
        .env("RUSTUP_TOOLCHAIN", channel())
        .env("RUSTUP_AUTO_INSTALL", "0")
        .args(["--print", "sysroot"])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let path = PathBuf::from(String::from_utf8(output.stdout).ok()?.trim());
    path.join("lib").is_dir().then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_channel_is_the_pinned_nightly() {
        assert!(channel().starts_with("nightly-"), "{}", channel());
    }
}
