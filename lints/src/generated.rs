//! Files made from the registry, so that no list of lints is kept by hand: the book's
//! lint pages and its summary entries, the README's table, and the names the annotation
//! crate accepts. `lints/tests/generated.rs` compares each with the file in the
//! repository and rewrites it under `TENSOR_LINT_BLESS=1`.

use crate::registry::{lints, Lint, Status};

/// A UI fixture shown on a lint's page: its file name, source and expected output.
pub struct Fixture {
    pub name: String,
    pub source: String,
    pub expected: String,
}

/// `book/src/lints/index.md`.
pub fn index_page() -> String {
    let mut out = String::from("# Lints\n\n");
    out.push_str(
        "Every lint has a code `tensor_lint::NAME`, a default level and a group. Set levels with\n",
    );
    out.push_str("`-W/-A/-D NAME` on the command line or under `[lints]` in the configuration, and silence\n");
    out.push_str(
        "single findings with `#[tensor_lint::allow(NAME)]` or `// tensor-lint: allow(NAME)`.\n\n",
    );
    out.push_str("| lint | default level | group | what it finds |\n|---|---|---|---|\n");
    for lint in lints() {
        out.push_str(&format!(
            "| [`{}`]({}.md) | {} | {} | {}{} |\n",
            lint.name,
            lint.name,
            level_text(lint),
            lint.group.as_str(),
            lint.summary,
            if lint.status == Status::Planned {
                " (not checked yet)"
            } else {
                ""
            },
        ));
    }
    out
}

/// `book/src/lints/NAME.md`: the registry docs, then examples from the UI fixtures.
pub fn lint_page(lint: &Lint, fixtures: &[Fixture]) -> String {
    let mut out = format!("# `{}`\n\n", lint.name);
    out.push_str(&format!(
        "Code `{}` · default level: {} · group: {}\n\n",
        lint.code(),
        level_text(lint),
        lint.group.as_str()
    ));
    if lint.status == Status::Planned {
        out.push_str("> This lint is declared but not checked yet: it never fires.\n\n");
    }
    // The docs' `###` sections become the page's `##` sections.
    for line in lint.explanation().lines() {
        match line.strip_prefix("### ") {
            Some(title) => out.push_str(&format!("## {title}\n")),
            None => out.push_str(line),
        }
        if !line.starts_with("### ") {
            out.push('\n');
        }
    }
    if !fixtures.is_empty() {
        out.push_str("\n## From the test suite\n\n");
        out.push_str("These cases are UI tests (`fixtures/ui/");
        out.push_str(lint.name);
        out.push_str("/`): the code, and what `cargo tensor-lint` prints for it.\n");
        for fixture in fixtures {
            out.push_str(&format!(
                "\n### `{}`\n\n```rust,ignore\n{}",
                fixture.name, fixture.source
            ));
            if !fixture.source.ends_with('\n') {
                out.push('\n');
            }
            out.push_str("```\n\n```text\n");
            out.push_str(&fixture.expected);
            if !fixture.expected.ends_with('\n') {
                out.push('\n');
            }
            out.push_str("```\n");
        }
    }
    out
}

fn level_text(lint: &Lint) -> String {
    if lint.possible_is_warn {
        format!(
            "{} when proven, warn when only possible",
            lint.default_level.as_str()
        )
    } else {
        lint.default_level.as_str().to_string()
    }
}

/// The lint entries of `book/src/SUMMARY.md`, under its `Lints` entry.
pub fn summary_entries() -> String {
    lints()
        .iter()
        .map(|lint| format!("  - [{}](lints/{}.md)\n", lint.name, lint.name))
        .collect()
}

/// The table of lints at the top of `README.md`.
pub fn readme_table() -> String {
    let mut out = String::from("| lint | finds | default level |\n|---|---|---|\n");
    for lint in lints() {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            lint.name,
            lint.summary,
            level_text(lint)
        ));
    }
    out
}

/// `macros/src/lint_names.rs`: the annotation crate is what users compile, so it cannot
/// depend on this crate (which pulls in the analyzer and Z3); it gets the names as a
/// generated file instead.
pub fn macros_lint_names() -> String {
    let mut out = String::from(
        "//! Generated from the lint registry by `lints/tests/generated.rs`\n\
         //! (`TENSOR_LINT_BLESS=1 cargo test -p tensor-lint-lints --test generated`); do not edit.\n\n\
         /// Every lint of tensor-lint, in the registry's order.\n\
         pub(crate) const LINT_NAMES: &[&str] = &[\n",
    );
    for lint in lints() {
        out.push_str(&format!("    \"{}\",\n", lint.name));
    }
    out.push_str("];\n");
    out
}
