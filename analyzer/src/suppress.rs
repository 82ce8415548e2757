//! Where the user silenced findings: `// tensor-lint: allow(…)` on the line before a
//! statement or item, or at the end of its line. (`#[tensor_lint::allow(…)]` on items
//! is read from the compiler's attributes by the driver, into the same regions.)
//!
//! The analyzer does not know which lint names exist; it returns the names as written,
//! with their spans, and the caller checks them.

use crate::source::{FileId, SourceError, SourceFile, Span};

/// A lint name as written in an allow, with its place.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AllowedName {
    pub name: String,
    pub span: Span,
}

/// Findings of `names` whose primary span starts inside `region` are silenced.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AllowRegion {
    pub region: Span,
    pub names: Vec<AllowedName>,
}

/// The comment allows of `file`, each covering the outermost of `starts` (the spans of
/// the statements and items the front end found) that begins on the line it covers.
pub fn comment_regions(file: &SourceFile, starts: &[Span]) -> (Vec<AllowRegion>, Vec<SourceError>) {
    let mut errors = Vec::new();
    let targets = comment_targets(file, &mut errors);
    (target_regions(file, targets, starts), errors)
}

/// The line each comment allow of `file` covers, with the names it allows: a comment
/// after code covers the statement on its own line; a comment alone on its line, the
/// statement on the next line with code.
fn comment_targets(
    file: &SourceFile,
    errors: &mut Vec<SourceError>,
) -> Vec<(usize, Vec<AllowedName>)> {
    // Most files have no allow at all: the lexical scan is skipped for them.
    if !file.text.contains(COMMENT_PREFIX) {
        return Vec::new();
    }
    comment_allows(file, errors)
        .into_iter()
        .filter_map(|(line, names, trailing)| {
            let target = if trailing {
                Some(line)
            } else {
                next_code_line(file, line)
            };
            Some((target?, names))
        })
        .collect()
}

/// The region of each target: the outermost statement or item of `starts` that begins
/// on the target's line (an allow before nothing silences nothing but that line).
fn target_regions(
    file: &SourceFile,
    targets: Vec<(usize, Vec<AllowedName>)>,
    starts: &[Span],
) -> Vec<AllowRegion> {
    targets
        .into_iter()
        .map(|(target_line, names)| {
            let start = file.line_start(target_line);
            let end = file.line_start(target_line + 1);
            let region = starts
                .iter()
                .filter(|span| span.file == file.id)
                .filter(|span| (span.lo as usize) >= start && (span.lo as usize) < end)
                .max_by_key(|span| (span.hi - span.lo, std::cmp::Reverse(span.lo)))
                .copied()
                .unwrap_or_else(|| Span::new(file.id, start, end));
            AllowRegion { region, names }
        })
        .collect()
}

const COMMENT_PREFIX: &str = "tensor-lint:";

/// `// tensor-lint: allow(a, b)` comments: the 0-based line of each, its names, and
/// whether it follows code on its line.
fn comment_allows(
    file: &SourceFile,
    errors: &mut Vec<SourceError>,
) -> Vec<(usize, Vec<AllowedName>, bool)> {
    let mut found = Vec::new();
    crate::lexical::scan(&file.text, |comment| {
        let body = comment.text.trim_start();
        let Some(rest) = body.strip_prefix(COMMENT_PREFIX) else {
            return;
        };
        let body_at = comment.start + 2 + (comment.text.len() - body.len());
        let rest_at = body_at + COMMENT_PREFIX.len();
        match parse_comment_allow(rest, rest_at, file.id) {
            Ok(names) => {
                let line = file.line_index(comment.start);
                let before = file
                    .text
                    .get(file.line_start(line)..comment.start)
                    .unwrap_or("");
                found.push((line, names, !before.trim().is_empty()));
            }
            Err((lo, hi, label)) => errors.push(SourceError {
                span: Span::new(file.id, lo, hi),
                message: "malformed `tensor-lint:` comment".into(),
                label,
                unsure: false,
            }),
        }
    });
    found
}

/// Parses ` allow(name, name)` (what follows `tensor-lint:`); `at` is its byte offset.
fn parse_comment_allow(
    text: &str,
    at: usize,
    file: FileId,
) -> Result<Vec<AllowedName>, (usize, usize, String)> {
    let trimmed = text.trim_start();
    let start = at + (text.len() - trimmed.len());
    let whole = (
        start,
        at + text.trim_end().len().max(text.len() - trimmed.len()),
    );
    let Some(args) = trimmed.strip_prefix("allow") else {
        return Err((whole.0, whole.1, "expected `allow(LINT, …)`".into()));
    };
    let args_trim = args.trim_start();
    let open = start + 5 + (args.len() - args_trim.len());
    let Some(inner) = args_trim.strip_prefix('(') else {
        return Err((whole.0, whole.1, "expected `(` after `allow`".into()));
    };
    let Some(close) = inner.find(')') else {
        return Err((open, whole.1, "this `(` is never closed".into()));
    };
    let after = inner[close + 1..].trim();
    if !after.is_empty() && !after.starts_with("--") {
        let after_at = open + 1 + close + 1 + inner[close + 1..].find(after).unwrap_or(0);
        return Err((
            after_at,
            after_at + after.len(),
            "unexpected text after `allow(…)`".into(),
        ));
    }
    let mut names = Vec::new();
    let mut offset = open + 1;
    for part in inner[..close].split(',') {
        let name = part.trim();
        let name_at = offset + (part.len() - part.trim_start().len());
        offset += part.len() + 1;
        if name.is_empty() {
            if inner[..close].trim().is_empty() {
                return Err((
                    open,
                    open + close + 2,
                    "expected at least one lint name".into(),
                ));
            }
            continue; // a trailing comma
        }
        let valid = name.split("::").all(|seg| {
            let mut chars = seg.chars();
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        if !valid {
            return Err((name_at, name_at + name.len(), "expected a lint name".into()));
        }
        names.push(AllowedName {
            name: name.to_string(),
            span: Span::new(file, name_at, name_at + name.len()),
        });
    }
    Ok(names)
}

/// The first line after `line` that is not blank and not only a comment or attribute.
/// The first line after `line` with code on it: blank lines, line comments (doc ones
/// too) and lines that only hold a block comment (`/** Docs. */`, which may run over
/// several lines) are skipped.
fn next_code_line(file: &SourceFile, line: usize) -> Option<usize> {
    let mut in_block = false;
    (line + 1..file.line_count()).find(|&l| {
        let text = file.line_text(l).trim();
        if in_block {
            in_block = !text.contains("*/");
            return in_block_ends_with_code(text, in_block);
        }
        if text.starts_with("/*") {
            match text.find("*/") {
                Some(end) => return !text[end + 2..].trim().is_empty(),
                None => {
                    in_block = true;
                    return false;
                }
            }
        }
        !text.is_empty() && !text.starts_with("//")
    })
}

/// A line that closes a block comment holds code when something follows the `*/`.
fn in_block_ends_with_code(text: &str, still_open: bool) -> bool {
    !still_open
        && text
            .find("*/")
            .is_some_and(|end| !text[end + 2..].trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::source::FileId;

    /// The comment allows of `text` as covered regions (text, names) and errors, with
    /// `statements` (each found in `text`) as what a comment can cover, as the driver
    /// gives the statements and items of the compiler's HIR.
    fn allows(text: &str, statements: &[&str]) -> (Vec<(String, Vec<String>)>, Vec<String>) {
        let file = SourceFile::new(FileId(0), "a.rs".into(), "a.rs".into(), text.into());
        let starts: Vec<Span> = statements
            .iter()
            .map(|s| {
                let lo = text.find(s).expect("statement in the text");
                Span::new(FileId(0), lo, lo + s.len())
            })
            .collect();
        let (regions, errors) = comment_regions(&file, &starts);
        let regions = regions
            .into_iter()
            .map(|r| {
                (
                    text[r.region.range()].to_string(),
                    r.names.into_iter().map(|n| n.name).collect(),
                )
            })
            .collect();
        (
            regions,
            errors
                .into_iter()
                .map(|e| format!("{}: {}", e.message, e.label))
                .collect(),
        )
    }

    #[test]
    fn comment_covers_the_next_statement_across_lines() {
        let text = "fn f() {\n    // tensor-lint: allow(leak)\n    let p = alloc(\n        4,\n    );\n    other();\n}\n";
        let (regions, errors) = allows(text, &["let p = alloc(\n        4,\n    );", "other();"]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            regions,
            [(
                "let p = alloc(\n        4,\n    );".to_string(),
                vec!["leak".to_string()]
            )]
        );
    }

    #[test]
    fn comment_allow_covers_a_documented_item_whole() {
        for docs in [
            "/// Allocates.\n",
            "/** Allocates. */\n",
            "/**\n * Allocates.\n */\n",
        ] {
            let text = format!(
                "// tensor-lint: allow(leak)\n{docs}pub fn f() {{\n    g();\n}}\nfn h() {{}}\n"
            );
            let (regions, errors) =
                allows(&text, &["pub fn f() {\n    g();\n}", "g();", "fn h() {}"]);
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(regions.len(), 1, "{docs:?}");
            assert_eq!(regions[0].0, "pub fn f() {\n    g();\n}", "{docs:?}");
        }
    }

    #[test]
    fn comment_allow_skips_blank_and_comment_lines() {
        let text = "fn f() {\n    // tensor-lint: allow(leak)\n\n    // why: the pool outlives us\n    g();\n}\n";
        let (regions, _) = allows(text, &["g();"]);
        assert_eq!(regions[0].0, "g();");
    }

    #[test]
    fn malformed_comments_are_errors_with_a_reason() {
        for (text, reason) in [
            (
                "// tensor-lint: alow(leak)\nfn f() {}\n",
                "expected `allow(LINT, …)`",
            ),
            (
                "// tensor-lint: allow leak\nfn f() {}\n",
                "expected `(` after `allow`",
            ),
            (
                "// tensor-lint: allow(leak\nfn f() {}\n",
                "this `(` is never closed",
            ),
            (
                "// tensor-lint: allow()\nfn f() {}\n",
                "expected at least one lint name",
            ),
            (
                "// tensor-lint: allow(le-ak)\nfn f() {}\n",
                "expected a lint name",
            ),
            (
                "// tensor-lint: allow(leak) please\nfn f() {}\n",
                "unexpected text after `allow(…)`",
            ),
        ] {
            let (regions, errors) = allows(text, &["fn f() {}"]);
            assert!(regions.is_empty(), "{text}");
            assert_eq!(
                errors,
                [format!("malformed `tensor-lint:` comment: {reason}")],
                "{text}"
            );
        }
    }

    #[test]
    fn ordinary_comments_and_strings_are_ignored() {
        let (regions, errors) = allows(
            "fn f() {\n    let s = \"// tensor-lint: allow(leak)\";\n    // tensor lint is great\n}\n",
            &[],
        );
        assert!(regions.is_empty() && errors.is_empty());
    }
}
