//! Input that changes under the run, and failures inside the analyzer: the linter reads
//! each file once, so whatever it read is checked as a whole, and it never crashes.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use common::{bin, package, scratch};

#[test]
fn a_file_rewritten_while_the_run_reads_it_never_crashes_it() {
    let dir = scratch(
        "robust",
        &[
            ("Cargo.toml", &package("churn")),
            ("src/lib.rs", "mod churn;\n"),
            ("src/churn.rs", ""),
        ],
    );
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = Arc::clone(&stop);
        let path = dir.join("src/churn.rs");
        std::thread::spawn(move || {
            let versions = [
                "pub fn scale(x: &mut [f32]) { for v in x { *v *= 2.0; } }\n".repeat(50),
                "pub fn broken( {\n".to_string(),
                String::new(),
                "// ünïcödé\n".repeat(200),
            ];
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                // Truncate-and-write, not rename: a reader can see a half-written file.
                let _ = std::fs::write(&path, &versions[i % versions.len()]);
                i += 1;
            }
        })
    };
    for _ in 0..15 {
        let output = bin()
            .current_dir(&dir)
            .arg("--message-format=short")
            .output()
            .unwrap();
        let code = output.status.code();
        assert!(
            matches!(code, Some(0) | Some(1)),
            "status {code:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
}

/// A small deterministic fuzzer in the test suite (the long one is `scripts/fuzz.sh`):
/// every fixture and demo file (comments and annotations as users write them), a
/// configuration and alias queries, cut, spliced and shuffled, through every reader of
/// user input outside the compiler.
#[test]
fn mutated_inputs_never_panic_a_reader() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["fixtures/ui", "fixtures/demo/src"] {
        collect_rs(&root.join(dir), &mut files);
    }
    assert!(files.len() > 20, "the corpus is the fixtures and the demo");
    let mut texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).unwrap_or_default())
        .collect();
    texts.push(
        "cache-line-bytes = 128\nexclude = [\"vendor/**\"]\n[lints]\nleak = \"deny\"\n\
         [[models]]\npath = \"pool::Pool::take\"\neffect = \"alloc\"\n"
            .into(),
    );
    texts.push(
        "{\"a\":{\"offset\":0,\"shape\":[2,3],\"strides\":[3,1]},\
         \"b\":{\"offset\":2,\"shape\":[3],\"strides\":[3]}}\n\
         {\"a\":\"0:[4]:[1]\",\"b\":\"3:[4]:[1]\"}\n"
            .into(),
    );
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |bound: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % bound.max(1) as u64) as usize
    };
    for text in texts {
        let lines: Vec<&str> = text.lines().collect();
        for _ in 0..12 {
            let mutated = match next(4) {
                0 => text[..floor_boundary(&text, next(text.len() + 1))].to_string(),
                1 => {
                    let mut l = lines.clone();
                    let last = l.len().saturating_sub(1);
                    let (a, b) = (next(lines.len()).min(last), next(lines.len()).min(last));
                    if !l.is_empty() {
                        l.swap(a, b);
                    }
                    l.join("\n")
                }
                2 => {
                    let at = floor_boundary(&text, next(text.len() + 1));
                    let end = floor_boundary(&text, (at + next(40)).min(text.len()));
                    format!("{}{}", &text[..at], &text[end..])
                }
                _ => {
                    let at = floor_boundary(&text, next(text.len() + 1));
                    let splice = lines.get(next(lines.len())).copied().unwrap_or("");
                    format!("{}{}{}", &text[..at], splice, &text[at..])
                }
            };
            cargo_tensor_lint::fuzz_one(&mutated);
        }
    }
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn collect_rs(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        // Build output (the compiler front end compiles the fixtures) is no fixture.
        if path.file_name().is_some_and(|n| n == "target") {
            continue;
        }
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn an_internal_error_names_its_file_and_the_run_goes_on() {
    let dir = common::scratch(
        "internal",
        &[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"broken\", \"fine\"]\nresolver = \"2\"\n",
            ),
            ("broken/Cargo.toml", &common::package("broken")),
            ("broken/src/lib.rs", "mod kernels;\npub fn root() {}\n"),
            (
                "broken/src/kernels.rs",
                "pub fn k(v: &mut [f32]) { v[0] = 1.0; }\n",
            ),
            ("fine/Cargo.toml", &common::package("fine")),
            ("fine/src/lib.rs", LEAKY),
        ],
    );
    let stderr = run_failing_on(&dir, "kernels.rs");
    assert!(
        stderr.contains(
            "error: internal error of tensor-lint while checking `broken/src/kernels.rs`"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("--> broken/src/kernels.rs:1:1"), "{stderr}");
    assert!(
        stderr.contains("failure injected by TENSOR_LINT_TEST_FAIL_ON"),
        "{stderr}"
    );
    assert!(stderr.contains("please report it"), "{stderr}");
    // The diagnostic says it all: no panic message with a backtrace beside it.
    assert!(!stderr.contains("panicked at"), "{stderr}");
    // The other package is still checked.
    assert!(stderr.contains("fine/src/lib.rs"), "{stderr}");
    assert!(stderr.contains("[tensor_lint::leak]"), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_internal_error_in_a_lint_names_the_function() {
    let dir = common::scratch(
        "lint-internal",
        &[
            ("Cargo.toml", &common::package("kern")),
            (
                "src/lib.rs",
                "mod kernels;\npub fn root(v: &mut [f32]) { v[0] = 0.0; }\n",
            ),
            (
                "src/kernels.rs",
                "// the kernels\npub fn smooth(v: &mut [f32]) { v[0] = 1.0; }\n",
            ),
        ],
    );
    let stderr = run_failing_on(&dir, "fn:smooth");
    assert!(
        stderr.contains("error: internal error of tensor-lint while checking `src/kernels.rs`"),
        "{stderr}"
    );
    // At the function's signature.
    assert!(stderr.contains("--> src/kernels.rs:2:1"), "{stderr}");
    assert!(
        stderr.contains("^^^^^^^^^^^^^^^^^^^^^^^^^^^^ while analysing this"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked at"), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Checks the whole workspace at `dir` with a failure injected at `fail_on` (see
/// `TENSOR_LINT_TEST_FAIL_ON`), quiet backtraces, expecting exit status 1; its stderr.
fn run_failing_on(dir: &std::path::Path, fail_on: &str) -> String {
    let out = common::bin()
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .arg("--workspace")
        .env("TENSOR_LINT_TEST_FAIL_ON", fail_on)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    stderr
}

const LEAKY: &str = "use std::alloc::{alloc, Layout};\n\
pub fn f(n: usize) -> f32 {\n\
    let p = unsafe { alloc(Layout::array::<f32>(n).unwrap()) } as *mut f32;\n\
    if n == 0 { return 0.0; }\n\
    let v = unsafe { *p };\n\
    std::mem::forget(v);\n\
    v\n\
}\n";
