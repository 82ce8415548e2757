//! The arguments of the `#[tensor_lint::…]` annotations, read as text.
//!
//! The compiler front end finds the annotations as tool attributes the `tensor-lint`
//! macros leave on the items they check (the macros have already refused malformed
//! arguments at compile time), with their arguments as the compiler prints tokens:
//! `assume(n >= 1, n % 16 == 0)`, `buf`, `of = data`. This module reads that text;
//! it never fails by panicking, and says what it could not read.

use crate::ir::Assumption;
use crate::oracle::{Cmp, Expr};

/// The parameter names of `free(a, b)` / `inplace(a, b)`.
pub fn names(text: &str) -> Result<Vec<String>, String> {
    let tokens = tokenize(text)?;
    let mut out = Vec::new();
    let mut expect_name = true;
    for token in tokens {
        match (token, expect_name) {
            (Token::Ident(name), true) => {
                out.push(name);
                expect_name = false;
            }
            (Token::Comma, false) => expect_name = true,
            (token, _) => return Err(format!("unexpected `{}`", token.text())),
        }
    }
    if out.is_empty() {
        return Err("expected a parameter name".into());
    }
    Ok(out)
}

/// The target of `view(of = NAME)`.
pub fn view_of(text: &str) -> Result<String, String> {
    match tokenize(text)?.as_slice() {
        [Token::Ident(of), Token::Eq, Token::Ident(name)] if of == "of" => Ok(name.clone()),
        _ => Err("expected `of = ARG`".into()),
    }
}

/// The conditions of `kernel(assume(c, …))`; an empty argument list assumes nothing.
pub fn kernel(text: &str) -> Result<Vec<Assumption>, String> {
    let tokens = tokenize(text)?;
    if tokens.is_empty() {
        return Ok(Vec::new());
    }
    let mut p = Parser { tokens, at: 0 };
    match p.next() {
        Some(Token::Ident(word)) if word == "assume" => {}
        _ => return Err("expected `assume(...)`".into()),
    }
    p.expect(&Token::Open)?;
    let mut out = Vec::new();
    loop {
        if p.peek() == Some(&Token::Close) {
            p.next();
            break;
        }
        out.push(p.comparison()?);
        match p.next() {
            Some(Token::Comma) => continue,
            Some(Token::Close) => break,
            _ => return Err("expected `,` or `)`".into()),
        }
    }
    if p.at != p.tokens.len() {
        return Err("unexpected text after `assume(...)`".into());
    }
    Ok(out)
}

/// The lint names of `allow(a, tensor_lint::b)`, as written.
pub fn lint_names(text: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    for part in text.split(',') {
        let name: String = part.split_whitespace().collect();
        if name.is_empty() {
            continue;
        }
        if !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
        {
            return Err(format!("`{name}` is not a lint name"));
        }
        names.push(name);
    }
    if names.is_empty() {
        return Err("expected a lint name".into());
    }
    Ok(names)
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Ident(String),
    Int(i64),
    Op(char),
    Cmp(Cmp),
    Eq,
    Open,
    Close,
    Comma,
}

impl Token {
    fn text(&self) -> String {
        match self {
            Token::Ident(s) => s.clone(),
            Token::Int(n) => n.to_string(),
            Token::Op(c) => c.to_string(),
            Token::Cmp(c) => format!("{c:?}"),
            Token::Eq => "=".into(),
            Token::Open => "(".into(),
            Token::Close => ")".into(),
            Token::Comma => ",".into(),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        let next = chars.get(k + 1).copied();
        match c {
            _ if c.is_whitespace() => k += 1,
            '(' => {
                out.push(Token::Open);
                k += 1;
            }
            ')' => {
                out.push(Token::Close);
                k += 1;
            }
            ',' => {
                out.push(Token::Comma);
                k += 1;
            }
            '+' | '-' | '*' | '/' | '%' => {
                out.push(Token::Op(c));
                k += 1;
            }
            '=' | '!' | '<' | '>' => {
                let two = next == Some('=');
                let token = match (c, two) {
                    ('=', true) => Token::Cmp(Cmp::Eq),
                    ('=', false) => Token::Eq,
                    ('!', true) => Token::Cmp(Cmp::Ne),
                    ('<', true) => Token::Cmp(Cmp::Le),
                    ('<', false) => Token::Cmp(Cmp::Lt),
                    ('>', true) => Token::Cmp(Cmp::Ge),
                    ('>', false) => Token::Cmp(Cmp::Gt),
                    _ => return Err(format!("unexpected `{c}`")),
                };
                out.push(token);
                k += if two { 2 } else { 1 };
            }
            _ if c.is_ascii_digit() => {
                let start = k;
                while k < chars.len() && (chars[k].is_ascii_alphanumeric() || chars[k] == '_') {
                    k += 1;
                }
                let literal: String = chars[start..k].iter().filter(|c| **c != '_').collect();
                // Integer suffixes (`16usize`) are part of the literal.
                let digits: String = literal.chars().take_while(|c| c.is_ascii_digit()).collect();
                let value = digits
                    .parse::<i64>()
                    .map_err(|_| format!("`{literal}` is too large"))?;
                out.push(Token::Int(value));
            }
            _ if c.is_alphabetic() || c == '_' => {
                let start = k;
                while k < chars.len() && (chars[k].is_alphanumeric() || chars[k] == '_') {
                    k += 1;
                }
                out.push(Token::Ident(chars[start..k].iter().collect()));
            }
            _ => return Err(format!("unexpected `{c}`")),
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

/// Parentheses nested deeper than this are refused rather than followed.
const MAX_DEPTH: u32 = 64;

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    fn expect(&mut self, token: &Token) -> Result<(), String> {
        match self.next() {
            Some(t) if &t == token => Ok(()),
            _ => Err(format!("expected `{}`", token.text())),
        }
    }

    fn comparison(&mut self) -> Result<Assumption, String> {
        let lhs = self.sum(0)?;
        let cmp = match self.next() {
            Some(Token::Cmp(cmp)) => cmp,
            _ => return Err("expected a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)".into()),
        };
        let rhs = self.sum(0)?;
        Ok(Assumption { lhs, cmp, rhs })
    }

    fn sum(&mut self, depth: u32) -> Result<Expr, String> {
        let mut acc = self.product(depth)?;
        while let Some(Token::Op(op @ ('+' | '-'))) = self.peek().cloned() {
            self.next();
            let rhs = self.product(depth)?;
            acc = if op == '+' { &acc + &rhs } else { &acc - &rhs };
        }
        Ok(acc)
    }

    fn product(&mut self, depth: u32) -> Result<Expr, String> {
        let mut acc = self.unary(depth)?;
        while let Some(Token::Op(op @ ('*' | '/' | '%'))) = self.peek().cloned() {
            self.next();
            let rhs = self.unary(depth)?;
            acc = match op {
                '*' => &acc * &rhs,
                '/' => acc.div_floor(rhs),
                _ => acc.rem(rhs),
            };
        }
        Ok(acc)
    }

    fn unary(&mut self, depth: u32) -> Result<Expr, String> {
        if depth > MAX_DEPTH {
            return Err("nested too deeply".into());
        }
        match self.next() {
            Some(Token::Op('-')) => Ok(&Expr::int(0) - &self.unary(depth + 1)?),
            Some(Token::Int(n)) => Ok(Expr::int(n)),
            Some(Token::Ident(name)) => Ok(Expr::sym(&name)),
            Some(Token::Open) => {
                let inner = self.sum(depth + 1)?;
                self.expect(&Token::Close)?;
                Ok(inner)
            }
            Some(other) => Err(format!("unexpected `{}`", other.text())),
            None => Err("unexpected end".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_assumptions_read_as_the_macro_accepts_them() {
        let found = kernel("assume(n >= 1, n % 16 == 0, (rows + 1) * cols <= 4096usize)")
            .expect("well formed");
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].lhs, Expr::sym("n"));
        assert_eq!(found[0].cmp, Cmp::Ge);
        assert_eq!(found[1].lhs, Expr::sym("n").rem(Expr::int(16)));
        assert_eq!(found[2].rhs, Expr::int(4096));
        assert!(kernel("").expect("no arguments").is_empty());
    }

    #[test]
    fn malformed_text_is_an_error_not_a_panic() {
        assert!(kernel("assume(n >= )").is_err());
        assert!(kernel("asume(n >= 1)").is_err());
        assert!(kernel("assume(n)").is_err());
        assert!(kernel(&format!(
            "assume({}n{} > 1)",
            "(".repeat(500),
            ")".repeat(500)
        ))
        .is_err());
        assert!(kernel("assume(n > 99999999999999999999999)").is_err());
        assert!(names("a b").is_err());
        assert!(view_of("from = a").is_err());
    }

    #[test]
    fn names_views_and_lints() {
        assert_eq!(names("self, buf").expect("names"), ["self", "buf"]);
        assert_eq!(view_of("of = data").expect("view"), "data");
        assert_eq!(
            lint_names("alias_race, tensor_lint :: false_sharing").expect("lints"),
            ["alias_race", "tensor_lint::false_sharing"]
        );
    }
}
