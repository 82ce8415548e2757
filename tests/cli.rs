//! The command line end to end: discovery, options, exit statuses, robustness.

mod common;

use common::{bin, package, scratch};

use std::path::PathBuf;
use std::process::{Command, Output};

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A function that forgets a buffer: one `leak` warning wherever it is.
const FORGETS: &str =
    "pub fn forgets() {\n    let v = vec![0.0f32; 16];\n    std::mem::forget(v);\n}\n";

/// A virtual workspace with members `a` (lib) and `b` (lib + bin), each file with a
/// finding, so every checked target shows up in the output.
fn two_member_workspace() -> PathBuf {
    scratch(
        "cli",
        &[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
            ),
            ("a/Cargo.toml", &package("a")),
            ("a/src/lib.rs", FORGETS),
            ("b/Cargo.toml", &package("b")),
            ("b/src/lib.rs", FORGETS),
            (
                "b/src/main.rs",
                &format!("{FORGETS}fn main() {{\n    forgets();\n}}\n"),
            ),
        ],
    )
}

fn checked_files(output: &Output) -> Vec<String> {
    let mut files: Vec<String> = stderr(output)
        .lines()
        .filter_map(|l| l.split(':').next())
        .filter(|f| f.ends_with(".rs"))
        .map(String::from)
        .collect();
    files.sort();
    files.dedup();
    files
}

#[test]
fn virtual_workspace_checks_default_members_with_paths_relative_to_the_root() {
    let dir = two_member_workspace();
    let output = bin()
        .current_dir(&dir)
        .args(["--message-format", "short"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        checked_files(&output),
        ["a/src/lib.rs", "b/src/lib.rs", "b/src/main.rs"]
    );
}

#[test]
fn package_selection_follows_cargo() {
    let dir = two_member_workspace();
    let only_a = bin()
        .current_dir(&dir)
        .args(["-p", "a", "--message-format=short"])
        .output()
        .unwrap();
    assert_eq!(checked_files(&only_a), ["a/src/lib.rs"]);

    let manifest_b = bin()
        .arg("--manifest-path")
        .arg(dir.join("b/Cargo.toml"))
        .arg("--message-format=short")
        .output()
        .unwrap();
    assert_eq!(
        checked_files(&manifest_b),
        ["b/src/lib.rs", "b/src/main.rs"]
    );

    // From inside a member, that member is checked; `--workspace` checks all.
    let inside = bin()
        .current_dir(dir.join("a/src"))
        .arg("--message-format=short")
        .output()
        .unwrap();
    assert_eq!(checked_files(&inside), ["a/src/lib.rs"]);
    let all = bin()
        .current_dir(dir.join("a"))
        .args(["--workspace", "--message-format=short"])
        .output()
        .unwrap();
    assert_eq!(checked_files(&all).len(), 3);

    let unknown = bin().current_dir(&dir).args(["-p", "zz"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("package `zz` is not a member of the workspace"),
        "{}",
        stderr(&unknown)
    );
}

#[test]
fn cargo_subcommand_invocation_drops_its_own_name() {
    let dir = two_member_workspace();
    let output = bin()
        .current_dir(&dir)
        .args(["tensor-lint", "-p", "a", "--message-format=short"])
        .output()
        .unwrap();
    assert_eq!(checked_files(&output), ["a/src/lib.rs"]);
}

#[test]
fn json_output_for_a_crate_that_does_not_compile_is_the_compilers_errors() {
    let dir = scratch(
        "cli",
        &[
            ("Cargo.toml", &package("one_bad")),
            ("src/lib.rs", "mod good;\nmod bad;\n"),
            ("src/good.rs", "pub fn fine() {}\n"),
            ("src/bad.rs", "pub fn broken() { let x = ; }\n"),
        ],
    );
    let output = bin()
        .current_dir(&dir)
        .arg("--message-format=json")
        .output()
        .unwrap();
    // What does not compile cannot be checked: rustc's error, at its place, fails the
    // run as it fails the build.
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    let messages: Vec<_> = cargo_metadata::Message::parse_stream(text.as_bytes())
        .collect::<Result<_, _>>()
        .expect("every line parses");
    assert_eq!(messages.len(), 2, "{text}");
    let cargo_metadata::Message::CompilerMessage(message) = &messages[0] else {
        panic!("first line is not a compiler message: {text}");
    };
    assert_eq!(
        message.message.level,
        cargo_metadata::diagnostic::DiagnosticLevel::Error
    );
    assert!(
        message.message.message.contains("expected expression"),
        "{text}"
    );
    let span = &message.message.spans[0];
    assert_eq!(span.file_name, "src/bad.rs");
    assert_eq!((span.line_start, span.column_start), (1, 27));
    assert!(message.target.name == "one_bad");
    assert!(matches!(messages[1], cargo_metadata::Message::BuildFinished(ref f) if !f.success));
}

#[test]
fn warnings_pass_the_gate_unless_denied() {
    let dir = scratch(
        "cli",
        &[("Cargo.toml", &package("warned")), ("src/lib.rs", FORGETS)],
    );
    let plain = bin()
        .current_dir(&dir)
        .arg("--message-format=json")
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    let text = stdout(&plain);
    assert!(text.contains("\"level\":\"warning\""), "{text}");
    assert!(text.contains("\"success\":true"), "{text}");
    // `-D warnings` makes it fail the run, for those who want that.
    let strict = bin()
        .current_dir(&dir)
        .args(["--message-format=json", "-D", "warnings"])
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(1));
    assert!(stdout(&strict).contains("\"success\":false"));
}

/// A package whose build script leaves a marker file, and the marker's path.
fn package_with_a_build_script() -> (PathBuf, PathBuf) {
    let marker = scratch("marker", &[]).join("ran");
    let build_rs = format!(
        "fn main() {{ std::fs::write({:?}, \"ran\").unwrap(); }}\n",
        marker
    );
    let dir = scratch(
        "cli",
        &[
            (
                "Cargo.toml",
                &format!("{}build = \"build.rs\"\n", package("built")),
            ),
            ("build.rs", &build_rs),
            ("src/lib.rs", "pub fn f() {}\n"),
        ],
    );
    (dir, marker)
}

#[test]
fn build_scripts_run_as_cargo_check_runs_them_into_a_target_folder_of_its_own() {
    let (dir, marker) = package_with_a_build_script();
    let output = bin().current_dir(&dir).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(marker.exists(), "the build script did not run");
    // Everything it built is under `target/tensor-lint`, apart from the project's own
    // `cargo` builds.
    let built: Vec<String> = std::fs::read_dir(dir.join("target"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(built, ["tensor-lint"]);
    let _ = std::fs::remove_file(&marker);
}

#[test]
fn malformed_configuration_is_a_tool_error_with_the_toml_span() {
    let dir = scratch(
        "cli",
        &[
            ("Cargo.toml", &package("configured")),
            (
                "tensor-lint.toml",
                "cache-line-bytes = 64\n[lints]\nleak = \"loud\"\n",
            ),
            ("src/lib.rs", "pub fn f() {}\n"),
        ],
    );
    let output = bin().current_dir(&dir).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("invalid level `loud` for `leak`"), "{err}");
    assert!(
        err.contains("leak = \"loud\""),
        "the TOML line is shown: {err}"
    );
    assert!(err.contains("expected `allow`, `warn` or `deny`"), "{err}");

    let in_manifest = scratch(
        "cli",
        &[
            (
                "Cargo.toml",
                &format!(
                    "{}[package.metadata.tensor-lint]\nexclude = 3\n",
                    package("configured")
                ),
            ),
            ("src/lib.rs", "pub fn f() {}\n"),
        ],
    );
    let output = bin().current_dir(&in_manifest).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("exclude = 3"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn findings_in_excluded_files_are_not_reported() {
    let manifest = |exclude: &str| {
        format!(
            "{}[package.metadata.tensor-lint]\nexclude = [{exclude}]\n",
            package("ex")
        )
    };
    let dir = scratch(
        "cli",
        &[
            ("Cargo.toml", &manifest("\"src/generated/**\"")),
            ("src/lib.rs", "mod generated;\n"),
            ("src/generated/mod.rs", FORGETS),
        ],
    );
    let output = bin().current_dir(&dir).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        !stderr(&output).contains("generated"),
        "{}",
        stderr(&output)
    );
    // Not excluded, the same file's finding shows.
    std::fs::write(dir.join("Cargo.toml"), manifest("")).unwrap();
    let output = bin().current_dir(&dir).output().unwrap();
    assert!(
        stderr(&output).contains("src/generated/mod.rs:3"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn level_flags_are_checked_and_deny_warnings_fails_on_warnings() {
    let dir = scratch(
        "cli",
        &[(
            "k.rs",
            "pub fn f() -> u32 {\n    // tensor-lint: allow(leek)\n    let x = 1;\n    x\n}\n",
        )],
    );
    let plain = bin().current_dir(&dir).arg("k.rs").output().unwrap();
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    assert!(
        stderr(&plain).contains("warning: unknown lint `leek`"),
        "{}",
        stderr(&plain)
    );

    let denied = bin()
        .current_dir(&dir)
        .args(["-D", "warnings", "k.rs"])
        .output()
        .unwrap();
    assert_eq!(denied.status.code(), Some(1), "{}", stderr(&denied));
    assert!(stderr(&denied).contains("error: unknown lint `leek`"));

    let allowed = bin()
        .current_dir(&dir)
        .args(["-A", "warnings", "k.rs"])
        .output()
        .unwrap();
    assert_eq!(allowed.status.code(), Some(0));
    assert!(!stderr(&allowed).contains("leek"));

    for flags in [["-D", "leek"], ["-W", "aliasrace"]] {
        let bad = bin()
            .current_dir(&dir)
            .args(flags)
            .arg("k.rs")
            .output()
            .unwrap();
        assert_eq!(bad.status.code(), Some(2), "{flags:?}");
        assert!(stderr(&bad).contains("unknown lint"), "{}", stderr(&bad));
    }
    let known = bin()
        .current_dir(&dir)
        .args([
            "-D",
            "tensor_lint::leak",
            "-A",
            "alias_race",
            "-W",
            "leak",
            "k.rs",
        ])
        .output()
        .unwrap();
    assert_eq!(known.status.code(), Some(0), "{}", stderr(&known));
}

#[test]
fn list_and_explain_read_the_registry() {
    let list = bin().arg("--list").output().unwrap();
    assert_eq!(list.status.code(), Some(0));
    let text = stdout(&list);
    for name in tensor_lint_lints::registry::lints().iter().map(|l| l.name) {
        assert!(
            text.lines().any(|l| l.starts_with(name)),
            "{name} missing from --list:\n{text}"
        );
    }
    let explain = bin()
        .args(["--explain", "tensor_lint::false_sharing"])
        .output()
        .unwrap();
    assert_eq!(explain.status.code(), Some(0));
    assert!(stdout(&explain).contains("### Why is this bad"));
    let unknown = bin().args(["--explain", "leek"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("did you mean `leak`?"));
}

#[test]
fn usage_errors_exit_with_status_two() {
    let not_rust = bin().arg("notes.txt").output().unwrap();
    assert_eq!(not_rust.status.code(), Some(2));
    let missing = bin().arg("no/such/file.rs").output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("does not exist"));
    let mixed = bin().args(["--workspace", "a.rs"]).output().unwrap();
    assert_eq!(mixed.status.code(), Some(2));
    let bad_option = bin().arg("--no-such-option").output().unwrap();
    assert_eq!(bad_option.status.code(), Some(2));
    let outside = scratch("cli", &[("README", "no cargo here\n")]);
    let nothing = bin().current_dir(&outside).output().unwrap();
    assert_eq!(nothing.status.code(), Some(2));
    assert!(
        stderr(&nothing).contains("could not find `Cargo.toml`"),
        "{}",
        stderr(&nothing)
    );
}

/// Hostile input: every file gets a diagnostic or nothing, never a crash.
#[test]
fn hostile_files_never_crash_the_run() {
    let deep_parens = format!(
        "fn f() -> i32 {{ {}1{} }}\n",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let deep_blocks = format!(
        "fn g() {{ {}{} }}\n",
        "{".repeat(10_000),
        "}".repeat(10_000)
    );
    let huge_literal = format!("fn h() -> u8 {{ {} }}\n", "9".repeat(5_000));
    let dir = scratch(
        "cli",
        &[
            ("deep_parens.rs", &deep_parens),
            ("deep_blocks.rs", &deep_blocks),
            ("huge_literal.rs", &huge_literal),
            ("empty.rs", ""),
            ("loop_a.rs", "mod loop_a;\n"),
        ],
    );
    std::fs::write(dir.join("not_utf8.rs"), b"fn a() {}\n// \xff\xfe\n").unwrap();
    for file in [
        "deep_parens.rs",
        "deep_blocks.rs",
        "huge_literal.rs",
        "empty.rs",
        "not_utf8.rs",
        "loop_a.rs",
    ] {
        let output = bin().current_dir(&dir).arg(file).output().unwrap();
        let code = output.status.code();
        assert!(
            matches!(code, Some(0) | Some(1)),
            "{file}: status {code:?}\n{}",
            stderr(&output)
        );
    }
    let bad = bin().current_dir(&dir).arg("not_utf8.rs").output().unwrap();
    assert!(
        stderr(&bad).to_lowercase().contains("not valid utf-8"),
        "{}",
        stderr(&bad)
    );
}

#[cfg(unix)]
#[cfg(unix)]
#[test]
fn a_symlink_loop_of_modules_is_the_compilers_error_not_a_hang() {
    let dir = scratch("cli", &[("src/lib.rs", "mod a;\n")]);
    // `a.rs` mounts `a/b.rs`, which is a link back to `a.rs`.
    std::fs::write(dir.join("src/a.rs"), "mod b;\npub fn f() {}\n").unwrap();
    std::fs::create_dir_all(dir.join("src/a")).unwrap();
    std::os::unix::fs::symlink(dir.join("src/a.rs"), dir.join("src/a/b.rs")).unwrap();
    let output = bin().current_dir(&dir).arg("src/lib.rs").output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("file not found for module `b`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_file_mounted_by_two_targets_is_reported_once() {
    let dir = scratch(
        "cli",
        &[
            ("Cargo.toml", &package("shared")),
            ("src/lib.rs", "mod common;\n"),
            ("src/main.rs", "mod common;\nfn main() {}\n"),
            ("src/common.rs", "pub fn broken( {}\n"),
        ],
    );
    let output = bin()
        .current_dir(&dir)
        .arg("--message-format=short")
        .output()
        .unwrap();
    let err = stderr(&output);
    assert_eq!(
        err.lines()
            .filter(|l| l.starts_with("src/common.rs:"))
            .count(),
        1,
        "{err}"
    );
}

#[test]
fn tests_benches_and_examples_are_checked_with_all_targets_only() {
    let dir = scratch(
        "cli",
        &[
            ("Cargo.toml", &package("targets")),
            ("src/lib.rs", FORGETS),
            (
                "tests/it.rs",
                &format!("{FORGETS}#[test]\nfn t() {{\n    forgets();\n}}\n"),
            ),
            (
                "examples/demo.rs",
                &format!("{FORGETS}fn main() {{\n    forgets();\n}}\n"),
            ),
        ],
    );
    let default = bin()
        .current_dir(&dir)
        .arg("--message-format=short")
        .output()
        .unwrap();
    assert_eq!(checked_files(&default), ["src/lib.rs"]);
    let all = bin()
        .current_dir(&dir)
        .args(["--all-targets", "--message-format=short"])
        .output()
        .unwrap();
    assert_eq!(
        checked_files(&all),
        ["examples/demo.rs", "src/lib.rs", "tests/it.rs"]
    );
}

#[test]
fn colour_follows_color_clicolor_force_and_no_color() {
    let dir = scratch("cli", &[("k.rs", "fn broken( {}\n")]);
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_cargo-tensor-lint"));
        command
            .current_dir(&dir)
            .env_remove("CLICOLOR_FORCE")
            .env_remove("NO_COLOR");
        for (key, value) in env {
            command.env(key, value);
        }
        let output = command.args(args).arg("k.rs").output().unwrap();
        String::from_utf8_lossy(&output.stderr).contains('\u{1b}')
    };
    // Not a terminal: plain unless forced.
    assert!(!run(&[], &[]));
    assert!(run(&[], &[("CLICOLOR_FORCE", "1")]));
    assert!(!run(&[], &[("NO_COLOR", "1")]));
    assert!(run(&["--color", "always"], &[("NO_COLOR", "1")]));
    assert!(!run(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]));
    // Machine formats never carry colour.
    assert!(!run(
        &["--message-format", "short", "--color", "never"],
        &[]
    ));
}

const LEAKY_KERNEL: &str = "use std::alloc::{alloc, dealloc, Layout};

pub fn checksum(features: &[f32]) -> Option<f32> {
    let layout = Layout::array::<f32>(features.len()).ok()?;
    let out = unsafe { alloc(layout) } as *mut f32;
    if out.is_null() || features.is_empty() {
        return None;
    }
    let first = unsafe { *out };
    unsafe { dealloc(out as *mut u8, layout) };
    Some(first)
}
";

#[test]
fn a_baseline_hides_known_findings_across_line_shifts_and_not_new_ones() {
    let dir = scratch(
        "cli",
        &[
            ("Cargo.toml", &package("gated")),
            ("src/lib.rs", LEAKY_KERNEL),
        ],
    );
    let baseline = dir.join("tensor-lint-baseline.json");
    let denied = ["-D", "warnings", "--message-format=short"];
    let before = bin().current_dir(&dir).args(denied).output().unwrap();
    assert_eq!(before.status.code(), Some(1), "{}", stderr(&before));

    let write = bin()
        .current_dir(&dir)
        .args(denied)
        .arg("--write-baseline")
        .arg(&baseline)
        .output()
        .unwrap();
    assert_eq!(write.status.code(), Some(0), "{}", stderr(&write));
    assert!(
        stderr(&write).contains("wrote 1 finding"),
        "{}",
        stderr(&write)
    );

    // Unrelated lines above move the finding; it stays accepted.
    std::fs::write(
        dir.join("src/lib.rs"),
        format!("//! Kernels.\n\n{LEAKY_KERNEL}"),
    )
    .unwrap();
    let gated = bin()
        .current_dir(&dir)
        .args(denied)
        .arg("--baseline")
        .arg(&baseline)
        .output()
        .unwrap();
    assert_eq!(gated.status.code(), Some(0), "{}", stderr(&gated));
    assert!(
        !stderr(&gated).contains("tensor_lint::leak"),
        "{}",
        stderr(&gated)
    );

    // A second copy of the bug is new, and fails the gate.
    let twice = format!(
        "{LEAKY_KERNEL}\n{}",
        LEAKY_KERNEL
            .replace("checksum", "checksum_again")
            .replace("use std::alloc::{alloc, dealloc, Layout};\n", "")
    );
    std::fs::write(dir.join("src/lib.rs"), twice).unwrap();
    let new = bin()
        .current_dir(&dir)
        .args(denied)
        .arg("--baseline")
        .arg(&baseline)
        .output()
        .unwrap();
    assert_eq!(new.status.code(), Some(1), "{}", stderr(&new));
    assert_eq!(
        stderr(&new).matches("[tensor_lint::leak]").count(),
        1,
        "{}",
        stderr(&new)
    );

    std::fs::write(&baseline, "{ not json").unwrap();
    let broken = bin()
        .current_dir(&dir)
        .arg("--baseline")
        .arg(&baseline)
        .output()
        .unwrap();
    assert_eq!(broken.status.code(), Some(2), "{}", stderr(&broken));
}

#[test]
fn fix_applies_machine_applicable_suggestions_only_and_the_result_parses() {
    let fixture = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/ui/missed_inplace/input_dies_at_out_of_place_op.rs"),
    )
    .unwrap();
    // Inside the UI fixtures' package, so the file compiles with its dependencies.
    let dir = ui_scratch(&[("kernels.rs", &fixture)]);
    let first = bin()
        .current_dir(&dir)
        .args(["--fix", "kernels.rs"])
        .output()
        .unwrap();
    assert!(
        matches!(first.status.code(), Some(0) | Some(1)),
        "{}",
        stderr(&first)
    );
    assert!(
        stderr(&first).contains("Fixed kernels.rs"),
        "{}",
        stderr(&first)
    );
    let fixed = std::fs::read_to_string(dir.join("kernels.rs")).unwrap();
    assert!(fixed.contains("fmap.mapv_into_any("), "{fixed}");
    assert!(fixed.contains("let above = heights - ground;"), "{fixed}");
    assert!(
        fixed.contains("let weighted = occupancy * &weights;"),
        "{fixed}"
    );
    // A maybe-incorrect suggestion is shown, never applied.
    assert!(fixed.contains("logits.relu()"), "{fixed}");
    // The fixed file is still Rust, and a second run has nothing more to fix.
    let again = bin()
        .current_dir(&dir)
        .args(["--fix", "kernels.rs", "--message-format=short"])
        .output()
        .unwrap();
    assert!(!stderr(&again).contains("Fixed"), "{}", stderr(&again));
    assert!(
        !stderr(&again).contains("does not parse"),
        "{}",
        stderr(&again)
    );
    assert_eq!(
        stderr(&again)
            .matches("[tensor_lint::missed_inplace]")
            .count(),
        1,
        "{}",
        stderr(&again)
    );
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    // No temporary file is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("tensor-lint-fix"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn timings_say_where_the_time_went_and_how_the_oracle_decided() {
    let dir = scratch(
        "cli",
        &[
            ("Cargo.toml", &package("timed")),
            ("src/lib.rs", LEAKY_KERNEL),
        ],
    );
    let output = bin().current_dir(&dir).arg("--timings").output().unwrap();
    let err = stderr(&output);
    for phase in [
        "cargo check",
        "lower",
        "lints + oracle",
        "render",
        "total (wall)",
    ] {
        assert!(
            err.lines().any(|l| l.trim_start().starts_with(phase)),
            "{phase} missing:\n{err}"
        );
    }
    assert!(err.contains("1 file, 12 lines"), "{err}");
    assert!(err.lines().any(|l| l.starts_with("oracle: ")), "{err}");
    // Without the flag, nothing of it.
    let quiet = bin().current_dir(&dir).output().unwrap();
    assert!(!stderr(&quiet).contains("timings"), "{}", stderr(&quiet));
}

#[test]
fn a_spawn_model_from_the_configuration_makes_a_work_queue_parallel() {
    // `Jobs` stands for a thread pool of a crate the user cannot annotate: what its
    // `submit` does is not in this file.
    let kernel = "#[derive(Clone, Copy)]
struct SendPtr(*mut f32);
unsafe impl Send for SendPtr {}

pub fn rows(img: &mut [f32], rows: usize, cols: usize, jobs: &Jobs) {
    let p = SendPtr(img.as_mut_ptr());
    for r in 0..rows {
        jobs.submit(move || {
            let p = p;
            for c in 0..cols {
                unsafe { *p.0.add(r * (cols - 1) + c) = 0.0 };
            }
        });
    }
}

pub struct Jobs;

impl Jobs {
    pub fn submit<F: FnOnce() + Send + 'static>(&self, job: F) {
        drop(job);
    }
}
";
    let models = "[[models]]\npath = \"Jobs::submit\"\neffect = \"spawn\"\n";
    let dir = scratch("cli", &[("k.rs", kernel), ("tensor-lint.toml", models)]);
    let run = |dir: &std::path::Path| {
        bin()
            .current_dir(dir)
            .args(["--message-format=short", "k.rs"])
            .output()
            .unwrap()
    };
    let with = stderr(&run(&dir));
    assert!(
        with.contains("k.rs:11:") && with.contains("[tensor_lint::alias_race]"),
        "{with}"
    );
    // The older form, by method name, is read too.
    let by_name = "[[models]]\nmethod = \"submit\"\neffect = \"spawn\"\n";
    std::fs::write(dir.join("tensor-lint.toml"), by_name).unwrap();
    let with = stderr(&run(&dir));
    assert!(with.contains("[tensor_lint::alias_race]"), "{with}");
    // Without the model `submit` is what its body says: it never runs the job.
    std::fs::remove_file(dir.join("tensor-lint.toml")).unwrap();
    let without = stderr(&run(&dir));
    assert!(!without.contains("tensor_lint::alias_race"), "{without}");
}

/// A pool of a crate the user cannot annotate, as far as the checked code sees it.
const POOL: &str = "
pub struct Pool;
pub struct Error;

impl Pool {
    pub fn grab(&self, n: usize) -> *mut f32 {
        let _ = n;
        std::ptr::null_mut()
    }
    pub fn put_back(&self, buf: *mut f32) {
        let _ = buf;
    }
}

fn check(n: usize) -> Result<(), Error> {
    if n == 0 { Err(Error) } else { Ok(()) }
}
";

#[test]
fn api_models_from_the_configuration_make_unannotated_pools_checkable() {
    let kernel = format!(
        "pub fn step(pool: &Pool, n: usize) -> Result<f32, Error> {{
    let buf = pool.grab(n);
    check(n)?;
    let v = unsafe {{ *buf }};
    pool.put_back(buf);
    Ok(v)
}}

pub fn step_ok(pool: &Pool, n: usize) -> Result<f32, Error> {{
    check(n)?;
    let buf = pool.grab(n);
    let v = unsafe {{ *buf }};
    pool.put_back(buf);
    Ok(v)
}}
{POOL}"
    );
    let models = "[[models]]\npath = \"Pool::grab\"\neffect = \"alloc\"\n\n[[models]]\npath = \"Pool::put_back\"\neffect = \"free\"\narg = 1\n";
    let dir = scratch("cli", &[("k.rs", &kernel), ("tensor-lint.toml", models)]);
    let lines = leak_lines(&dir);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with("k.rs:2:"), "{lines:?}");
    // Without the models the calls are what their bodies say: nothing to release.
    std::fs::remove_file(dir.join("tensor-lint.toml")).unwrap();
    assert!(leak_lines(&dir).is_empty());
}

#[test]
fn a_model_that_matches_no_call_is_a_warning_at_its_row() {
    let kernel = format!(
        "pub fn step(pool: &Pool, n: usize) -> f32 {{
    let buf = pool.grab(n);
    let v = unsafe {{ *buf }};
    pool.put_back(buf);
    v
}}
{POOL}"
    );
    let models = "[[models]]\npath = \"Pool::grab\"\neffect = \"alloc\"\n\n[[models]]\npath = \"pool::Pool::put_bak\"\neffect = \"free\"\narg = 1\n";
    let dir = scratch("cli", &[("k.rs", &kernel), ("tensor-lint.toml", models)]);
    let output = bin().current_dir(&dir).arg("k.rs").output().unwrap();
    let err = stderr(&output);
    assert!(
        err.contains("warning: the model of `pool::Pool::put_bak` matches no function the checked code calls"),
        "{err}"
    );
    assert!(err.contains("tensor-lint.toml:5:1"), "{err}");
    assert!(!err.contains("model of `Pool::grab`"), "{err}");
}

#[test]
fn configured_out_parameter_allocations_are_owed_on_the_paths_that_use_them() {
    // `meta_describe` belongs to bindings the user cannot annotate: it stores a string
    // the caller must free through its last argument.
    let kernel = "pub fn describe(m: *const Meta) -> Result<usize, Error> {
    let mut text = std::ptr::null_mut();
    let status = unsafe { bindings::meta_describe(m, &mut text) };
    if status != 0 {
        return Err(Error(status));
    }
    let n = unsafe { *text } as usize;
    if n == 0 {
        return Err(Error(0));
    }
    unsafe { bindings::string_free(text) };
    Ok(n)
}

pub fn describe_ok(m: *const Meta) -> Result<usize, Error> {
    let mut text = std::ptr::null_mut();
    let status = unsafe { bindings::meta_describe(m, &mut text) };
    if status != 0 {
        return Err(Error(status));
    }
    let n = unsafe { *text } as usize;
    unsafe { bindings::string_free(text) };
    Ok(n)
}

pub struct Meta;
pub struct Error(pub i32);

mod bindings {
    pub unsafe fn meta_describe(m: *const super::Meta, out: &mut *mut u8) -> i32 {
        let _ = (m, out);
        1
    }
    pub unsafe fn string_free(text: *mut u8) {
        let _ = text;
    }
}
";
    let models = "[[models]]\npath = \"bindings::meta_describe\"\neffect = \"alloc\"\narg = 1\n\n[[models]]\npath = \"bindings::string_free\"\neffect = \"free\"\narg = 0\n";
    let dir = scratch("cli", &[("k.rs", kernel), ("tensor-lint.toml", models)]);
    // One leak: the early return after the read, in `describe`; the failed call's
    // return made nothing, and `describe_ok` frees on every path that holds it.
    let lines = leak_lines(&dir);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with("k.rs:3:"), "{lines:?}");
    // Without the models the calls are what their bodies say: nothing is owed.
    std::fs::remove_file(dir.join("tensor-lint.toml")).unwrap();
    assert!(leak_lines(&dir).is_empty());
}

/// A fresh folder inside `fixtures/ui` (under its target folder), with `files`
/// written into it: loose files there compile with the fixtures' dependencies.
fn ui_scratch(files: &[(&str, &str)]) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    common::scratch_under(
        &root.join("fixtures/ui/target/tensor-lint-tests"),
        "cli",
        files,
    )
}

/// The short-format `leak` lines of checking `k.rs` in `dir`.
fn leak_lines(dir: &std::path::Path) -> Vec<String> {
    let output = bin()
        .current_dir(dir)
        .args(["--message-format=short", "k.rs"])
        .output()
        .unwrap();
    stderr(&output)
        .lines()
        .filter(|l| l.contains("[tensor_lint::leak]"))
        .map(String::from)
        .collect()
}

#[test]
fn the_demo_crate_gets_every_lint_and_no_internal_error() {
    // The README's first command. Its witnesses are checked by substitution (an
    // internal error in debug builds when one does not hold), so a wrong witness shows
    // here as a failed analysis.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let output = bin()
        .arg("--manifest-path")
        .arg(root.join("fixtures/demo/Cargo.toml"))
        .args(["--message-format=short"])
        .output()
        .unwrap();
    let text = stderr(&output);
    assert!(!text.contains("the analyzer failed"), "{text}");
    for lint in [
        "alias_race",
        "false_sharing",
        "leak",
        "double_free",
        "use_after_free",
        "unsafe_inplace",
        "missed_inplace",
        "alloc_in_loop",
    ] {
        assert!(
            text.contains(&format!("[tensor_lint::{lint}]")),
            "no `{lint}` finding in the demo:\n{text}"
        );
    }
}
