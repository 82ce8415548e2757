//! Projects as users have them, checked by the compiler front end: run from elsewhere,
//! pinning a toolchain of their own, with old manifests, or with workspace members that
//! cannot be loaded. What can be checked is; what cannot is said, with where and why.

mod common;

use std::path::Path;
use std::process::Output;

use common::{bin, package, scratch};

/// A library that leaks once, in `leak`.
const LEAKY: &str = "pub fn leak(n: usize) -> bool {\n    \
                     let p = unsafe { std::alloc::alloc(std::alloc::Layout::array::<f32>(n.max(1)).unwrap()) };\n    \
                     p.is_null()\n}\n";

fn check(dir: &Path, args: &[&str]) -> Output {
    bin()
        .current_dir(dir)
        .args(args)
        // A toolchain the project pins is never installed on its behalf.
        .env("RUSTUP_AUTO_INSTALL", "0")
        .output()
        .expect("the linter runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_manifest_path_relative_to_where_it_runs_is_checked() {
    let dir = scratch(
        "relative-manifest",
        &[
            ("proj/Cargo.toml", &package("proj")),
            ("proj/src/lib.rs", LEAKY),
        ],
    );
    let output = check(&dir, &["--manifest-path", "proj/Cargo.toml"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("tensor_lint::leak"), "{err}");
}

#[test]
fn a_project_pinning_a_toolchain_that_is_not_installed_is_checked_with_tensor_lints() {
    let dir = scratch(
        "pinned",
        &[
            ("Cargo.toml", &package("pinned")),
            ("rust-toolchain.toml", "[toolchain]\nchannel = \"1.61.0\"\n"),
            ("src/lib.rs", LEAKY),
        ],
    );
    let output = check(&dir, &[]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("src/lib.rs:2:22"), "{err}");
}

#[test]
fn an_old_manifest_is_checked() {
    // `[project]` for `[package]`, no edition (2015), authors: what cargo still reads.
    let manifest = "[project]\nname = \"old\"\nversion = \"0.1.0\"\nauthors = [\"someone\"]\n";
    let dir = scratch(
        "old-manifest",
        &[("Cargo.toml", manifest), ("src/lib.rs", LEAKY)],
    );
    let output = check(&dir, &[]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("tensor_lint::leak"), "{err}");
}

#[test]
fn members_that_cannot_be_loaded_are_named_and_the_others_are_checked() {
    let root = "[workspace]\nmembers = [\"crates/*\", \"app\", \"gone\"]\nresolver = \"2\"\n\n\
                [workspace.package]\nversion = \"0.3.0\"\nedition = \"2021\"\n\n\
                [workspace.dependencies]\nbase = { path = \"crates/base\", package = \"base-k\" }\n";
    let base = "[package]\nname = \"base-k\"\nversion.workspace = true\nedition.workspace = true\n";
    let kern = "[package]\nname = \"kern\"\nversion.workspace = true\nedition.workspace = true\n\
                [dependencies]\nbase = { workspace = true }\n";
    let app = "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
               [dependencies]\nkern = { path = \"../crates/kern\" }\n";
    let app_main = "fn main() {\n    let b = Box::into_raw(Box::new(1u8));\n    let _ = b;\n    kern::ok();\n}\n";
    let kern_lib = format!("{LEAKY}pub fn ok() -> usize {{ base::size() }}\n");
    let dir = scratch(
        "broken-members",
        &[
            ("Cargo.toml", root),
            ("crates/base/Cargo.toml", base),
            ("crates/base/src/lib.rs", "pub fn size() -> usize { 4 }\n"),
            ("crates/kern/Cargo.toml", kern),
            ("crates/kern/src/lib.rs", &kern_lib),
            // Valid TOML that cargo refuses.
            (
                "crates/future/Cargo.toml",
                "[package]\nname = \"future\"\nversion = \"0.1.0\"\nedition = \"2099\"\n",
            ),
            ("crates/future/src/lib.rs", ""),
            // Not TOML at all.
            ("crates/broken/Cargo.toml", "[package\nname = \"broken\"\n"),
            ("crates/broken/src/lib.rs", ""),
            ("app/Cargo.toml", app),
            ("app/src/main.rs", app_main),
        ],
    );
    let output = check(&dir, &["--workspace"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{err}");
    for (member, why) in [
        ("crates/broken", "is not valid TOML"),
        ("crates/future", "`2099` is unknown"),
        ("gone", "cannot read"),
    ] {
        let message = format!("warning: workspace member `{member}` cannot be loaded");
        let at = err
            .find(&message)
            .unwrap_or_else(|| panic!("{message}:\n{err}"));
        let block = &err[at..];
        let block = &block[..block.find("\n\n").unwrap_or(block.len())];
        assert!(block.contains("--> Cargo.toml:2:"), "{block}");
        assert!(block.contains(why), "{block}");
    }
    // The members that load are checked where they are, through a dependency on each
    // other and on what they inherit from the workspace.
    assert!(err.contains("--> crates/kern/src/lib.rs:2:22"), "{err}");
    assert!(err.contains("--> app/src/main.rs:2:13"), "{err}");
    assert!(err.contains("warning: 5 warnings emitted"), "{err}");
    // Nothing was written into the project.
    for member in ["crates/kern", "app"] {
        let manifest = std::fs::read_to_string(dir.join(member).join("Cargo.toml")).unwrap();
        assert!(!manifest.contains("autobins"), "{manifest}");
    }
    // JSON names the real packages.
    let output = check(&dir, &["--workspace", "--message-format", "json"]);
    let out = String::from_utf8_lossy(&output.stdout);
    let real_app = format!(
        "\"manifest_path\":\"{}\"",
        dir.join("app/Cargo.toml").display()
    );
    assert!(out.contains(&real_app), "{out}");
    assert!(!out.contains("partial-workspace"), "{out}");
}

#[test]
fn a_workspace_whose_root_manifest_is_broken_is_an_error_that_says_so() {
    let dir = scratch(
        "broken-root",
        &[
            ("Cargo.toml", "[workspace\nmembers = [\"a\"]\n"),
            ("a/Cargo.toml", &package("a")),
            ("a/src/lib.rs", LEAKY),
        ],
    );
    let output = check(&dir, &[]);
    let err = stderr(&output);
    assert_ne!(output.status.code(), Some(0), "{err}");
    assert!(err.contains("Cargo.toml"), "{err}");
}
