//! What a run reads, and that the order it is given things in changes nothing: the
//! count of files and lines in every format, and byte-identical output whatever the
//! order of loose files or of `mod` declarations.

mod common;

use common::{bin, package, scratch};

use std::path::{Path, PathBuf};
use std::process::Output;

fn text(output: &Output) -> String {
    format!(
        "{}{}status {:?}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        output.status.code()
    )
}

#[test]
fn json_and_sarif_say_how_much_was_analysed() {
    // The files the compiler read for the crate: `lib.rs` and its module, not the file
    // no module declaration reaches.
    let dir = scratch(
        "coverage",
        &[
            ("Cargo.toml", &package("counted")),
            ("src/lib.rs", "mod kernels;\n"),
            ("src/kernels.rs", KERNELS_ALONE),
            ("src/orphan.rs", "pub fn unused() {}\n"),
        ],
    );
    let run = |format: &str| {
        let output = bin()
            .current_dir(&dir)
            .args(["--message-format", format])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let json = run("json");
    let lines: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let last = lines.last().expect("a build-finished line");
    assert_eq!(
        *last,
        serde_json::json!({"reason": "build-finished", "success": true,
            "tensor_lint": {"analysed_files": 2, "analysed_lines": 7}})
    );
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).expect("one document");
    assert_eq!(
        sarif["runs"][0]["properties"],
        serde_json::json!({"analysedFiles": 2, "analysedLines": 7})
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// A module with a leak on its early return, and no module of its own.
const KERNELS_ALONE: &str = "pub fn k(n: usize) {\n    let l = std::alloc::Layout::array::<f32>(n).unwrap();\n    let p = unsafe { std::alloc::alloc(l) };\n    if n == 0 { return; }\n    unsafe { std::alloc::dealloc(p, l) };\n}\n";

/// A small crate of modules with a finding in a child module, as loose files.
const LIB: &str = "mod kernels;\nmod stats;\n";
const KERNELS: &str = "mod blur;\npub fn k(n: usize) {\n    let l = std::alloc::Layout::array::<f32>(n).unwrap();\n    let p = unsafe { std::alloc::alloc(l) };\n    if n == 0 { return; }\n    unsafe { std::alloc::dealloc(p, l) };\n}\n";
const BLUR: &str = "pub fn b(n: usize) {\n    let l = std::alloc::Layout::array::<u8>(n).unwrap();\n    let p = unsafe { std::alloc::alloc(l) };\n    if n == 1 { return; }\n    unsafe { std::alloc::dealloc(p, l) };\n}\n";
const STATS: &str = "pub fn s(v: &mut Vec<u64>) { v.push(1); }\n";

#[test]
fn loose_files_give_the_same_output_in_any_order() {
    let dir = scratch(
        "coverage",
        &[
            ("src/lib.rs", LIB),
            ("src/kernels.rs", KERNELS),
            ("src/kernels/blur.rs", BLUR),
            ("src/stats.rs", STATS),
        ],
    );
    let files = [
        "src/lib.rs",
        "src/kernels.rs",
        "src/kernels/blur.rs",
        "src/stats.rs",
    ];
    let orders: [[usize; 4]; 5] = [
        [0, 1, 2, 3],
        [3, 2, 1, 0],
        [1, 2, 0, 3],
        [2, 0, 3, 1],
        [1, 3, 2, 0],
    ];
    let mut outputs = Vec::new();
    for format in ["human", "json"] {
        for order in orders {
            let output = bin()
                .current_dir(&dir)
                .args(["--color=never", "--message-format", format])
                .args(order.map(|k| files[k]))
                .output()
                .unwrap();
            outputs.push((format, order, text(&output)));
        }
    }
    for (format, order, out) in &outputs {
        let first = outputs.iter().find(|(f, _, _)| f == format).unwrap();
        assert_eq!(out, &first.2, "{format} output differs for order {order:?}");
    }
    let human = &outputs[0].2;
    // Each module is read from the file that declares it: no child is looked for
    // beside a module file taken for a root.
    assert!(!human.contains("file not found"), "{human}");
    assert_eq!(
        human.matches("warning[tensor_lint::leak]").count(),
        2,
        "{human}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn the_order_of_mod_declarations_does_not_change_the_output() {
    let crate_with = |lib: &str| {
        scratch(
            "coverage",
            &[
                ("Cargo.toml", &package("ordered")),
                ("src/lib.rs", lib),
                ("src/kernels.rs", KERNELS),
                ("src/kernels/blur.rs", BLUR),
                ("src/stats.rs", STATS),
            ],
        )
    };
    let run = |dir: &Path| {
        let output = bin()
            .current_dir(dir)
            .args(["--color=never", "--message-format", "json"])
            .output()
            .unwrap();
        // The package id names the scratch folder, which differs between the two.
        text(&output).replace(&dir.display().to_string(), "DIR")
    };
    let a = crate_with("mod kernels;\nmod stats;\n");
    let b = crate_with("mod stats;\nmod kernels;\n");
    let (out_a, out_b) = (run(&a), run(&b));
    assert!(out_a.contains("src/kernels/blur.rs"), "{out_a}");
    // Line numbers of lib.rs do not appear: the findings are in the modules.
    assert_eq!(out_a, out_b);
    let _ = std::fs::remove_dir_all(a);
    let _ = std::fs::remove_dir_all(b);
}

/// A crate whose leak is in code of a feature that is off by default.
fn featured_crate() -> PathBuf {
    scratch(
        "coverage",
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"featured\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[features]\ndefault = [\"std\"]\nstd = []\ngpu = [\"staging\"]\nstaging = []\n",
            ),
            (
                "src/lib.rs",
                "#[cfg(feature = \"staging\")]\nmod staging;\n\n#[cfg(feature = \"std\")]\npub fn on(n: usize) -> usize { n }\n",
            ),
            (
                "src/staging.rs",
                "pub fn stage(n: usize) {\n    let l = std::alloc::Layout::array::<f32>(n).unwrap();\n    let p = unsafe { std::alloc::alloc(l) };\n    if n == 0 { return; }\n    unsafe { std::alloc::dealloc(p, l) };\n}\n",
            ),
        ],
    )
}

#[test]
fn features_follow_the_package_defaults_unless_the_flags_say_otherwise() {
    let dir = featured_crate();
    let run = |args: &[&str]| {
        let output = bin()
            .current_dir(&dir)
            .args(["--color=never", "--timings"])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    // `gpu` (which enables `staging`) is off by default: its module is not compiled.
    let default = run(&[]);
    assert!(!default.contains("staging.rs:"), "{default}");
    assert!(default.contains("1 file,"), "{default}");
    for flags in [
        &["--features", "gpu"][..],
        &["-F", "std,gpu"],
        &["--all-features"],
    ] {
        let on = run(flags);
        assert!(on.contains("--> src/staging.rs:3:22"), "{flags:?}: {on}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_loose_file_of_rust_2015_is_read_and_its_bug_found() {
    // `async` is a plain name in Rust 2015, which `rustc FILE.rs` reads by default, and
    // closure trait objects need no `dyn`.
    let dir = scratch(
        "edition",
        &[(
            "old.rs",
            "mod async { pub fn grow(n: usize) -> Vec<f32> { vec![0.0; n] } }\n\
             use async::grow;\n\
             pub fn apply(v: &mut [f32], f: &Fn(f32) -> f32, g: Box<FnMut(f32) -> f32>) {\n    let _ = (v, f, g);\n}\n\
             pub fn forgotten(n: usize) {\n    std::mem::forget(grow(n));\n}\n",
        )],
    );
    let output = bin()
        .current_dir(&dir)
        .args(["--color=never", "old.rs"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(!err.contains("does not parse"), "{err}");
    assert!(err.contains("warning[tensor_lint::leak]"), "{err}");
}
