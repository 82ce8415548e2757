//! The findings of the linter on a snippet, compiled as a crate of its own: a loose file
//! outside any package (std only, the annotations read as written, `#[tensor_lint::…]`),
//! or one inside the UI fixtures' package, with its libraries (ndarray, rayon, tch,
//! candle, crossbeam, the `tensor-lint` annotations).

use std::path::Path;

use serde_json::Value;

use super::{bin, scratch, scratch_under};

/// One finding, as `--message-format json` gives it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The lint's name without the tool (`leak`).
    pub lint: String,
    /// `error` or `warning`.
    pub level: String,
    pub message: String,
    /// The line of the primary span (1-based).
    pub line: usize,
    /// Every label, the primary one first, with the line it is on.
    pub labels: Vec<(usize, String)>,
    pub notes: Vec<String>,
    pub helps: Vec<String>,
    /// The edits of the suggestions: byte range in the snippet and the new text.
    pub edits: Vec<Edit>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub lo: usize,
    pub hi: usize,
    pub text: String,
    /// The suggestion's applicability (`MachineApplicable`, `MaybeIncorrect`, ...).
    pub applicability: String,
}

impl Finding {
    /// The primary label.
    pub fn label(&self) -> &str {
        self.labels.first().map_or("", |(_, l)| l.as_str())
    }

    /// Whether any label contains `needle`.
    pub fn has_label(&self, needle: &str) -> bool {
        self.labels.iter().any(|(_, l)| l.contains(needle))
    }

    /// Whether any help contains `needle`.
    pub fn has_help(&self, needle: &str) -> bool {
        self.helps.iter().any(|h| h.contains(needle))
    }
}

/// The findings of `lint` on `source`.
pub fn findings(lint: &str, source: &str) -> Vec<Finding> {
    findings_with(lint, source, None)
}

/// The findings of `lint` on `source` with `config` as the `tensor-lint.toml` beside it.
/// The snippet must compile: a compile error fails the test with the compiler's output.
pub fn findings_with(lint: &str, source: &str, config: Option<&str>) -> Vec<Finding> {
    let mut files = vec![("k.rs", source)];
    if let Some(config) = config {
        files.push(("tensor-lint.toml", config));
    }
    run(lint, scratch("lint", &files))
}

/// The findings of `lint` on `source` compiled with the dependencies of
/// `fixtures/ui/Cargo.toml` (the snippet sits in that package's target folder, which no
/// fixture listing reads).
pub fn findings_with_libraries(lint: &str, source: &str) -> Vec<Finding> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/ui/target/lint-snippets");
    std::fs::create_dir_all(&base).expect("scratch dir");
    run(lint, scratch_under(&base, "lint", &[("k.rs", source)]))
}

fn run(lint: &str, dir: std::path::PathBuf) -> Vec<Finding> {
    let output = bin()
        .current_dir(&dir)
        .args(["--message-format", "json", "k.rs"])
        .output()
        .expect("the linter runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut found = Vec::new();
    for line in stdout.lines() {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if value["reason"] != "compiler-message" {
            continue;
        }
        let message = &value["message"];
        let code = message["code"]["code"].as_str().unwrap_or("");
        assert!(
            code.starts_with("tensor_lint::"),
            "the snippet does not compile or the run failed:\n{}\n{stderr}",
            message["rendered"].as_str().unwrap_or("")
        );
        if code != format!("tensor_lint::{lint}") {
            continue;
        }
        found.push(finding_of(lint, message));
    }
    assert!(
        matches!(output.status.code(), Some(0..=1)),
        "the linter failed ({:?}):\n{stderr}",
        output.status
    );
    let _ = std::fs::remove_dir_all(&dir);
    found
}

fn finding_of(lint: &str, message: &Value) -> Finding {
    let spans = message["spans"].as_array().cloned().unwrap_or_default();
    let line_of = |span: &Value| span["line_start"].as_u64().unwrap_or(0) as usize;
    let mut labels: Vec<(bool, usize, String)> = spans
        .iter()
        .map(|s| {
            (
                !s["is_primary"].as_bool().unwrap_or(false),
                line_of(s),
                s["label"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    labels.sort_by_key(|(secondary, _, _)| *secondary);
    let line = labels.first().map_or(0, |(_, line, _)| *line);
    let mut notes = Vec::new();
    let mut helps = Vec::new();
    let mut edits = Vec::new();
    for child in message["children"].as_array().into_iter().flatten() {
        let text = child["message"].as_str().unwrap_or("").to_string();
        match child["level"].as_str() {
            Some("help") => helps.push(text),
            Some("note") => notes.push(text),
            _ => {}
        }
        for span in child["spans"].as_array().into_iter().flatten() {
            if let Some(replacement) = span["suggested_replacement"].as_str() {
                edits.push(Edit {
                    lo: span["byte_start"].as_u64().unwrap_or(0) as usize,
                    hi: span["byte_end"].as_u64().unwrap_or(0) as usize,
                    text: replacement.to_string(),
                    applicability: span["suggestion_applicability"]
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                });
            }
        }
    }
    Finding {
        lint: lint.to_string(),
        level: message["level"].as_str().unwrap_or("").to_string(),
        message: message["message"].as_str().unwrap_or("").to_string(),
        line,
        labels: labels.into_iter().map(|(_, l, t)| (l, t)).collect(),
        notes,
        helps,
        edits,
    }
}
