//! Integer expressions written in source (sizes, indices, `assume(...)` conditions) as
//! oracle [`Expr`]s. Literals that do not fit `i64` and anything that is not integer
//! arithmetic give `None`, never a panic.

use crate::ir::Assumption;
use crate::oracle::{Cmp, Expr};

/// How deep an integer expression may nest before it is treated as unknown.
const MAX_DEPTH: u32 = 64;

/// An integer literal's value, when it fits `i64`.
pub fn int_literal(lit: &syn::LitInt) -> Option<i64> {
    lit.base10_parse::<i64>().ok()
}

/// `e` as an integer expression; identifiers and `self.field` paths become symbols.
pub fn syn_int(e: &syn::Expr) -> Option<Expr> {
    syn_int_at(e, 0)
}

fn syn_int_at(e: &syn::Expr, depth: u32) -> Option<Expr> {
    if depth > MAX_DEPTH {
        return None;
    }
    let d = depth + 1;
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => int_literal(i).map(Expr::int),
            _ => None,
        },
        syn::Expr::Path(p) if p.qself.is_none() => {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            Some(Expr::sym(&segs.join("::")))
        }
        syn::Expr::Field(f) => {
            let base = match &*f.base {
                syn::Expr::Path(p) => p.path.segments.last()?.ident.to_string(),
                _ => return None,
            };
            let member = match &f.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            Some(Expr::sym(&format!("{base}.{member}")))
        }
        syn::Expr::Paren(p) => syn_int_at(&p.expr, d),
        syn::Expr::Group(g) => syn_int_at(&g.expr, d),
        syn::Expr::Cast(c) => syn_int_at(&c.expr, d),
        syn::Expr::Unary(u) => match u.op {
            syn::UnOp::Neg(_) => syn_int_at(&u.expr, d).map(|x| -x),
            _ => None,
        },
        syn::Expr::Binary(b) => {
            let l = syn_int_at(&b.left, d)?;
            let r = syn_int_at(&b.right, d)?;
            int_binop(&b.op, &l, &r)
        }
        _ => None,
    }
}

/// Applies an arithmetic operator to two integer expressions.
pub fn int_binop(op: &syn::BinOp, l: &Expr, r: &Expr) -> Option<Expr> {
    Some(match op {
        syn::BinOp::Add(_) => l + r,
        syn::BinOp::Sub(_) => l - r,
        syn::BinOp::Mul(_) => l * r,
        // Rust's `/` and `%` truncate; on the non-negative sizes and indices this sees
        // they agree with floor division.
        syn::BinOp::Div(_) if r.as_const() != Some(0) => l.div_floor(r.clone()),
        syn::BinOp::Rem(_) if r.as_const() != Some(0) => l.rem(r.clone()),
        // Shifts by a known amount and masks of the low bits are the same division,
        // product and remainder by a power of two (on the same non-negative values).
        syn::BinOp::Shr(_) => l.div_floor(Expr::int(power_of_two(r)?)),
        syn::BinOp::Shl(_) => l * &Expr::int(power_of_two(r)?),
        // `h & (n - 1)` is the idiom for `h % n` with `n` a power of two.
        syn::BinOp::BitAnd(_) => match (low_mask(r), low_mask(l)) {
            (Some(m), _) => l.rem(Expr::int(m)),
            (None, Some(m)) => r.rem(Expr::int(m)),
            (None, None) if r.constant_term() == -1 && !r.is_const() => l.rem(r + &Expr::int(1)),
            (None, None) => return None,
        },
        _ => return None,
    })
}

/// `2^k` for a shift amount `k` known and below 63.
fn power_of_two(k: &Expr) -> Option<i64> {
    let k = u32::try_from(k.as_const()?).ok().filter(|&k| k < 63)?;
    Some(1i64 << k)
}

/// `m + 1` when `m` is a known mask of the low bits (`7`, `0xff`): `x & m == x % (m + 1)`.
fn low_mask(m: &Expr) -> Option<i64> {
    let m = m.as_const()?;
    (m > 0 && m < i64::MAX && (m + 1) & m == 0).then_some(m + 1)
}

/// The comparison operator of `op`.
pub fn cmp_of(op: &syn::BinOp) -> Option<Cmp> {
    Some(match op {
        syn::BinOp::Lt(_) => Cmp::Lt,
        syn::BinOp::Le(_) => Cmp::Le,
        syn::BinOp::Eq(_) => Cmp::Eq,
        syn::BinOp::Ne(_) => Cmp::Ne,
        syn::BinOp::Ge(_) => Cmp::Ge,
        syn::BinOp::Gt(_) => Cmp::Gt,
        _ => return None,
    })
}

/// An `assume(...)` condition: `EXPR CMP EXPR` over integers.
pub fn parse_cmp_expr(e: &syn::Expr) -> Option<Assumption> {
    match e {
        syn::Expr::Binary(b) => {
            let cmp = cmp_of(&b.op)?;
            Some(Assumption {
                lhs: syn_int(&b.left)?,
                cmp,
                rhs: syn_int(&b.right)?,
            })
        }
        syn::Expr::Paren(p) => parse_cmp_expr(&p.expr),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(s: &str) -> syn::Expr {
        syn::parse_str(s).expect("test expression parses")
    }

    #[test]
    fn arithmetic_over_sizes_folds_to_a_normal_form() {
        let x = syn_int(&e("(r + 1) * cols - r * cols")).expect("integer");
        assert_eq!(x.as_const(), None);
        assert_eq!(x, Expr::sym("cols"));
    }

    #[test]
    fn shifts_and_low_bit_masks_are_powers_of_two() {
        let i = Expr::sym("i");
        assert_eq!(syn_int(&e("i >> 3")), Some(i.div_floor(8)));
        assert_eq!(syn_int(&e("i << 2")), Some(&i * 4));
        assert_eq!(syn_int(&e("i & 7")), Some(i.rem(8)));
        assert_eq!(syn_int(&e("0xff & i")), Some(i.rem(256)));
        // Not a mask of low bits, or a shift by an unknown amount: unknown.
        assert_eq!(syn_int(&e("i & 6")), None);
        assert_eq!(syn_int(&e("i >> s")), None);
    }

    #[test]
    fn huge_literals_and_division_by_zero_are_unknown() {
        assert_eq!(syn_int(&e("123456789012345678901234567890")), None);
        assert_eq!(syn_int(&e("n / 0")), None);
    }

    #[test]
    fn assumptions_parse_comparisons_only() {
        let a = parse_cmp_expr(&e("N % 16 == 0")).expect("comparison");
        assert_eq!(a.cmp, Cmp::Eq);
        assert!(parse_cmp_expr(&e("n + 1")).is_none());
    }
}
