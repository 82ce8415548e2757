//! The `json` stream as rust-analyzer's flycheck consumes it.
//!
//! With `rust-analyzer.check.overrideCommand = ["cargo", "tensor-lint",
//! "--message-format=json", "--workspace"]`, rust-analyzer runs exactly that command in
//! the workspace root, reads stdout line by line as cargo messages, and turns each
//! `compiler-message` into editor diagnostics: it joins `file_name` to the workspace
//! root, places the range by 1-based line and character column, shows `rendered` as the
//! full text and the children as related information. These tests run the command the
//! same way (cargo finding `cargo-tensor-lint` on `PATH`) and check every one of those
//! fields against cargo's own metadata and the files on disk.

mod common;

use common::{package, scratch};

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cargo_metadata::diagnostic::{Diagnostic, DiagnosticLevel, DiagnosticSpan};
use cargo_metadata::{CompilerMessage, Message, Metadata, MetadataCommand, Package};

const BIN: &str = env!("CARGO_BIN_EXE_cargo-tensor-lint");

const WORKSPACE: &str = "[workspace]\nmembers = [\"kernels\", \"pool\"]\nresolver = \"2\"\n";

/// `kernels` has a module that does not parse (so the compiler checks nothing else of
/// the crate, whose other module has a finding); `pool` has unknown lints in allow
/// comments, one on a line with multi-byte characters before the span, a malformed
/// `tensor-lint:` comment, and a leak.
fn workspace() -> PathBuf {
    scratch(
        "ra",
        &[
            ("Cargo.toml", WORKSPACE),
            ("kernels/Cargo.toml", &package("kernels")),
            ("kernels/src/lib.rs", "pub mod broken;\npub mod fine;\n"),
            (
                "kernels/src/broken.rs",
                "pub fn scale(v: &mut [f32] {\n    v[0] *= 2.0;\n}\n",
            ),
            (
                "kernels/src/fine.rs",
                "pub fn forgets() {\n    let v = vec![0.0f32; 16];\n    std::mem::forget(v);\n}\n",
            ),
            ("pool/Cargo.toml", &package("pool")),
            (
                "pool/src/lib.rs",
                "/// Buffers handed out and given back.\n\
             pub fn checkout(n: usize) -> Vec<f32> {\n\
             \x20   let größe = n; // tensor-lint: allow(leek)\n\
             \x20   // tensor-lint: allow(alias_rac, false_shareing)\n\
             \x20   let v = vec![0.0; größe];\n\
             \x20   // tensor-lint: allow(\n\
             \x20   v\n\
             }\n\
             \n\
             pub fn forgets() {\n\
             \x20   let v = vec![0.0f32; 16];\n\
             \x20   std::mem::forget(v);\n\
             }\n",
            ),
        ],
    )
}

/// `PATH` with the directory of the freshly built binary first, so that cargo runs it
/// for `cargo tensor-lint` rather than an installed one.
fn path_with_binary() -> OsString {
    let dir = Path::new(BIN).parent().expect("the binary is in a folder");
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&rest)))
        .expect("PATH entries join")
}

/// What rust-analyzer runs: the override command, in the workspace root.
fn flycheck(root: &Path) -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    Command::new(cargo)
        .args(["tensor-lint", "--message-format=json", "--workspace"])
        .current_dir(root)
        .env("PATH", path_with_binary())
        .env_remove("CLICOLOR_FORCE")
        .output()
        .expect("cargo runs")
}

fn human(root: &Path) -> Output {
    Command::new(BIN)
        .arg("--workspace")
        .current_dir(root)
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

/// Every stdout line as a cargo message, the way flycheck parses it.
fn messages(output: &Output) -> Vec<Message> {
    let messages: Vec<Message> = Message::parse_stream(output.stdout.as_slice())
        .collect::<Result<_, _>>()
        .expect("stdout reads");
    let text_lines: Vec<&String> = messages
        .iter()
        .filter_map(|m| match m {
            Message::TextLine(line) => Some(line),
            _ => None,
        })
        .collect();
    assert!(
        text_lines.is_empty(),
        "lines that are no cargo message: {text_lines:#?}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    messages
}

fn compiler_messages(messages: &[Message]) -> Vec<&CompilerMessage> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::CompilerMessage(message) => Some(message),
            _ => None,
        })
        .collect()
}

fn metadata(root: &Path) -> Metadata {
    MetadataCommand::new()
        .manifest_path(root.join("Cargo.toml"))
        .no_deps()
        .exec()
        .expect("cargo metadata reads the scratch workspace")
}

fn member<'m>(metadata: &'m Metadata, message: &CompilerMessage) -> &'m Package {
    metadata
        .workspace_packages()
        .into_iter()
        .find(|p| p.id == message.package_id)
        .unwrap_or_else(|| panic!("{} is no workspace member", message.package_id))
}

/// Checks a span the way an editor uses it: the file relative to the root and inside
/// `package`, the line text, the character columns and the byte offsets all naming the
/// same text.
fn check_span(root: &Path, package: &Package, span: &DiagnosticSpan) {
    let relative = Path::new(&span.file_name);
    assert!(
        relative.is_relative(),
        "{} is relative to the workspace root",
        span.file_name
    );
    let package_dir = package
        .manifest_path
        .parent()
        .expect("a manifest is in a folder")
        .as_std_path();
    let absolute = root.join(relative);
    assert!(
        absolute.starts_with(package_dir),
        "{} is a file of {}",
        span.file_name,
        package.name
    );
    let text = std::fs::read_to_string(&absolute).expect("the span's file exists");
    let lines: Vec<&str> = text.split('\n').collect();
    assert!(span.line_start >= 1 && span.line_start <= span.line_end);
    assert!(span.line_end <= lines.len(), "{span:?}");
    assert_eq!(span.text.len(), span.line_end - span.line_start + 1);
    for (index, line) in span.text.iter().enumerate() {
        assert_eq!(line.text, lines[span.line_start - 1 + index]);
    }

    // Columns count characters from 1, as rustc's do; turned into byte offsets they
    // must give the span's bytes.
    let byte_of = |line: usize, column: usize| -> usize {
        let line_start: usize = lines[..line - 1].iter().map(|l| l.len() + 1).sum();
        let within: usize = lines[line - 1]
            .chars()
            .take(column - 1)
            .map(char::len_utf8)
            .sum();
        line_start + within
    };
    assert!(span.column_start >= 1 && span.column_end >= 1);
    let start = byte_of(span.line_start, span.column_start);
    let end = byte_of(span.line_end, span.column_end);
    assert_eq!(
        (span.byte_start as usize, span.byte_end as usize),
        (start, end),
        "byte offsets and columns of {span:?}"
    );
    let first = &span.text[0];
    assert_eq!(first.highlight_start, span.column_start);
    let last = &span.text[span.text.len() - 1];
    assert_eq!(last.highlight_end, span.column_end);
    assert!(text.get(start..end).is_some(), "offsets on char boundaries");
}

fn slice<'t>(text: &'t str, span: &DiagnosticSpan) -> &'t str {
    text.get(span.byte_start as usize..span.byte_end as usize)
        .unwrap_or_default()
}

fn primary(diagnostic: &Diagnostic) -> &DiagnosticSpan {
    let primaries: Vec<&DiagnosticSpan> =
        diagnostic.spans.iter().filter(|s| s.is_primary).collect();
    assert_eq!(primaries.len(), 1, "one primary span: {diagnostic:?}");
    primaries[0]
}

#[test]
fn flycheck_reads_every_line_as_a_cargo_message_ending_with_build_finished() {
    let root = workspace();
    let output = flycheck(&root);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let messages = messages(&output);
    let (last, rest) = messages.split_last().expect("the stream is not empty");
    match last {
        Message::BuildFinished(finished) => assert!(!finished.success),
        other => panic!("the stream ends with build-finished, not {other:?}"),
    }
    assert!(
        rest.iter()
            .all(|m| matches!(m, Message::CompilerMessage(_))),
        "{rest:?}"
    );
    // the compiler's error and a malformed comment, three unknown lints, one leak
    assert_eq!(compiler_messages(&messages).len(), 6);
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn compiler_messages_name_the_member_its_manifest_and_its_target() {
    let root = workspace();
    let metadata = metadata(&root);
    let output = flycheck(&root);
    let messages = messages(&output);
    // `cargo_metadata` does not model `manifest_path`; cargo writes it and other
    // consumers read it, so it is checked on the raw lines, which are in step.
    let raw: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is one json value"))
        .collect();
    assert_eq!(raw.len(), messages.len());
    for (message, raw) in compiler_messages(&messages).into_iter().zip(&raw) {
        let package = member(&metadata, message);
        assert_eq!(raw["manifest_path"], package.manifest_path.as_str());
        let target = package
            .targets
            .iter()
            .find(|t| t.name == message.target.name)
            .expect("the target is one of the package's");
        assert_eq!(&message.target, target, "cargo's own description");
        // Problems with the input are errors; an unknown lint in an allow and the
        // leak are warnings.
        let leak = message
            .message
            .code
            .as_ref()
            .is_some_and(|c| c.code == "tensor_lint::leak");
        let expected = if message.message.message.starts_with("unknown lint") || leak {
            DiagnosticLevel::Warning
        } else {
            DiagnosticLevel::Error
        };
        assert_eq!(message.message.level, expected, "{:?}", message.message);
    }
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn spans_are_relative_one_based_and_slice_the_labelled_text() {
    let root = workspace();
    let metadata = metadata(&root);
    let output = flycheck(&root);
    let messages = messages(&output);
    for message in compiler_messages(&messages) {
        let package = member(&metadata, message);
        let diagnostic = &message.message;
        let spans = diagnostic
            .spans
            .iter()
            .chain(diagnostic.children.iter().flat_map(|c| &c.spans));
        for span in spans {
            check_span(&root, package, span);
        }
        primary(diagnostic);
    }

    // Every unknown name is the exact text the primary span covers.
    for message in compiler_messages(&messages) {
        let diagnostic = &message.message;
        let Some(name) = diagnostic
            .message
            .strip_prefix("unknown lint `")
            .and_then(|rest| rest.strip_suffix('`'))
        else {
            continue;
        };
        let span = primary(diagnostic);
        let text = std::fs::read_to_string(root.join(&span.file_name)).expect("readable");
        assert_eq!(slice(&text, span), name);
    }

    // `größe` moves the byte offset but not the column.
    let leek = compiler_messages(&messages)
        .into_iter()
        .find(|m| m.message.message == "unknown lint `leek`")
        .expect("the unknown lint `leek` is reported");
    let span = primary(&leek.message);
    assert_eq!(span.file_name, "pool/src/lib.rs");
    assert_eq!((span.line_start, span.column_start), (3, 42));
    let line_start =
        "/// Buffers handed out and given back.\npub fn checkout(n: usize) -> Vec<f32> {\n".len();
    assert_eq!(
        (span.byte_start, span.byte_end),
        (line_start as u32 + 43, line_start as u32 + 47)
    );
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn children_carry_the_help_and_rendered_is_the_human_text() {
    let root = workspace();
    let output = flycheck(&root);
    let messages = messages(&output);
    let compiler = compiler_messages(&messages);
    for message in &compiler {
        let diagnostic = &message.message;
        if !diagnostic.message.starts_with("unknown lint") {
            continue;
        }
        let helps: Vec<&Diagnostic> = diagnostic
            .children
            .iter()
            .filter(|c| c.level == DiagnosticLevel::Help)
            .collect();
        assert_eq!(helps.len(), 1, "{diagnostic:?}");
        assert!(helps[0].message.starts_with("did you mean `"), "{helps:?}");
        assert!(helps[0].rendered.is_none() && helps[0].children.is_empty());
    }
    let suggestion = compiler
        .iter()
        .find(|m| m.message.message == "unknown lint `alias_rac`")
        .expect("the unknown lint `alias_rac` is reported");
    assert_eq!(
        suggestion.message.children[0].message,
        "did you mean `alias_race`?"
    );

    // rust-analyzer shows `rendered` as the full diagnostic: it must be what a person
    // running the command in a terminal reads, in the same order.
    let rendered: String = compiler
        .iter()
        .map(|m| {
            m.message
                .rendered
                .clone()
                .expect("every message is rendered")
        })
        .collect();
    let terminal = human(&root);
    let stderr = String::from_utf8_lossy(&terminal.stderr);
    let summary = stderr
        .strip_prefix(rendered.as_str())
        .unwrap_or_else(|| panic!("human output:\n{stderr}\nrendered:\n{rendered}"));
    assert_eq!(
        summary,
        "error: aborting due to 2 previous errors; 4 warnings emitted\n"
    );
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn a_crate_that_does_not_compile_hides_nothing_of_the_other_member() {
    let root = workspace();
    let output = flycheck(&root);
    let messages = messages(&output);
    let found: BTreeSet<(String, String)> = compiler_messages(&messages)
        .into_iter()
        .map(|m| {
            (
                primary(&m.message).file_name.clone(),
                m.message.message.clone(),
            )
        })
        .collect();
    let expected: BTreeSet<(String, String)> = [
        (
            "kernels/src/broken.rs",
            "this file contains an unclosed delimiter",
        ),
        ("pool/src/lib.rs", "unknown lint `leek`"),
        ("pool/src/lib.rs", "unknown lint `alias_rac`"),
        ("pool/src/lib.rs", "unknown lint `false_shareing`"),
        ("pool/src/lib.rs", "malformed `tensor-lint:` comment"),
        ("pool/src/lib.rs", "`v` is never released"),
    ]
    .into_iter()
    .map(|(file, message)| (file.to_string(), message.to_string()))
    .collect();
    assert_eq!(found, expected);
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn a_member_whose_root_file_does_not_parse_leaves_the_other_member_checked() {
    let root = scratch("ra", &[
        ("Cargo.toml", WORKSPACE),
        ("kernels/Cargo.toml", &package("kernels")),
        ("kernels/src/lib.rs", "pub fn scale(v: &mut [f32]) -> {\n}\n"),
        ("pool/Cargo.toml", &package("pool")),
        (
            "pool/src/lib.rs",
            "// tensor-lint: allow(leek)\npub fn checkout(n: usize) -> Vec<f32> {\n    vec![0.0; n]\n}\n",
        ),
    ]);
    let metadata = metadata(&root);
    let output = flycheck(&root);
    let messages = messages(&output);
    let compiler = compiler_messages(&messages);
    let by_member = |name: &str| -> Vec<&str> {
        compiler
            .iter()
            .filter(|m| member(&metadata, m).name.as_str() == name)
            .map(|m| m.message.message.as_str())
            .collect()
    };
    let kernels = by_member("kernels");
    assert_eq!(kernels.len(), 1, "{kernels:?}");
    assert_eq!(
        compiler
            .iter()
            .find(|m| member(&metadata, m).name.as_str() == "kernels")
            .map(|m| m.message.level),
        // The compiler's error: the build fails.
        Some(DiagnosticLevel::Error)
    );
    assert_eq!(by_member("pool"), ["unknown lint `leek`"]);
    match messages.last() {
        Some(Message::BuildFinished(finished)) => assert!(!finished.success),
        other => panic!("the stream ends with build-finished, not {other:?}"),
    }
    let _ = std::fs::remove_dir_all(root);
}
