//! The condition grammar of `#[tensor_lint::kernel(assume(...))]`.
//!
//! An assumption is a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`) between two integer
//! expressions built of plain identifiers, integer literals, `+ - * / %`, unary `-` and
//! parentheses. The analyzer turns each one into a linear-integer constraint on symbolic
//! sizes, so everything outside that fragment is refused here, at compile time, rather
//! than silently ignored there: field accesses and calls (their value is unknown to a
//! syntactic analyzer), floats, bit operations, `&&`/`||` (a list is already a
//! conjunction; disjunctions are not supported).

use quote::ToTokens;
use syn::{BinOp, Expr, Lit, UnOp};

use crate::error_list::ErrorList;

/// Why an expression is not an assumption, pointed at the offending part.
type Check = syn::Result<()>;

/// Checks every condition of one `assume(...)` list, reporting all bad ones at once.
pub(crate) fn check_conditions<'a>(conditions: impl IntoIterator<Item = &'a Expr>) -> Check {
    let mut errors = ErrorList::default();
    for condition in conditions {
        if let Err(error) = check_condition(condition) {
            errors.push(error);
        }
    }
    errors.finish(())
}

/// One condition: a single comparison whose sides are integer expressions.
pub(crate) fn check_condition(condition: &Expr) -> Check {
    let condition = strip_parens(condition);
    let Expr::Binary(binary) = condition else {
        return Err(not_a_comparison(condition));
    };
    match binary.op {
        op if is_comparison(&op) => {
            let mut mentions_variable = false;
            check_operand(&binary.left, &mut mentions_variable)?;
            check_operand(&binary.right, &mut mentions_variable)?;
            if mentions_variable {
                Ok(())
            } else {
                Err(syn::Error::new_spanned(
                    condition,
                    "this assumption compares constants only, it bounds no variable",
                ))
            }
        }
        BinOp::And(_) => Err(syn::Error::new_spanned(
            binary.op,
            "`&&` is not allowed in `assume`, separate the conditions with `,`",
        )),
        BinOp::Or(_) => Err(syn::Error::new_spanned(
            binary.op,
            "`||` is not supported in `assume`, every condition must hold on its own",
        )),
        _ => Err(not_a_comparison(condition)),
    }
}

fn not_a_comparison(expr: &Expr) -> syn::Error {
    syn::Error::new_spanned(
        expr,
        "expected a comparison (`==`, `!=`, `<`, `<=`, `>` or `>=`) such as `n >= 1`",
    )
}

/// One side of a comparison; sets `mentions_variable` when it names an identifier.
fn check_operand(expr: &Expr, mentions_variable: &mut bool) -> Check {
    match expr {
        Expr::Lit(literal) => check_literal(&literal.lit),
        Expr::Path(path) => {
            let plain = path.qself.is_none()
                && path.path.leading_colon.is_none()
                && path.path.segments.len() == 1
                && path.path.segments[0].arguments.is_none();
            if !plain {
                return Err(syn::Error::new_spanned(
                    path,
                    "paths are not allowed in `assume`, use a plain identifier",
                ));
            }
            let ident = &path.path.segments[0].ident;
            if ident == "self" || ident == "Self" || ident == "super" || ident == "crate" {
                return Err(syn::Error::new_spanned(
                    ident,
                    format!("`{ident}` is not an integer, use a plain identifier"),
                ));
            }
            *mentions_variable = true;
            Ok(())
        }
        Expr::Paren(paren) => check_operand(&paren.expr, mentions_variable),
        Expr::Group(group) => check_operand(&group.expr, mentions_variable),
        Expr::Unary(unary) => match unary.op {
            UnOp::Neg(_) => check_operand(&unary.expr, mentions_variable),
            op => Err(syn::Error::new_spanned(
                op,
                format!(
                    "unary `{}` is not allowed in `assume`, only `-` is",
                    op.to_token_stream()
                ),
            )),
        },
        Expr::Binary(binary) => {
            if is_comparison(&binary.op) {
                return Err(syn::Error::new_spanned(
                    binary.op,
                    "comparisons cannot be chained or nested in `assume`, \
                     separate the conditions with `,`",
                ));
            }
            if !is_arithmetic(&binary.op) {
                return Err(syn::Error::new_spanned(
                    binary.op,
                    format!(
                        "operator `{}` is not allowed in `assume`, expected `+`, `-`, `*`, `/` or `%`",
                        binary.op.to_token_stream()
                    ),
                ));
            }
            check_operand(&binary.left, mentions_variable)?;
            check_operand(&binary.right, mentions_variable)?;
            if matches!(binary.op, BinOp::Div(_) | BinOp::Rem(_)) && is_literal_zero(&binary.right)
            {
                return Err(syn::Error::new_spanned(
                    &binary.right,
                    "division by zero in `assume`",
                ));
            }
            Ok(())
        }
        Expr::Call(call) => Err(syn::Error::new_spanned(
            call,
            "function calls are not allowed in `assume`",
        )),
        Expr::MethodCall(call) => Err(syn::Error::new_spanned(
            call,
            "method calls are not allowed in `assume`, use a plain identifier",
        )),
        Expr::Field(field) => Err(syn::Error::new_spanned(
            field,
            "field accesses are not allowed in `assume`, use a plain identifier",
        )),
        Expr::Cast(cast) => Err(syn::Error::new_spanned(
            cast,
            "casts are not allowed in `assume`, every value is an integer already",
        )),
        Expr::Macro(mac) => Err(syn::Error::new_spanned(
            mac,
            "macro invocations are not allowed in `assume`",
        )),
        other => Err(syn::Error::new_spanned(
            other,
            "expected an integer expression of identifiers, integer literals and `+ - * / %`",
        )),
    }
}

fn check_literal(literal: &Lit) -> Check {
    let kind = match literal {
        Lit::Int(int) if matches!(int.suffix(), "f32" | "f64") => {
            return Err(syn::Error::new_spanned(
                literal,
                "float literals are not allowed in `assume`, sizes are integers",
            ));
        }
        Lit::Int(int) => {
            const INTEGER_SUFFIXES: [&str; 13] = [
                "", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
                "usize",
            ];
            if !INTEGER_SUFFIXES.contains(&int.suffix()) {
                return Err(syn::Error::new_spanned(
                    int,
                    format!("invalid suffix `{}` for an integer literal", int.suffix()),
                ));
            }
            // The analyzer's symbolic arithmetic is over `i64`; a larger literal would be
            // accepted here and then ignored there.
            return match int.base10_parse::<i64>() {
                Ok(_) => Ok(()),
                Err(_) => Err(syn::Error::new_spanned(
                    int,
                    "integer literal is too large for `assume`, the limit is `i64::MAX`",
                )),
            };
        }
        Lit::Float(_) => {
            return Err(syn::Error::new_spanned(
                literal,
                "float literals are not allowed in `assume`, sizes are integers",
            ));
        }
        Lit::Bool(_) => "a boolean",
        Lit::Str(_) => "a string",
        Lit::ByteStr(_) => "a byte string",
        Lit::CStr(_) => "a C string",
        Lit::Byte(_) => "a byte",
        Lit::Char(_) => "a character",
        _ => "a non-integer",
    };
    Err(syn::Error::new_spanned(
        literal,
        format!("`assume` compares integers, found {kind} literal"),
    ))
}

fn strip_parens(mut expr: &Expr) -> &Expr {
    loop {
        match expr {
            Expr::Paren(paren) => expr = &paren.expr,
            Expr::Group(group) => expr = &group.expr,
            _ => return expr,
        }
    }
}

fn is_literal_zero(expr: &Expr) -> bool {
    match strip_parens(expr) {
        Expr::Lit(literal) => match &literal.lit {
            Lit::Int(int) => int.base10_parse::<i128>().is_ok_and(|value| value == 0),
            _ => false,
        },
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => is_literal_zero(&unary.expr),
        _ => false,
    }
}

fn is_comparison(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Eq(_) | BinOp::Ne(_) | BinOp::Lt(_) | BinOp::Le(_) | BinOp::Gt(_) | BinOp::Ge(_)
    )
}

fn is_arithmetic(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn condition(source: &str) -> Expr {
        match syn::parse_str(source) {
            Ok(expr) => expr,
            Err(error) => panic!("`{source}` does not parse: {error}"),
        }
    }

    fn accepted(source: &str) -> bool {
        check_condition(&condition(source)).is_ok()
    }

    /// The message and the source text the error points at.
    fn rejection(source: &str) -> (String, String) {
        match check_condition(&condition(source)) {
            Ok(()) => panic!("`{source}` was accepted"),
            Err(error) => {
                let text = error.span().source_text().unwrap_or_default();
                (error.to_string(), text)
            }
        }
    }

    #[test]
    fn accepts_every_comparison_operator() {
        for op in ["==", "!=", "<", "<=", ">", ">="] {
            assert!(accepted(&format!("n {op} 16")), "`{op}` was refused");
        }
    }

    #[test]
    fn accepts_integer_arithmetic_of_identifiers_and_literals() {
        assert!(accepted("N % 16 == 0"));
        assert!(accepted("rows * cols <= 1_000_000"));
        assert!(accepted("(a + b) / 2 > -(c - 1)"));
        assert!(accepted("(len >= 4)"));
        assert!(accepted("n < 0x100u32"));
        assert!(accepted("stride == -1"));
        assert!(accepted("a == b"));
    }

    #[test]
    fn rejects_a_bare_expression_that_is_not_a_comparison() {
        let (message, at) = rejection("n % 16");
        assert!(message.starts_with("expected a comparison"), "{message}");
        assert_eq!(at, "n % 16");
        assert!(rejection("n").0.starts_with("expected a comparison"));
        assert!(rejection("true").0.starts_with("expected a comparison"));
    }

    #[test]
    fn rejects_float_literals_at_the_literal() {
        assert_eq!(
            rejection("scale > 0.5"),
            (
                "float literals are not allowed in `assume`, sizes are integers".into(),
                "0.5".into()
            )
        );
        assert!(rejection("n > 1f32").0.starts_with("float literals"));
    }

    #[test]
    fn rejects_calls_methods_fields_and_paths() {
        assert_eq!(
            rejection("len(x) >= 1"),
            (
                "function calls are not allowed in `assume`".into(),
                "len(x)".into()
            )
        );
        assert_eq!(rejection("x.len() >= 1").1, "x.len()");
        assert!(rejection("x.len() >= 1").0.starts_with("method calls"));
        assert_eq!(rejection("self.n >= 1").1, "self.n");
        assert!(rejection("self.n >= 1").0.starts_with("field accesses"));
        assert_eq!(rejection("n >= consts::MIN").1, "consts::MIN");
        assert!(rejection("n >= consts::MIN")
            .0
            .starts_with("paths are not allowed"));
        assert!(rejection("n >= max!(a, b)")
            .0
            .starts_with("macro invocations"));
        assert!(rejection("n as i64 >= 1").0.starts_with("casts"));
        assert!(rejection("n >= a[0]")
            .0
            .starts_with("expected an integer expression"));
    }

    #[test]
    fn rejects_logical_connectives_with_a_hint() {
        let (message, at) = rejection("n >= 1 && n < 8");
        assert_eq!(at, "&&");
        assert!(
            message.contains("separate the conditions with `,`"),
            "{message}"
        );
        assert_eq!(rejection("n == 1 || n == 2").1, "||");
        assert_eq!(rejection("!(n == 1)").1, "!(n == 1)");
    }

    #[test]
    fn rejects_operators_outside_integer_arithmetic() {
        let (message, at) = rejection("n << 2 == 8");
        assert_eq!(at, "<<");
        assert!(
            message.starts_with("operator `<<` is not allowed"),
            "{message}"
        );
        assert_eq!(rejection("n & 15 == 0").1, "&");
        assert!(rejection("!n == 0").0.starts_with("unary `!`"));
        assert!(rejection("*n == 0").0.starts_with("unary `*`"));
    }

    #[test]
    fn rejects_a_comparison_nested_in_an_operand() {
        let (message, at) = rejection("(a < b) == (c < d)");
        assert_eq!(at, "<");
        assert!(
            message.starts_with("comparisons cannot be chained"),
            "{message}"
        );
    }

    #[test]
    fn rejects_non_integer_literals_naming_their_kind() {
        assert_eq!(
            rejection("n == \"4\"").0,
            "`assume` compares integers, found a string literal"
        );
        assert_eq!(
            rejection("n == 'a'").0,
            "`assume` compares integers, found a character literal"
        );
        assert_eq!(
            rejection("n == true").0,
            "`assume` compares integers, found a boolean literal"
        );
    }

    #[test]
    fn rejects_bad_integer_literals() {
        assert_eq!(
            rejection("n < 9_223_372_036_854_775_808"),
            (
                "integer literal is too large for `assume`, the limit is `i64::MAX`".into(),
                "9_223_372_036_854_775_808".into()
            )
        );
        assert!(accepted("n < 9_223_372_036_854_775_807"));
        assert_eq!(
            rejection("n < 4px").0,
            "invalid suffix `px` for an integer literal"
        );
    }

    #[test]
    fn rejects_division_by_a_literal_zero() {
        assert_eq!(
            rejection("n / 0 == 1"),
            ("division by zero in `assume`".into(), "0".into())
        );
        assert_eq!(rejection("n % (-0) == 1").1, "(-0)");
        assert!(accepted("n / 2 == 1"));
    }

    #[test]
    fn rejects_keywords_used_as_values() {
        assert_eq!(
            rejection("self >= 1"),
            (
                "`self` is not an integer, use a plain identifier".into(),
                "self".into()
            )
        );
    }

    #[test]
    fn rejects_assumptions_about_constants_only() {
        let (message, at) = rejection("1 == 1");
        assert_eq!(
            message,
            "this assumption compares constants only, it bounds no variable"
        );
        assert_eq!(at, "1 == 1");
    }

    #[test]
    fn reports_every_bad_condition_of_a_list() {
        let conditions = [
            condition("n > 0.5"),
            condition("n >= 1"),
            condition("f(n) > 1"),
        ];
        let error = match check_conditions(&conditions) {
            Ok(()) => panic!("accepted"),
            Err(error) => error,
        };
        assert_eq!(error.into_iter().count(), 2);
        assert!(check_conditions(&conditions[1..2]).is_ok());
    }
}
