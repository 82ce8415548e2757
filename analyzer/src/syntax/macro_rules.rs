//! Expansion of the crate's own declarative macros (`macro_rules!`) at expression and
//! statement position, so that what a kernel's `run_par!` or `free_with!` stands for is
//! lowered like the code it expands to.
//!
//! Macros are matched and transcribed as `rustc` does for the common subset: literal
//! tokens, delimited groups, the fragments `expr`, `ident`, `ty`, `path`, `pat`, `tt`,
//! `literal`, `block` and `lifetime`, and repetitions `$( .. ) sep op` with one
//! separator token. A fragment extends to the next token the matcher expects after it
//! (or to the end of its group), and must parse as its kind. Anything else (`vis`,
//! `item`, ambiguous repetitions) makes the rule fail; an invocation no rule matches
//! stays opaque. Tokens written in the macro body take the span of the invocation;
//! tokens passed in keep their own, so findings point at the caller's code.

use std::collections::HashMap;

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};

/// One rule: what it matches and what it expands to.
struct Rule {
    matcher: Vec<Matcher>,
    body: Vec<TokenTree>,
}

#[derive(Clone, Debug)]
enum Matcher {
    /// A token that must be there (an identifier, a punctuation, a literal).
    Token(TokenTree),
    Group(Delimiter, Vec<Matcher>),
    Fragment(String, Fragment),
    /// `$( .. ) sep op`.
    Repeat(Vec<Matcher>, Option<TokenTree>, char),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fragment {
    Expr,
    Ident,
    Ty,
    Path,
    Pat,
    Tt,
    Literal,
    Block,
    Lifetime,
}

impl Fragment {
    fn named(name: &str) -> Option<Fragment> {
        Some(match name {
            "expr" => Fragment::Expr,
            "ident" => Fragment::Ident,
            "ty" => Fragment::Ty,
            "path" => Fragment::Path,
            "pat" | "pat_param" => Fragment::Pat,
            "tt" => Fragment::Tt,
            "literal" => Fragment::Literal,
            "block" => Fragment::Block,
            "lifetime" => Fragment::Lifetime,
            _ => return None,
        })
    }
}

/// What a fragment variable matched: once, or once per repetition.
#[derive(Clone, Debug)]
enum Bound {
    One(Vec<TokenTree>, Fragment),
    Many(Vec<Bound>),
}

type Bindings = HashMap<String, Bound>;

/// The expansion of an invocation whose tokens are `input` by the macro whose
/// `macro_rules!` body is `definition`, with the body's tokens given span `at`; `None`
/// when no rule matches or a rule uses what is not supported.
pub fn expand(definition: &str, input: TokenStream, at: Span) -> Option<TokenStream> {
    let rules = parse_rules(definition.parse().ok()?)?;
    let input: Vec<TokenTree> = input.into_iter().collect();
    for rule in &rules {
        let mut bound = Bindings::new();
        if match_all(&rule.matcher, &input, &mut bound) {
            let out = transcribe(&rule.body, &bound, &[], at)?;
            return Some(out.into_iter().collect());
        }
    }
    None
}

fn parse_rules(body: TokenStream) -> Option<Vec<Rule>> {
    let tokens: Vec<TokenTree> = body.into_iter().collect();
    let mut rules = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let TokenTree::Group(matcher) = &tokens[i] else {
            return None;
        };
        let arrow = matches!((tokens.get(i + 1), tokens.get(i + 2)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == '=' && b.as_char() == '>');
        let Some(TokenTree::Group(body)) = tokens.get(i + 3).filter(|_| arrow) else {
            return None;
        };
        rules.push(Rule {
            matcher: parse_matcher(matcher.stream())?,
            body: body.stream().into_iter().collect(),
        });
        i += 4;
        if matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            i += 1;
        }
    }
    Some(rules)
}

fn parse_matcher(stream: TokenStream) -> Option<Vec<Matcher>> {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Punct(p) if p.as_char() == '$' => match tokens.get(i + 1) {
                Some(TokenTree::Ident(name)) => {
                    let colon = matches!(tokens.get(i + 2), Some(TokenTree::Punct(c)) if c.as_char() == ':');
                    let Some(TokenTree::Ident(kind)) = tokens.get(i + 3).filter(|_| colon) else {
                        return None;
                    };
                    out.push(Matcher::Fragment(
                        name.to_string(),
                        Fragment::named(&kind.to_string())?,
                    ));
                    i += 4;
                }
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                    let inner = parse_matcher(g.stream())?;
                    let (sep, op, used) = repetition_tail(&tokens[i + 2..])?;
                    out.push(Matcher::Repeat(inner, sep, op));
                    i += 2 + used;
                }
                _ => return None,
            },
            TokenTree::Group(g) => {
                out.push(Matcher::Group(g.delimiter(), parse_matcher(g.stream())?));
                i += 1;
            }
            other => {
                out.push(Matcher::Token(other.clone()));
                i += 1;
            }
        }
    }
    Some(out)
}

/// The separator and operator after `$( .. )`, and how many tokens they take.
fn repetition_tail(rest: &[TokenTree]) -> Option<(Option<TokenTree>, char, usize)> {
    let op = |t: Option<&TokenTree>| match t {
        Some(TokenTree::Punct(p)) if matches!(p.as_char(), '*' | '+' | '?') => Some(p.as_char()),
        _ => None,
    };
    if let Some(o) = op(rest.first()) {
        return Some((None, o, 1));
    }
    let o = op(rest.get(1))?;
    Some((rest.first().cloned(), o, 2))
}

fn same_token(a: &TokenTree, b: &TokenTree) -> bool {
    match (a, b) {
        (TokenTree::Ident(x), TokenTree::Ident(y)) => x == y,
        (TokenTree::Punct(x), TokenTree::Punct(y)) => x.as_char() == y.as_char(),
        (TokenTree::Literal(x), TokenTree::Literal(y)) => x.to_string() == y.to_string(),
        _ => false,
    }
}

/// Whether `ms` matches all of `input`.
fn match_all(ms: &[Matcher], input: &[TokenTree], bound: &mut Bindings) -> bool {
    match_prefix(ms, input, None, bound) == Some(input.len())
}

/// Matches `ms` against the start of `input`; `stop` is the token that follows the
/// sequence (a repetition's separator), where a trailing fragment ends. Returns how many
/// tokens were taken.
fn match_prefix(
    ms: &[Matcher],
    input: &[TokenTree],
    stop: Option<&TokenTree>,
    bound: &mut Bindings,
) -> Option<usize> {
    let mut at = 0;
    for (k, m) in ms.iter().enumerate() {
        match m {
            Matcher::Token(t) => {
                if !same_token(t, input.get(at)?) {
                    return None;
                }
                at += 1;
            }
            Matcher::Group(delim, inner) => {
                let TokenTree::Group(g) = input.get(at)? else {
                    return None;
                };
                if g.delimiter() != *delim {
                    return None;
                }
                let tokens: Vec<TokenTree> = g.stream().into_iter().collect();
                if !match_all(inner, &tokens, bound) {
                    return None;
                }
                at += 1;
            }
            Matcher::Fragment(name, kind) => {
                let follow = match ms.get(k + 1) {
                    Some(Matcher::Token(t)) => Some(t),
                    Some(_) => None,
                    None => stop,
                };
                let taken = fragment(*kind, &input[at..], follow)?;
                bound.insert(
                    name.clone(),
                    Bound::One(input[at..at + taken].to_vec(), *kind),
                );
                at += taken;
            }
            Matcher::Repeat(inner, sep, op) => {
                let follow = match ms.get(k + 1) {
                    Some(Matcher::Token(t)) => Some(t),
                    _ => stop,
                };
                let mut rounds: Vec<Bindings> = Vec::new();
                loop {
                    if rounds.len() == 1 && *op == '?' {
                        break;
                    }
                    let rest = &input[at..];
                    if rest.is_empty() || follow.is_some_and(|f| same_token(f, &rest[0])) {
                        break;
                    }
                    let mut round = Bindings::new();
                    let inner_stop = sep.as_ref().or(follow);
                    let taken = match_prefix(inner, rest, inner_stop, &mut round)?;
                    if taken == 0 {
                        return None;
                    }
                    at += taken;
                    rounds.push(round);
                    match (sep, input.get(at)) {
                        (Some(s), Some(next)) if same_token(s, next) => at += 1,
                        (Some(_), _) => break,
                        (None, _) => {}
                    }
                }
                if *op == '+' && rounds.is_empty() {
                    return None;
                }
                for name in matcher_names(inner) {
                    let each = rounds
                        .iter()
                        .map(|r| r.get(&name).cloned())
                        .collect::<Option<Vec<_>>>()?;
                    bound.insert(name, Bound::Many(each));
                }
            }
        }
    }
    Some(at)
}

fn matcher_names(ms: &[Matcher]) -> Vec<String> {
    let mut out = Vec::new();
    for m in ms {
        match m {
            Matcher::Fragment(n, _) => out.push(n.clone()),
            Matcher::Group(_, inner) | Matcher::Repeat(inner, _, _) => {
                out.extend(matcher_names(inner));
            }
            Matcher::Token(_) => {}
        }
    }
    out
}

/// How many tokens of `input` a fragment of `kind` takes, ending before `follow`.
fn fragment(kind: Fragment, input: &[TokenTree], follow: Option<&TokenTree>) -> Option<usize> {
    let first = input.first()?;
    match kind {
        Fragment::Tt => Some(1),
        Fragment::Ident => matches!(first, TokenTree::Ident(_)).then_some(1),
        Fragment::Block => {
            matches!(first, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace).then_some(1)
        }
        Fragment::Literal => match first {
            TokenTree::Literal(_) => Some(1),
            TokenTree::Punct(p) if p.as_char() == '-' => {
                matches!(input.get(1), Some(TokenTree::Literal(_))).then_some(2)
            }
            _ => None,
        },
        Fragment::Lifetime => match (first, input.get(1)) {
            (TokenTree::Punct(p), Some(TokenTree::Ident(_))) if p.as_char() == '\'' => Some(2),
            _ => None,
        },
        Fragment::Expr | Fragment::Ty | Fragment::Path | Fragment::Pat => {
            let end = match follow {
                Some(f) => input
                    .iter()
                    .position(|t| same_token(f, t))
                    .unwrap_or(input.len()),
                // An expression ends at a `,` or `;` anyway.
                None if kind == Fragment::Expr => input
                    .iter()
                    .position(
                        |t| matches!(t, TokenTree::Punct(p) if matches!(p.as_char(), ',' | ';')),
                    )
                    .unwrap_or(input.len()),
                None => input.len(),
            };
            let tokens: TokenStream = input[..end].iter().cloned().collect();
            let parses = match kind {
                Fragment::Expr => syn::parse2::<syn::Expr>(tokens).is_ok(),
                Fragment::Ty => syn::parse2::<syn::Type>(tokens).is_ok(),
                Fragment::Path => syn::parse2::<syn::Path>(tokens).is_ok(),
                _ => syn::parse::Parser::parse2(syn::Pat::parse_single, tokens).is_ok(),
            };
            (end > 0 && parses).then_some(end)
        }
    }
}

/// The body with its variables replaced; `path` picks the repetition round of each
/// `Many` binding at the current depth.
fn transcribe(
    body: &[TokenTree],
    bound: &Bindings,
    path: &[usize],
    at: Span,
) -> Option<Vec<TokenTree>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < body.len() {
        match &body[i] {
            TokenTree::Punct(p) if p.as_char() == '$' => match body.get(i + 1) {
                Some(TokenTree::Ident(name)) if name == "crate" => {
                    out.push(TokenTree::Ident(Ident::new("crate", at)));
                    i += 2;
                }
                Some(TokenTree::Ident(name)) => {
                    let mut b = bound.get(&name.to_string())?;
                    for &k in path {
                        if let Bound::Many(each) = b {
                            b = each.get(k)?;
                        }
                    }
                    let Bound::One(tokens, kind) = b else {
                        return None;
                    };
                    if *kind == Fragment::Expr {
                        // An expression stays one operand, as `rustc` keeps it.
                        let mut group =
                            Group::new(Delimiter::None, tokens.iter().cloned().collect());
                        group.set_span(tokens.first().map_or(at, TokenTree::span));
                        out.push(TokenTree::Group(group));
                    } else {
                        out.extend(tokens.iter().cloned());
                    }
                    i += 2;
                }
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    let (sep, _, used) = repetition_tail(&body[i + 2..])?;
                    let rounds = rounds_of(&inner, bound, path)?;
                    for k in 0..rounds {
                        if k > 0 {
                            if let Some(s) = &sep {
                                out.push(respan(s.clone(), at));
                            }
                        }
                        let mut deeper = path.to_vec();
                        deeper.push(k);
                        out.extend(transcribe(&inner, bound, &deeper, at)?);
                    }
                    i += 2 + used;
                }
                _ => return None,
            },
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let stream: TokenStream =
                    transcribe(&inner, bound, path, at)?.into_iter().collect();
                let mut group = Group::new(g.delimiter(), stream);
                group.set_span(at);
                out.push(TokenTree::Group(group));
                i += 1;
            }
            other => {
                out.push(respan(other.clone(), at));
                i += 1;
            }
        }
    }
    Some(out)
}

/// How many rounds a repetition in the body runs: the length of the repeated variables
/// it uses at this depth, which must agree.
fn rounds_of(inner: &[TokenTree], bound: &Bindings, path: &[usize]) -> Option<usize> {
    let mut rounds = None;
    for name in body_names(inner) {
        // `$crate` is no variable.
        let Some(mut b) = bound.get(&name) else {
            continue;
        };
        for &k in path {
            if let Bound::Many(each) = b {
                b = each.get(k)?;
            }
        }
        if let Bound::Many(each) = b {
            match rounds {
                Some(n) if n != each.len() => return None,
                _ => rounds = Some(each.len()),
            }
        }
    }
    rounds
}

fn body_names(tokens: &[TokenTree]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '$' => {
                if let Some(TokenTree::Ident(n)) = tokens.get(i + 1) {
                    out.push(n.to_string());
                }
            }
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                out.extend(body_names(&inner));
            }
            _ => {}
        }
    }
    out
}

fn respan(mut t: TokenTree, at: Span) -> TokenTree {
    t.set_span(at);
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(def: &str, input: &str) -> Option<String> {
        expand(def, input.parse().unwrap(), Span::call_site())
            .map(|t| t.to_string().split_whitespace().collect())
    }

    #[test]
    fn fragments_are_substituted_as_single_operands() {
        let def = "($a:expr, $b:expr) => { $a * $b };";
        let out = expand(def, "x + 1, y".parse().unwrap(), Span::call_site()).unwrap();
        let e: syn::Expr = syn::parse2(out).unwrap();
        // `(x + 1) * y`, not `x + 1 * y`.
        assert!(matches!(e, syn::Expr::Binary(b) if matches!(*b.left, syn::Expr::Group(_))));
    }

    #[test]
    fn the_first_rule_that_matches_is_taken() {
        let def = "(@one $e:expr) => { one($e) }; ($e:expr) => { two($e) };";
        assert_eq!(expanded(def, "@one 5").unwrap(), "one(5)");
        assert_eq!(expanded(def, "5").unwrap(), "two(5)");
    }

    #[test]
    fn repetitions_expand_once_per_round() {
        let def = "($($x:expr),* $(,)?) => { [$(f($x)),*] };";
        assert_eq!(expanded(def, "a, b, c,").unwrap(), "[f(a),f(b),f(c)]");
        assert_eq!(expanded(def, "").unwrap(), "[]");
        let def = "($($x:expr),+) => { $($crate::f($x);)+ };";
        assert_eq!(expanded(def, "a, b").unwrap(), "crate::f(a);crate::f(b);");
    }

    #[test]
    fn an_invocation_no_rule_matches_is_not_expanded() {
        assert!(expanded("($a:ident) => { $a };", "1 + 2").is_none());
        assert!(expanded("($v:vis) => {};", "pub").is_none());
        assert!(expanded("($a:expr) => { $b };", "1").is_none());
    }
}
