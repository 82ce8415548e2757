//! The lint names `#[tensor_lint::allow(...)]` accepts.
//!
//! This crate is what users compile, so it cannot depend on the linter's registry
//! (`tensor-lint-lints`, which pulls in the analyzer and Z3); the names come from
//! `lint_names.rs`, which the registry generates.

use proc_macro2::{Delimiter, Ident, Spacing, Span, TokenStream, TokenTree};
use syn::LitStr;

use crate::error_list::ErrorList;
use crate::similar_name::closest;

use crate::lint_names::LINT_NAMES;

/// The tool prefix users may write before a lint name.
const TOOL: &str = "tensor_lint";

/// Reads an `allow` list, `leak, tensor_lint::double_free`, reporting every bad entry.
///
/// Entries are read as tokens rather than as Rust expressions because the likeliest
/// typo, `use-after-free`, is not an expression (`use` is a keyword).
pub(crate) fn check_lint_list(args: TokenStream) -> syn::Result<Vec<String>> {
    // Split at top-level commas; an empty entry keeps the comma's span for its error.
    let mut entries: Vec<(Vec<TokenTree>, Option<Span>)> = Vec::new();
    let mut current: Vec<TokenTree> = Vec::new();
    for token in flatten_invisible_groups(args) {
        match token {
            TokenTree::Punct(comma) if comma.as_char() == ',' => {
                entries.push((std::mem::take(&mut current), Some(comma.span())));
            }
            other => current.push(other),
        }
    }
    // A trailing comma leaves nothing after it; that is not a mistake.
    if !current.is_empty() {
        entries.push((current, None));
    }

    let mut names: Vec<String> = Vec::new();
    let mut errors = ErrorList::default();
    for (entry, comma) in &entries {
        if entry.is_empty() {
            let span = comma.unwrap_or_else(Span::call_site);
            errors.push(syn::Error::new(span, "expected a lint name before `,`"));
            continue;
        }
        match check_lint_name(entry) {
            Ok(name) if names.contains(&name) => errors.push(syn::Error::new_spanned(
                entry.iter().cloned().collect::<TokenStream>(),
                format!("`{name}` is listed twice"),
            )),
            Ok(name) => names.push(name),
            Err(error) => errors.push(error),
        }
    }
    errors.finish(names)
}

/// Unwraps the invisible groups `macro_rules!` puts around `$name:path` fragments, so a
/// lint name passed through a macro reads like one written directly.
fn flatten_invisible_groups(tokens: TokenStream) -> Vec<TokenTree> {
    let mut flat = Vec::new();
    for token in tokens {
        match token {
            TokenTree::Group(group) if group.delimiter() == Delimiter::None => {
                flat.extend(flatten_invisible_groups(group.stream()));
            }
            other => flat.push(other),
        }
    }
    flat
}

/// One entry of an `allow` list: `leak` or `tensor_lint::leak`; returns the short name.
fn check_lint_name(entry: &[TokenTree]) -> syn::Result<String> {
    let whole = || entry.iter().cloned().collect::<TokenStream>();
    if let Some(words) = dashed_words(entry) {
        // `double-free` is a spelling of `double_free`, not a path or an expression.
        let words: Vec<String> = words.iter().map(ToString::to_string).collect();
        let written = words.join("-");
        let underscored = words.join("_");
        let message = if LINT_NAMES.contains(&underscored.as_str()) {
            format!("unknown lint `{written}`, did you mean `{underscored}`?")
        } else {
            format!("unknown lint `{written}`, lint names are written with `_`")
        };
        return Err(syn::Error::new_spanned(whole(), message));
    }
    if let Some(segments) = path_segments(entry) {
        return match segments.as_slice() {
            [name] => known_lint(name),
            [tool, name] if *tool == TOOL => known_lint(name),
            [tool, ..] if *tool == TOOL => Err(syn::Error::new_spanned(
                whole(),
                "expected one lint name after `tensor_lint::`",
            )),
            [tool, ..] => {
                let written: Vec<String> = segments.iter().map(ToString::to_string).collect();
                Err(syn::Error::new_spanned(
                    tool,
                    format!(
                        "`{tool}` lints are not tensor-lint's, use `#[allow({})]` for them",
                        written.join("::")
                    ),
                ))
            }
            [] => Err(syn::Error::new_spanned(whole(), "expected a lint name")),
        };
    }
    if let [TokenTree::Literal(literal)] = entry {
        let hint = match syn::parse2::<LitStr>(TokenTree::Literal(literal.clone()).into()) {
            Ok(text) => format!(", write `{}` without quotes", text.value()),
            Err(_) => String::new(),
        };
        return Err(syn::Error::new_spanned(
            literal,
            format!("expected a lint name, found a literal{hint}"),
        ));
    }
    Err(syn::Error::new_spanned(whole(), "expected a lint name"))
}

fn known_lint(name: &Ident) -> syn::Result<String> {
    let written = name.to_string();
    if LINT_NAMES.contains(&written.as_str()) {
        return Ok(written);
    }
    let message = match closest(&written, LINT_NAMES) {
        Some(suggestion) => format!("unknown lint `{written}`, did you mean `{suggestion}`?"),
        None => format!(
            "unknown lint `{written}`, expected one of {}",
            LINT_NAMES
                .iter()
                .map(|lint| format!("`{lint}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Err(syn::Error::new_spanned(name, message))
}

/// `a-b-c` as its words, when the entry is two or more identifiers joined by `-`.
fn dashed_words(entry: &[TokenTree]) -> Option<Vec<&Ident>> {
    if entry.len() < 3 || entry.len() % 2 == 0 {
        return None;
    }
    let mut words = Vec::new();
    for (i, token) in entry.iter().enumerate() {
        match token {
            TokenTree::Ident(word) if i % 2 == 0 => words.push(word),
            TokenTree::Punct(dash) if i % 2 == 1 && dash.as_char() == '-' => {}
            _ => return None,
        }
    }
    Some(words)
}

/// `a::b::c` as its segments, when the entry is identifiers joined by `::`.
fn path_segments(entry: &[TokenTree]) -> Option<Vec<&Ident>> {
    let mut segments = Vec::new();
    let mut rest = entry;
    loop {
        let [TokenTree::Ident(segment), tail @ ..] = rest else {
            return None;
        };
        segments.push(segment);
        match tail {
            [] => return Some(segments),
            [TokenTree::Punct(first), TokenTree::Punct(second), tail @ ..]
                if first.as_char() == ':'
                    && first.spacing() == Spacing::Joint
                    && second.as_char() == ':' =>
            {
                rest = tail;
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(source: &str) -> syn::Result<Vec<String>> {
        match source.parse::<TokenStream>() {
            Ok(tokens) => check_lint_list(tokens),
            Err(error) => panic!("`{source}` does not lex: {error}"),
        }
    }

    fn rejection(source: &str) -> String {
        match list(source) {
            Ok(names) => panic!("`{source}` was accepted as {names:?}"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn accepts_every_lint_with_and_without_the_tool_prefix() {
        for lint in LINT_NAMES {
            assert_eq!(list(lint).ok(), Some(vec![lint.to_string()]));
            let prefixed = format!("tensor_lint::{lint}");
            assert_eq!(list(&prefixed).ok(), Some(vec![lint.to_string()]));
        }
    }

    #[test]
    fn suggests_the_closest_lint_for_a_typo() {
        assert_eq!(
            rejection("leek"),
            "unknown lint `leek`, did you mean `leak`?"
        );
        assert_eq!(
            rejection("tensor_lint::alias_rase"),
            "unknown lint `alias_rase`, did you mean `alias_race`?"
        );
    }

    #[test]
    fn lists_the_lints_when_nothing_is_close() {
        let message = rejection("warnings");
        assert!(
            message.starts_with("unknown lint `warnings`, expected one of `leak`, "),
            "{message}"
        );
        assert!(message.ends_with("`alloc_in_loop`"), "{message}");
    }

    #[test]
    fn points_other_tools_to_the_builtin_allow() {
        assert_eq!(
            rejection("clippy::needless_range_loop"),
            "`clippy` lints are not tensor-lint's, use `#[allow(clippy::needless_range_loop)]` for them"
        );
    }

    #[test]
    fn corrects_dashes_to_underscores() {
        assert_eq!(
            rejection("double-free"),
            "unknown lint `double-free`, did you mean `double_free`?"
        );
        assert_eq!(
            rejection("use-after-free"),
            "unknown lint `use-after-free`, did you mean `use_after_free`?"
        );
        assert_eq!(
            rejection("no-such"),
            "unknown lint `no-such`, lint names are written with `_`"
        );
    }

    #[test]
    fn rejects_literals_and_other_expressions() {
        assert_eq!(
            rejection("\"leak\""),
            "expected a lint name, found a literal, write `leak` without quotes"
        );
        assert_eq!(rejection("leak()"), "expected a lint name");
        assert_eq!(rejection("::leak"), "expected a lint name");
        assert_eq!(rejection("leak::<u8>"), "expected a lint name");
        assert_eq!(rejection("tensor_lint:leak"), "expected a lint name");
        assert_eq!(
            rejection("tensor_lint::leak::more"),
            "expected one lint name after `tensor_lint::`"
        );
    }

    #[test]
    fn reads_names_inside_invisible_groups() {
        let name: TokenStream = match "tensor_lint::leak".parse() {
            Ok(tokens) => tokens,
            Err(error) => panic!("{error}"),
        };
        let grouped = TokenTree::Group(proc_macro2::Group::new(Delimiter::None, name));
        assert_eq!(
            check_lint_list(TokenStream::from(grouped)).ok(),
            Some(vec!["leak".to_string()])
        );
    }

    #[test]
    fn reads_a_list_in_order_with_a_trailing_comma() {
        assert_eq!(
            list("alias_race, tensor_lint::leak,").ok(),
            Some(vec!["alias_race".to_string(), "leak".to_string()])
        );
        assert_eq!(list("").ok(), Some(vec![]));
    }

    #[test]
    fn reports_every_bad_entry_of_a_list() {
        let error = match list("leek, leak, leak, , 'x'") {
            Ok(names) => panic!("accepted as {names:?}"),
            Err(error) => error,
        };
        let messages: Vec<String> = error.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(
            messages,
            [
                "unknown lint `leek`, did you mean `leak`?",
                "`leak` is listed twice",
                "expected a lint name before `,`",
                "expected a lint name, found a literal",
            ]
        );
    }
}
