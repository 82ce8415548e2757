//! Integer expressions over named symbols, kept in a constant-folded polynomial normal
//! form so that structurally equal quantities compare equal (`n - n/2` twice is one
//! value) and differences such as `(r + 1)*cols - r*cols` fold to constants.
//!
//! An expression is a sum of monomials with `i64` coefficients; a monomial is a product
//! of atoms raised to powers, an atom is a symbol or an operation the normal form cannot
//! absorb (floor division by a non-divisor, remainder, min/max, or an addition or
//! product whose coefficients would overflow `i64`). Atoms keep the exact value, so the
//! solver encoding stays exact even when folding gives up.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::{Add, Mul, Neg, Sub};

/// A symbol name: a size such as `n` or a loop index such as `i`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sym(pub String);

impl Sym {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An operation kept unevaluated inside an [`Atom`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    /// Exact sum, kept because folding it overflowed `i64`.
    Add,
    /// Exact product, kept because folding it overflowed `i64`.
    Mul,
    /// `floor(lhs / rhs)`.
    FloorDiv,
    /// `lhs - rhs * floor(lhs / rhs)` (the sign of the divisor, as Python's `%`).
    Rem,
    Min,
    Max,
}

/// A factor of a monomial.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    Sym(Sym),
    Op(OpKind, Box<Expr>, Box<Expr>),
}

type Monomial = Vec<(Atom, u32)>;

/// An integer expression over symbols, constant-folded (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Expr {
    /// Monomial → coefficient; never holds a zero coefficient. The empty monomial is the
    /// constant term.
    terms: BTreeMap<Monomial, i64>,
}

fn floor_div_i64(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}

fn mul_monomials(a: &Monomial, b: &Monomial) -> Option<Monomial> {
    let mut powers: BTreeMap<Atom, u32> = BTreeMap::new();
    for (atom, p) in a.iter().chain(b.iter()) {
        let entry = powers.entry(atom.clone()).or_insert(0);
        *entry = entry.checked_add(*p)?;
    }
    Some(powers.into_iter().collect())
}

impl Expr {
    pub fn int(i: i64) -> Expr {
        let mut terms = BTreeMap::new();
        if i != 0 {
            terms.insert(Vec::new(), i);
        }
        Expr { terms }
    }

    pub fn sym(name: &str) -> Expr {
        Expr::atom(Atom::Sym(Sym(name.to_string())))
    }

    pub fn atom(atom: Atom) -> Expr {
        let mut terms = BTreeMap::new();
        terms.insert(vec![(atom, 1)], 1);
        Expr { terms }
    }

    fn op(kind: OpKind, lhs: &Expr, rhs: &Expr) -> Expr {
        Expr::atom(Atom::Op(kind, Box::new(lhs.clone()), Box::new(rhs.clone())))
    }

    /// The value when the expression has no symbols.
    pub fn as_const(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get::<[(Atom, u32)]>(&[]).copied(),
            _ => None,
        }
    }

    pub fn is_const(&self) -> bool {
        self.as_const().is_some()
    }

    /// The one monomial and its coefficient, when the expression is a single term.
    pub fn single_term(&self) -> Option<(&[(Atom, u32)], i64)> {
        match self.terms.len() {
            1 => self.terms.iter().next().map(|(m, c)| (m.as_slice(), *c)),
            _ => None,
        }
    }

    /// The constant term.
    pub fn constant_term(&self) -> i64 {
        self.terms.get::<[(Atom, u32)]>(&[]).copied().unwrap_or(0)
    }

    /// The expression without its constant term.
    pub fn non_constant_part(&self) -> Expr {
        let mut terms = self.terms.clone();
        terms.remove::<[(Atom, u32)]>(&[]);
        Expr { terms }
    }

    /// The gcd of the coefficients of the non-constant monomials (0 when there are none):
    /// every value the non-constant part takes is a multiple of it.
    pub fn non_constant_content(&self) -> u128 {
        self.terms
            .iter()
            .filter(|(m, _)| !m.is_empty())
            .fold(0u128, |g, (_, c)| gcd_u128(g, c.unsigned_abs() as u128))
    }

    /// The gcd of all coefficients: every value of the expression is a multiple of it.
    pub fn content(&self) -> u128 {
        self.terms
            .values()
            .fold(0u128, |g, c| gcd_u128(g, c.unsigned_abs() as u128))
    }

    fn add_expr(&self, other: &Expr) -> Expr {
        self.add_raw(other).recombined()
    }

    fn add_raw(&self, other: &Expr) -> Expr {
        let mut terms = self.terms.clone();
        for (m, c) in &other.terms {
            match terms.get(m).copied() {
                Some(old) => match old.checked_add(*c) {
                    Some(0) => {
                        terms.remove(m);
                    }
                    Some(sum) => {
                        terms.insert(m.clone(), sum);
                    }
                    None => return Expr::op(OpKind::Add, self, other),
                },
                None => {
                    terms.insert(m.clone(), *c);
                }
            }
        }
        Expr { terms }
    }

    fn neg_expr(&self) -> Expr {
        let mut terms = BTreeMap::new();
        for (m, c) in &self.terms {
            match c.checked_neg() {
                Some(n) => {
                    terms.insert(m.clone(), n);
                }
                None => return Expr::op(OpKind::Mul, &Expr::int(-1), self),
            }
        }
        Expr { terms }
    }

    fn mul_expr(&self, other: &Expr) -> Expr {
        self.mul_raw(other).recombined()
    }

    /// `d*floor(a/d) + a mod d` is `a` (times any common factor): a flat index split
    /// into a quotient and a remainder and put back together is the index itself, as in
    /// `(x / m) * (m * n) + (x % m) * n == x * n`.
    fn recombined(self) -> Expr {
        let mut e = self;
        // Each step removes one remainder monomial; a few are all real offsets have.
        for _ in 0..8 {
            let Some(next) = e.recombine_once() else {
                break;
            };
            e = next;
        }
        e
    }

    fn recombine_once(&self) -> Option<Expr> {
        for (m, &c) in &self.terms {
            for (k, (atom, power)) in m.iter().enumerate() {
                let (Atom::Op(OpKind::Rem, a, d), 1) = (atom, power) else {
                    continue;
                };
                let q = a.div_floor((**d).clone());
                if !is_atom_of(&q, OpKind::FloorDiv) {
                    continue;
                }
                let mut rest = m.clone();
                rest.remove(k);
                let unit = Expr {
                    terms: BTreeMap::from([(rest, c)]),
                };
                let whole = unit.mul_raw(&q).mul_raw(d);
                let present = !whole.terms.is_empty()
                    && whole
                        .terms
                        .iter()
                        .all(|(wm, wc)| self.terms.get(wm) == Some(wc));
                if !present {
                    continue;
                }
                let mut terms = self.terms.clone();
                for wm in whole.terms.keys() {
                    terms.remove(wm);
                }
                terms.remove(m);
                return Some(Expr { terms }.add_raw(&unit.mul_raw(a)));
            }
        }
        None
    }

    fn mul_raw(&self, other: &Expr) -> Expr {
        let mut acc: BTreeMap<Monomial, i64> = BTreeMap::new();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &other.terms {
                let (Some(m), Some(c)) = (mul_monomials(ma, mb), ca.checked_mul(*cb)) else {
                    return Expr::op(OpKind::Mul, self, other);
                };
                let entry = acc.entry(m).or_insert(0);
                match entry.checked_add(c) {
                    Some(s) => *entry = s,
                    None => return Expr::op(OpKind::Mul, self, other),
                }
            }
        }
        acc.retain(|_, c| *c != 0);
        Expr { terms: acc }
    }

    /// `floor(self / d)`, folded when `d` is a constant dividing every non-constant
    /// coefficient (then `floor((k*p + c)/k) = p + floor(c/k)` exactly).
    pub fn div_floor(&self, d: impl Into<Expr>) -> Expr {
        let d = d.into();
        if let Some(k) = d.as_const() {
            if k != 0
                && self
                    .non_constant_part()
                    .terms
                    .values()
                    .all(|c| c.checked_rem(k) == Some(0))
            {
                let mut terms = BTreeMap::new();
                let mut exact = true;
                for (m, c) in &self.terms {
                    if m.is_empty() {
                        continue;
                    }
                    match c.checked_div(k) {
                        Some(q) => {
                            terms.insert(m.clone(), q);
                        }
                        None => exact = false,
                    }
                }
                if let (true, Some(q)) = (exact, floor_div_i64(self.constant_term(), k)) {
                    return Expr { terms } + Expr::int(q);
                }
            }
        }
        // `floor(floor(a/b)/d) = floor(a/(b*d))` for the positive divisors of sizes.
        if is_atom_of(self, OpKind::FloorDiv) && d.as_const().is_none_or(|k| k > 0) {
            if let Some((Atom::Op(_, a, b), _)) = self.terms.keys().next().and_then(|m| m.first()) {
                if b.as_const().is_none_or(|k| k > 0) {
                    return a.div_floor(b.mul_raw(&d));
                }
            }
        }
        Expr::op(OpKind::FloorDiv, self, &d)
    }

    /// The remainder of floor division (`self - d * floor(self / d)`).
    pub fn rem(&self, d: impl Into<Expr>) -> Expr {
        let d = d.into();
        let q = self.div_floor(d.clone());
        if is_atom_of(&q, OpKind::FloorDiv) {
            Expr::op(OpKind::Rem, self, &d)
        } else {
            self - &(&d * &q)
        }
    }

    pub fn minimum(&self, other: &Expr) -> Expr {
        match (self - other).as_const() {
            Some(d) if d <= 0 => self.clone(),
            Some(_) => other.clone(),
            None => Expr::op(OpKind::Min, self, other),
        }
    }

    pub fn maximum(&self, other: &Expr) -> Expr {
        match (self - other).as_const() {
            Some(d) if d >= 0 => self.clone(),
            Some(_) => other.clone(),
            None => Expr::op(OpKind::Max, self, other),
        }
    }

    /// The symbolic divisors of the floor divisions and remainders inside the
    /// expression (`k` of `x / k`), each once.
    pub fn divisors(&self) -> BTreeSet<Expr> {
        let mut out = BTreeSet::new();
        let mut work = vec![self];
        while let Some(e) = work.pop() {
            for (atom, _) in e.terms.keys().flatten() {
                if let Atom::Op(kind, l, r) = atom {
                    if matches!(kind, OpKind::FloorDiv | OpKind::Rem) && !r.is_const() {
                        out.insert((**r).clone());
                    }
                    work.push(l);
                    work.push(r);
                }
            }
        }
        out
    }

    /// All symbol names the expression mentions, sorted.
    pub fn symbols(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_symbols(&mut out);
        out
    }

    pub fn mentions(&self, name: &str) -> bool {
        self.terms
            .keys()
            .flat_map(|m| m.iter())
            .any(|(a, _)| match a {
                Atom::Sym(s) => s.0 == name,
                Atom::Op(_, l, r) => l.mentions(name) || r.mentions(name),
            })
    }

    fn collect_symbols(&self, out: &mut BTreeSet<String>) {
        for m in self.terms.keys() {
            for (a, _) in m {
                match a {
                    Atom::Sym(s) => {
                        out.insert(s.0.clone());
                    }
                    Atom::Op(_, l, r) => {
                        l.collect_symbols(out);
                        r.collect_symbols(out);
                    }
                }
            }
        }
    }

    /// Rebuilds the expression bottom-up, replacing each symbol by `f(name)` when it
    /// returns one; folding happens again on the way up.
    pub fn map_symbols(&self, f: &dyn Fn(&str) -> Option<Expr>) -> Expr {
        let mut out = Expr::int(0);
        for (m, c) in &self.terms {
            let mut term = Expr::int(*c);
            for (atom, p) in m {
                let value = match atom {
                    Atom::Sym(s) => f(&s.0).unwrap_or_else(|| Expr::atom(atom.clone())),
                    Atom::Op(kind, l, r) => apply_op(*kind, &l.map_symbols(f), &r.map_symbols(f)),
                };
                for _ in 0..*p {
                    term = &term * &value;
                }
            }
            out = &out + &term;
        }
        out
    }

    /// Replaces the symbol `name` by `value`.
    pub fn subst(&self, name: &str, value: &Expr) -> Expr {
        self.map_symbols(&|s| (s == name).then(|| value.clone()))
    }

    /// The value under an assignment of the symbols; `None` when a symbol is unassigned,
    /// a division by zero occurs or the value leaves `i128`.
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
        let mut sum: i128 = 0;
        for (m, c) in &self.terms {
            let mut term = *c as i128;
            for (atom, p) in m {
                let v = eval_atom(atom, env)?;
                for _ in 0..*p {
                    term = term.checked_mul(v)?;
                }
            }
            sum = sum.checked_add(term)?;
        }
        Some(sum)
    }

    /// The coefficient of `name` when the expression is `coef*name + rest` with `rest`
    /// free of `name` (affine in it), else `None`.
    pub fn affine_coefficient(&self, name: &str) -> Option<Expr> {
        let at0 = self.subst(name, &Expr::int(0));
        let at1 = self.subst(name, &Expr::int(1));
        let coef = &at1 - &at0;
        let rebuilt = &at0 + &(&coef * &Expr::sym(name));
        (rebuilt == *self && !coef.mentions(name) && !at0.mentions(name)).then_some(coef)
    }

    /// Monomials with their coefficients, for encoders.
    pub(crate) fn terms(&self) -> impl Iterator<Item = (&[(Atom, u32)], i64)> {
        self.terms.iter().map(|(m, c)| (m.as_slice(), *c))
    }
}

fn is_atom_of(e: &Expr, kind: OpKind) -> bool {
    e.terms.len() == 1
        && e.terms.iter().all(|(m, c)| {
            *c == 1 && m.len() == 1 && matches!(&m[0], (Atom::Op(k, _, _), 1) if *k == kind)
        })
}

fn apply_op(kind: OpKind, l: &Expr, r: &Expr) -> Expr {
    match kind {
        OpKind::Add => l + r,
        OpKind::Mul => l * r,
        OpKind::FloorDiv => l.div_floor(r.clone()),
        OpKind::Rem => l.rem(r.clone()),
        OpKind::Min => l.minimum(r),
        OpKind::Max => l.maximum(r),
    }
}

fn eval_atom(atom: &Atom, env: &dyn Fn(&str) -> Option<i128>) -> Option<i128> {
    match atom {
        Atom::Sym(s) => env(&s.0),
        Atom::Op(kind, l, r) => {
            let (l, r) = (l.eval(env)?, r.eval(env)?);
            match kind {
                OpKind::Add => l.checked_add(r),
                OpKind::Mul => l.checked_mul(r),
                OpKind::FloorDiv => floor_div_i128(l, r),
                OpKind::Rem => {
                    let q = floor_div_i128(l, r)?;
                    l.checked_sub(r.checked_mul(q)?)
                }
                OpKind::Min => Some(l.min(r)),
                OpKind::Max => Some(l.max(r)),
            }
        }
    }
}

pub(crate) fn floor_div_i128(a: i128, b: i128) -> Option<i128> {
    let q = a.checked_div(b)?;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q.checked_sub(1)
    } else {
        Some(q)
    }
}

pub(crate) fn gcd_u128(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

impl From<i64> for Expr {
    fn from(i: i64) -> Expr {
        Expr::int(i)
    }
}

impl From<&str> for Expr {
    fn from(name: &str) -> Expr {
        Expr::sym(name)
    }
}

macro_rules! binary_ops {
    ($($tr:ident $method:ident $imp:ident;)*) => {$(
        impl $tr<Expr> for Expr {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr { Expr::$imp(&self, &rhs) }
        }
        impl $tr<&Expr> for Expr {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr { Expr::$imp(&self, rhs) }
        }
        impl $tr<Expr> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr { Expr::$imp(self, &rhs) }
        }
        impl $tr<&Expr> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr { Expr::$imp(self, rhs) }
        }
        impl $tr<i64> for Expr {
            type Output = Expr;
            fn $method(self, rhs: i64) -> Expr { Expr::$imp(&self, &Expr::int(rhs)) }
        }
        impl $tr<i64> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: i64) -> Expr { Expr::$imp(self, &Expr::int(rhs)) }
        }
    )*};
}

impl Expr {
    fn sub_expr(&self, other: &Expr) -> Expr {
        self.add_expr(&other.neg_expr())
    }
}

binary_ops! {
    Add add add_expr;
    Sub sub sub_expr;
    Mul mul mul_expr;
}

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.neg_expr()
    }
}

impl Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        self.neg_expr()
    }
}

/// Whether an expression prints as one token (needs no parentheses as an operand).
fn is_simple(e: &Expr) -> bool {
    e.as_const().is_some_and(|c| c >= 0)
        || (e.terms.len() == 1
            && e.terms
                .iter()
                .all(|(m, c)| *c == 1 && m.len() == 1 && m[0].1 == 1))
}

struct Operand<'a>(&'a Expr);

impl fmt::Display for Operand<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if is_simple(self.0) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "({})", self.0)
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Sym(s) => write!(f, "{s}"),
            Atom::Op(kind, l, r) => match kind {
                OpKind::Add => write!(f, "({l} + {r})"),
                OpKind::Mul => write!(f, "{}*{}", Operand(l), Operand(r)),
                OpKind::FloorDiv => write!(f, "{}/{}", Operand(l), Operand(r)),
                OpKind::Rem => write!(f, "{} % {}", Operand(l), Operand(r)),
                OpKind::Min => write!(f, "min({l}, {r})"),
                OpKind::Max => write!(f, "max({l}, {r})"),
            },
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        // Higher-degree terms first and the constant last, as people write polynomials.
        let mut ordered: Vec<(&Monomial, i64)> = self.terms.iter().map(|(m, c)| (m, *c)).collect();
        ordered
            .sort_by_key(|(m, _)| std::cmp::Reverse(m.iter().map(|(_, p)| *p as u64).sum::<u64>()));
        for (n, (m, c)) in ordered.into_iter().enumerate() {
            let magnitude = c.unsigned_abs();
            if n == 0 {
                if c < 0 {
                    f.write_str("-")?;
                }
            } else if c < 0 {
                f.write_str(" - ")?;
            } else {
                f.write_str(" + ")?;
            }
            if m.is_empty() {
                write!(f, "{magnitude}")?;
                continue;
            }
            if magnitude != 1 {
                write!(f, "{magnitude}*")?;
            }
            for (k, (atom, p)) in m.iter().enumerate() {
                if k > 0 {
                    f.write_str("*")?;
                }
                let needs_parens = matches!(atom, Atom::Op(OpKind::Rem, _, _))
                    && (m.len() > 1 || magnitude != 1 || *p > 1);
                if needs_parens {
                    write!(f, "({atom})")?;
                } else {
                    write!(f, "{atom}")?;
                }
                if *p > 1 {
                    write!(f, "^{p}")?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n() -> Expr {
        Expr::sym("n")
    }

    #[test]
    fn constants_fold_and_cancel() {
        assert_eq!((Expr::int(2) + Expr::int(3)).as_const(), Some(5));
        assert_eq!((n() - n()).as_const(), Some(0));
        let rows = Expr::sym("r") * Expr::sym("cols");
        let next = (Expr::sym("r") + 1) * Expr::sym("cols");
        assert_eq!(next - rows, Expr::sym("cols"));
    }

    #[test]
    fn a_quotient_and_remainder_put_back_together_are_the_index() {
        let (x, m, k) = (Expr::sym("x"), Expr::sym("m"), Expr::sym("k"));
        let cols = Expr::sym("cols");
        // (x / m) * (m * cols) + (x % m) * cols == x * cols
        let split = &x.div_floor(m.clone()) * &(&m * &cols) + &x.rem(m.clone()) * &cols;
        assert_eq!(split, &x * &cols);
        // ((x / k) / m) * m + (x / k) % m == x / k
        let row = &x.div_floor(k.clone()).div_floor(m.clone()) * &m
            + x.div_floor(k.clone()).rem(m.clone());
        assert_eq!(row, x.div_floor(k.clone()));
        assert_eq!(
            x.div_floor(k.clone()).div_floor(m.clone()),
            x.div_floor(&k * &m)
        );
        // Without the quotient's term nothing recombines.
        let alone = x.rem(m.clone()) * 2 + x.div_floor(m.clone());
        assert!(alone.divisors().contains(&m));
        assert_ne!(alone, x.clone());
    }

    #[test]
    fn division_folds_when_coefficients_divide() {
        assert_eq!((n() * 4 + 6).div_floor(2), n() * 2 + 3);
        assert_eq!((n() * 4 + 7).div_floor(2), n() * 2 + 3);
        assert_eq!(Expr::int(-7).div_floor(2).as_const(), Some(-4));
        assert_eq!((n() * 4 + 7).rem(2).as_const(), Some(1));
        assert_eq!(Expr::int(-7).rem(2).as_const(), Some(1));
        assert!(n().div_floor(2).as_const().is_none());
    }

    #[test]
    fn display_is_readable() {
        assert_eq!((n().div_floor(2) + 1).to_string(), "n/2 + 1");
        assert_eq!((n() * n() * 3 - n() * 2 - 5).to_string(), "3*n^2 - 2*n - 5");
        assert_eq!(Expr::int(-4).to_string(), "-4");
        assert_eq!((n() + 1).div_floor(2).to_string(), "(n + 1)/2");
        assert_eq!(n().rem(16).to_string(), "n % 16");
    }

    #[test]
    fn overflow_keeps_an_exact_atom_instead_of_wrapping() {
        let big = Expr::int(i64::MAX) + Expr::int(1);
        assert!(big.as_const().is_none());
        assert_eq!(big.eval(&|_| None), Some(i64::MAX as i128 + 1));
        let prod = Expr::int(i64::MAX) * Expr::int(4);
        assert_eq!(prod.eval(&|_| None), Some(i64::MAX as i128 * 4));
    }

    #[test]
    fn substitution_refolds() {
        let e = (n() - 1).div_floor(2) * 2;
        let at = e.subst("n", &Expr::int(9));
        assert_eq!(at.as_const(), Some(8));
        let h = n().div_floor(2);
        assert_eq!(h.eval(&|s| (s == "n").then_some(7)), Some(3));
    }

    #[test]
    fn affine_coefficient_detects_linearity() {
        let off = Expr::sym("i") * Expr::sym("cols") + 3;
        assert_eq!(off.affine_coefficient("i"), Some(Expr::sym("cols")));
        let sq = Expr::sym("i") * Expr::sym("i");
        assert_eq!(sq.affine_coefficient("i"), None);
        assert_eq!(n().affine_coefficient("i"), Some(Expr::int(0)));
    }

    #[test]
    fn symbols_include_those_inside_atoms() {
        let e = (n() + Expr::sym("m")).div_floor(3) + Expr::sym("k");
        let names: Vec<String> = e.symbols().into_iter().collect();
        assert_eq!(names, ["k", "m", "n"]);
    }
}
