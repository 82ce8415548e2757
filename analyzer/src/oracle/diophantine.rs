//! Exact solver for one bounded linear Diophantine equation `Σ coef_k * z_k = target`
//! with `lo_k <= z_k <= hi_k`: the concrete heart of the alias oracle.
//!
//! It never enumerates addresses. One and two unknowns are solved in closed form
//! (extended Euclid, then intersecting the bounds on the free parameter); with more
//! unknowns it branches on the unknown with the fewest values compatible with the
//! others' range and their gcd, which for the nested strides of real tensors leaves one
//! or two candidates per level. A node budget bounds the work; exhausting it (or leaving
//! `i128`) answers [`Solve::GaveUp`] and the caller asks the solver instead.

use super::expr::{floor_div_i128, gcd_u128};

/// One unknown: `coef * z` with `lo <= z <= hi` (inclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Term {
    pub coef: i128,
    pub lo: i128,
    pub hi: i128,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Solve {
    /// A solution, one value per term.
    Found(Vec<i128>),
    NoSolution,
    /// The node budget ran out or a quantity left `i128`.
    GaveUp,
}

/// Branching nodes allowed per equation: small enough to stay well below a solver call.
pub(crate) const DEFAULT_BUDGET: u32 = 4096;

struct GaveUp;

/// An unknown after normalisation: `c * w` with `c > 0` and `0 <= w <= n`.
#[derive(Clone, Copy)]
struct Var {
    c: i128,
    n: i128,
    slot: usize,
}

pub(crate) fn solve(terms: &[Term], target: i128, budget: u32) -> Solve {
    match solve_inner(terms, target, budget) {
        Ok(Some(v)) => Solve::Found(v),
        Ok(None) => Solve::NoSolution,
        Err(GaveUp) => Solve::GaveUp,
    }
}

fn solve_inner(terms: &[Term], target: i128, mut budget: u32) -> Result<Option<Vec<i128>>, GaveUp> {
    let mut vars = Vec::with_capacity(terms.len());
    let mut t = target;
    for (slot, term) in terms.iter().enumerate() {
        if term.lo > term.hi {
            return Ok(None);
        }
        // z = lo + w for a positive coefficient, z = hi - w for a negative one, so that
        // every unknown contributes a non-negative multiple of |coef|.
        let base = if term.coef >= 0 { term.lo } else { term.hi };
        t = t
            .checked_sub(term.coef.checked_mul(base).ok_or(GaveUp)?)
            .ok_or(GaveUp)?;
        let n = term.hi.checked_sub(term.lo).ok_or(GaveUp)?;
        if term.coef != 0 && n > 0 {
            vars.push(Var {
                c: term.coef.checked_abs().ok_or(GaveUp)?,
                n,
                slot,
            });
        }
    }
    let mut w = vec![0i128; terms.len()];
    if !search(&vars, t, &mut budget, &mut w)? {
        return Ok(None);
    }
    let values = terms
        .iter()
        .zip(&w)
        .map(|(term, &w)| {
            if term.coef >= 0 {
                term.lo + w
            } else {
                term.hi - w
            }
        })
        .collect();
    Ok(Some(values))
}

fn gcd_i(a: i128, b: i128) -> i128 {
    gcd_u128(a.unsigned_abs(), b.unsigned_abs()) as i128
}

fn ceil_div(a: i128, b: i128) -> Option<i128> {
    let f = floor_div_i128(a, b)?;
    if f.checked_mul(b)? == a {
        Some(f)
    } else {
        f.checked_add(1)
    }
}

/// `a * b mod m` for `0 <= a, b < m < 2^127`, without overflow.
fn mul_mod(mut a: u128, mut b: u128, m: u128) -> u128 {
    let mut acc = 0u128;
    a %= m;
    while b > 0 {
        if b & 1 == 1 {
            acc = (acc + a) % m;
        }
        a = (a + a) % m;
        b >>= 1;
    }
    acc
}

/// `x` with `a * x ≡ 1 (mod m)` for coprime `a`, `m` (`m >= 1`).
fn mod_inverse(a: i128, m: i128) -> Option<i128> {
    let (mut old_r, mut r) = (a.rem_euclid(m), m);
    let (mut old_s, mut s) = (1i128, 0i128);
    while r != 0 {
        let q = old_r / r;
        (old_r, r) = (r, old_r - q * r);
        (old_s, s) = (s, old_s.checked_sub(q.checked_mul(s)?)?);
    }
    (old_r == 1).then(|| old_s.rem_euclid(m))
}

/// The least `w >= 0` with `c * w ≡ t (mod m)`, and the period of the solutions.
fn congruence(c: i128, t: i128, m: i128) -> Option<Option<(i128, i128)>> {
    if m <= 1 {
        return Some(Some((0, 1)));
    }
    let d = gcd_i(c, m);
    if t.rem_euclid(d) != 0 {
        return Some(None);
    }
    let period = m / d;
    if period == 1 {
        return Some(Some((0, 1)));
    }
    let inv = mod_inverse(c / d, period)?;
    let rhs = (t / d).rem_euclid(period);
    let w0 = mul_mod(rhs as u128, inv as u128, period as u128) as i128;
    Some(Some((w0, period)))
}

fn search(vars: &[Var], t: i128, budget: &mut u32, out: &mut [i128]) -> Result<bool, GaveUp> {
    if *budget == 0 {
        return Err(GaveUp);
    }
    *budget -= 1;
    if vars.is_empty() {
        return Ok(t == 0);
    }
    let mut max_sum: i128 = 0;
    let mut g: i128 = 0;
    for v in vars {
        max_sum = max_sum
            .checked_add(v.c.checked_mul(v.n).ok_or(GaveUp)?)
            .ok_or(GaveUp)?;
        g = gcd_i(g, v.c);
    }
    if t < 0 || t > max_sum || t % g != 0 {
        return Ok(false);
    }
    match vars {
        [v] => {
            out[v.slot] = t / v.c;
            Ok(true)
        }
        [a, b] => two_unknowns(*a, *b, t, out),
        _ => branch(vars, t, max_sum, budget, out),
    }
}

/// `a.c * x + b.c * y = t`, `0 <= x <= a.n`, `0 <= y <= b.n`, in closed form.
fn two_unknowns(a: Var, b: Var, t: i128, out: &mut [i128]) -> Result<bool, GaveUp> {
    let g = gcd_i(a.c, b.c);
    let (ca, cb, t) = (a.c / g, b.c / g, t / g);
    // x ≡ t * ca⁻¹ (mod cb); the least such x, then y follows, then shift along the
    // solution line x + cb*s, y - ca*s into both boxes.
    let x0 = match congruence(ca, t, cb).ok_or(GaveUp)? {
        Some((x0, _)) => x0,
        None => return Ok(false),
    };
    let y0 = (t
        .checked_sub(ca.checked_mul(x0).ok_or(GaveUp)?)
        .ok_or(GaveUp)?)
        / cb;
    let s_lo = ceil_div(y0.checked_sub(b.n).ok_or(GaveUp)?, ca)
        .ok_or(GaveUp)?
        .max(0);
    let s_hi = floor_div_i128(y0, ca)
        .ok_or(GaveUp)?
        .min(floor_div_i128(a.n.checked_sub(x0).ok_or(GaveUp)?, cb).ok_or(GaveUp)?);
    if s_lo > s_hi {
        return Ok(false);
    }
    out[a.slot] = x0 + cb * s_lo;
    out[b.slot] = y0 - ca * s_lo;
    Ok(true)
}

/// Candidate values of one unknown: an arithmetic progression `first, first+step, ..`
/// up to `last`.
struct Candidates {
    first: i128,
    step: i128,
    last: i128,
}

impl Candidates {
    fn count(&self) -> i128 {
        if self.first > self.last {
            0
        } else {
            (self.last - self.first) / self.step + 1
        }
    }
}

fn candidates(vars: &[Var], k: usize, t: i128, max_sum: i128) -> Result<Candidates, GaveUp> {
    let v = vars[k];
    let rest_max = max_sum - v.c * v.n;
    let rest_gcd = vars
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != k)
        .fold(0, |g, (_, o)| gcd_i(g, o.c));
    let lo = ceil_div(t - rest_max, v.c).ok_or(GaveUp)?.max(0);
    let hi = floor_div_i128(t, v.c).ok_or(GaveUp)?.min(v.n);
    let none = Candidates {
        first: 1,
        step: 1,
        last: 0,
    };
    let Some((w0, period)) = congruence(v.c, t, rest_gcd).ok_or(GaveUp)? else {
        return Ok(none);
    };
    if lo > hi {
        return Ok(none);
    }
    // The least w >= lo in the residue class of w0.
    let first = lo + (w0 - lo).rem_euclid(period);
    Ok(Candidates {
        first,
        step: period,
        last: hi,
    })
}

fn branch(
    vars: &[Var],
    t: i128,
    max_sum: i128,
    budget: &mut u32,
    out: &mut [i128],
) -> Result<bool, GaveUp> {
    let mut best: Option<(usize, Candidates)> = None;
    for k in 0..vars.len() {
        let c = candidates(vars, k, t, max_sum)?;
        if c.count() == 0 {
            return Ok(false);
        }
        if best.as_ref().is_none_or(|(_, b)| c.count() < b.count()) {
            best = Some((k, c));
        }
    }
    let Some((k, cands)) = best else {
        return Ok(false);
    };
    let rest: Vec<Var> = vars
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != k)
        .map(|(_, v)| *v)
        .collect();
    let mut w = cands.first;
    while w <= cands.last {
        if search(&rest, t - vars[k].c * w, budget, out)? {
            out[vars[k].slot] = w;
            return Ok(true);
        }
        w += cands.step;
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn term(coef: i128, lo: i128, hi: i128) -> Term {
        Term { coef, lo, hi }
    }

    fn brute(terms: &[Term], target: i128) -> bool {
        fn go(terms: &[Term], k: usize, acc: i128, target: i128) -> bool {
            if k == terms.len() {
                return acc == target;
            }
            (terms[k].lo..=terms[k].hi).any(|z| go(terms, k + 1, acc + terms[k].coef * z, target))
        }
        go(terms, 0, 0, target)
    }

    fn check(terms: &[Term], target: i128, values: &[i128]) -> bool {
        let sum: i128 = terms.iter().zip(values).map(|(t, v)| t.coef * v).sum();
        sum == target
            && terms
                .iter()
                .zip(values)
                .all(|(t, v)| t.lo <= *v && *v <= t.hi)
    }

    #[test]
    fn two_unknowns_solve_in_closed_form_with_huge_ranges() {
        let terms = [term(3, 0, 1_000_000_000), term(-5, 0, 1_000_000_000)];
        match solve(&terms, 1, DEFAULT_BUDGET) {
            Solve::Found(v) => assert!(check(&terms, 1, &v)),
            other => panic!("expected a solution, got {other:?}"),
        }
        let even = [term(2, 0, 1_000_000), term(4, 0, 1_000_000)];
        assert_eq!(solve(&even, 7, DEFAULT_BUDGET), Solve::NoSolution);
    }

    #[test]
    fn nested_strides_need_no_search() {
        let terms = [
            term(1_000_000, 0, 999_999),
            term(1000, 0, 999),
            term(1, 0, 999),
            term(-1, 0, 0),
        ];
        match solve(&terms, 123_456_789, 64) {
            Solve::Found(v) => assert!(check(&terms, 123_456_789, &v)),
            other => panic!("expected a solution, got {other:?}"),
        }
    }

    #[test]
    fn empty_ranges_have_no_solution() {
        assert_eq!(
            solve(&[term(1, 1, 0)], 0, DEFAULT_BUDGET),
            Solve::NoSolution
        );
        assert_eq!(solve(&[], 0, DEFAULT_BUDGET), Solve::Found(vec![]));
        assert_eq!(solve(&[], 3, DEFAULT_BUDGET), Solve::NoSolution);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn agrees_with_brute_force(
            raw in proptest::collection::vec((-12i128..=12, -3i128..=3, 0i128..=5), 0..5),
            target in -40i128..=40,
        ) {
            let terms: Vec<Term> = raw.iter().map(|&(c, lo, n)| term(c, lo, lo + n)).collect();
            match solve(&terms, target, DEFAULT_BUDGET) {
                Solve::Found(v) => prop_assert!(check(&terms, target, &v)),
                Solve::NoSolution => prop_assert!(!brute(&terms, target)),
                Solve::GaveUp => prop_assert!(false, "gave up on a small equation"),
            }
        }
    }
}
