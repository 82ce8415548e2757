//! Audit of the alias oracle's soundness: every verdict is compared with a brute-force
//! enumeration over small symbol values, and every witness is checked to really reach
//! one address (the contract in `mod.rs`).
//!
//! A `NoAlias` contradicted by one allowed assignment in the box, a `MustAlias`
//! contradicted by one allowed assignment without overlap, or a witness that does not
//! reach one address is a bug. (The box is finite, so `MustAlias` is only checked
//! inside it.)

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::assume::{Assumptions, Cmp, Fact};
use super::decide::{
    internal_overlap, iterations_overlap, iterations_share_cache_line, overlap, same_map,
    share_cache_line, Answer, Verdict, Witness,
};
use super::expr::Expr;
use super::view::{Dim, RootId, View};

// ---------------------------------------------------------------------------------------
// brute force

type Env = BTreeMap<String, i128>;

fn ev(e: &Expr, env: &Env) -> Option<i128> {
    e.eval(&|s: &str| env.get(s).copied())
}

/// Every index tuple of `v` with its element address, under `env`. `None` when a
/// quantity cannot be evaluated.
fn elements(v: &View, env: &Env) -> Option<Vec<(Vec<i64>, i128)>> {
    let mut lens = Vec::new();
    for d in &v.dims {
        let l = ev(&d.len, env)?;
        if l <= 0 {
            return Some(Vec::new());
        }
        assert!(l <= 64, "brute force box too large: len {l}");
        lens.push(l as i64);
    }
    let mut tuples: Vec<Vec<i64>> = vec![Vec::new()];
    for &l in &lens {
        tuples = tuples
            .into_iter()
            .flat_map(|t| {
                (0..l).map(move |x| {
                    let mut t = t.clone();
                    t.push(x);
                    t
                })
            })
            .collect();
    }
    tuples
        .into_iter()
        .map(|t| Some((t.clone(), address(v, &t, env)?)))
        .collect()
}

fn address(v: &View, idx: &[i64], env: &Env) -> Option<i128> {
    let index: Vec<Expr> = idx.iter().map(|&x| Expr::int(x)).collect();
    ev(&v.address(&index), env)
}

fn in_range(v: &View, idx: &[i64], env: &Env) -> bool {
    idx.len() == v.ndim()
        && v.dims
            .iter()
            .zip(idx)
            .all(|(d, &x)| ev(&d.len, env).is_some_and(|l| 0 <= i128::from(x) && i128::from(x) < l))
}

fn elem(v: &View) -> i128 {
    i128::from(v.elem_bytes.max(1))
}

fn bytes_meet(a: &View, aa: i128, b: &View, bb: i128) -> bool {
    let (ea, eb) = (elem(a), elem(b));
    aa * ea < bb * eb + eb && bb * eb < aa * ea + ea
}

/// Disjoint bytes in one line.
fn same_line(a: &View, aa: i128, b: &View, bb: i128, line: i128) -> bool {
    let (af, al) = (aa * elem(a), aa * elem(a) + elem(a) - 1);
    let (bf, bl) = (bb * elem(b), bb * elem(b) + elem(b) - 1);
    let disjoint = al < bf || bl < af;
    let lines = |f: i128, l: i128| (f.div_euclid(line), l.div_euclid(line));
    let ((a0, a1), (b0, b1)) = (lines(af, al), lines(bf, bl));
    disjoint && a0 <= b1 && b0 <= a1
}

fn truth_overlap(a: &View, b: &View, env: &Env) -> Option<bool> {
    let (ea, eb) = (elements(a, env)?, elements(b, env)?);
    Some(
        ea.iter()
            .any(|(_, x)| eb.iter().any(|(_, y)| bytes_meet(a, *x, b, *y))),
    )
}

fn truth_internal(v: &View, env: &Env) -> Option<bool> {
    let e = elements(v, env)?;
    Some(
        e.iter()
            .enumerate()
            .any(|(k, (_, x))| e[k + 1..].iter().any(|(_, y)| x == y)),
    )
}

fn truth_line(a: &View, b: &View, line: i128, env: &Env) -> Option<bool> {
    let (ea, eb) = (elements(a, env)?, elements(b, env)?);
    Some(
        ea.iter()
            .any(|(_, x)| eb.iter().any(|(_, y)| same_line(a, *x, b, *y, line))),
    )
}

fn iteration_views(v: &View, iter: &str, range: &(Expr, Expr), env: &Env) -> Option<Vec<View>> {
    let (lo, hi) = (ev(&range.0, env)?, ev(&range.1, env)?);
    assert!(hi - lo <= 64, "brute force box too large: range");
    Some(
        (lo..hi)
            .map(|i| v.subst(iter, &Expr::int(i as i64)))
            .collect(),
    )
}

fn truth_iterations(
    v: &View,
    iter: &str,
    range: &(Expr, Expr),
    line: Option<i128>,
    env: &Env,
) -> Option<bool> {
    let views = iteration_views(v, iter, range, env)?;
    for (i, vi) in views.iter().enumerate() {
        for (j, vj) in views.iter().enumerate() {
            if i == j {
                continue;
            }
            let hit = match line {
                None => truth_overlap(vi, vj, env)?,
                Some(l) => truth_line(vi, vj, l, env)?,
            };
            if hit {
                return Some(true);
            }
        }
    }
    Some(false)
}

/// All assignments of `syms` in `lo..=hi` under which the assumptions hold.
fn allowed(asm: &Assumptions, syms: &[&str], lo: i128, hi: i128) -> Vec<Env> {
    let mut out: Vec<Env> = vec![Env::new()];
    for s in syms {
        out = out
            .into_iter()
            .flat_map(|e| {
                (lo..=hi).map(move |v| {
                    let mut e = e.clone();
                    e.insert(s.to_string(), v);
                    e
                })
            })
            .collect();
    }
    out.retain(|e| asm.hold(&|s: &str| e.get(s).copied()) == Some(true));
    out
}

fn witness_env(w: &Witness) -> Env {
    w.symbols
        .iter()
        .map(|(k, v)| (k.clone(), i128::from(*v)))
        .collect()
}

/// Whether the witness is valid under its own symbol values, or, when it leaves some
/// symbols out (concrete parts need none), under some allowed completion of them.
fn witness_valid(w: &Witness, envs: &[Env], valid: &dyn Fn(&Env) -> bool) -> bool {
    let own = witness_env(w);
    // No allowed values at all (contradictory assumptions): every claim is vacuous.
    envs.is_empty()
        || valid(&own)
        || envs.iter().any(|e| {
            let mut merged = e.clone();
            merged.extend(own.clone());
            valid(&merged)
        })
}

/// Compares a verdict with the brute-force truth at every allowed assignment of the box.
fn judge(
    what: &str,
    ans: &Answer,
    envs: &[Env],
    truth: &dyn Fn(&Env) -> Option<bool>,
) -> Result<(), String> {
    let mut any = None;
    let mut none_at = None;
    for e in envs {
        match truth(e) {
            Some(true) => any = any.or(Some(e.clone())),
            Some(false) => none_at = none_at.or(Some(e.clone())),
            None => {}
        }
    }
    match ans.verdict {
        Verdict::NoAlias => {
            if let Some(e) = any {
                return Err(format!("{what}: NoAlias but overlap at {e:?}: {ans:?}"));
            }
        }
        Verdict::MustAlias => {
            if let Some(e) = none_at {
                return Err(format!(
                    "{what}: MustAlias but no overlap at {e:?}: {ans:?}"
                ));
            }
            if ans.undecided {
                return Err(format!("{what}: MustAlias and undecided: {ans:?}"));
            }
        }
        Verdict::MayAlias => {}
    }
    if ans.verdict != Verdict::NoAlias && !ans.undecided && ans.witness.is_none() {
        return Err(format!(
            "{what}: overlap claimed without a witness: {ans:?}"
        ));
    }
    Ok(())
}

/// Whether the witness names every symbol of `v`. When it does not, its `element` cannot
/// be right in general (see the `*_witness_element_*` tests); the random tests then skip
/// the element check so that they stay about verdicts and indices.
fn names_all(w: &Witness, v: &View) -> bool {
    let own = witness_env(w);
    v.symbols().iter().all(|s| own.contains_key(s))
}

fn asm_holds(asm: &Assumptions, env: &Env) -> bool {
    asm.hold(&|s: &str| env.get(s).copied()) == Some(true)
}

fn check_overlap(a: &View, b: &View, asm: &Assumptions, syms: &[&str]) -> Result<(), String> {
    let ans = overlap(a, b, asm);
    let envs = allowed(asm, syms, -2, 5);
    judge("overlap", &ans, &envs, &|e| truth_overlap(a, b, e))?;
    if let (Some(w), false) = (&ans.witness, ans.undecided) {
        let ok = witness_valid(w, &envs, &|env| {
            asm_holds(asm, env)
                && in_range(a, &w.a, env)
                && in_range(b, &w.b, env)
                && match (address(a, &w.a, env), address(b, &w.b, env)) {
                    (Some(x), Some(y)) => {
                        bytes_meet(a, x, b, y) && (i128::from(w.element) == x || !names_all(w, a))
                    }
                    _ => false,
                }
        });
        if !ok {
            return Err(format!(
                "overlap: bad witness {w:?} for {a:?} / {b:?}: {ans:?}"
            ));
        }
    }
    Ok(())
}

fn check_internal(v: &View, asm: &Assumptions, syms: &[&str]) -> Result<(), String> {
    let ans = internal_overlap(v, asm);
    let envs = allowed(asm, syms, -2, 5);
    judge("internal", &ans, &envs, &|e| truth_internal(v, e))?;
    if let (Some(w), false) = (&ans.witness, ans.undecided) {
        let ok = witness_valid(w, &envs, &|env| {
            asm_holds(asm, env)
                && w.a != w.b
                && in_range(v, &w.a, env)
                && in_range(v, &w.b, env)
                && address(v, &w.a, env).is_some()
                && address(v, &w.a, env) == address(v, &w.b, env)
                && (address(v, &w.a, env) == Some(i128::from(w.element)) || !names_all(w, v))
        });
        if !ok {
            return Err(format!("internal: bad witness {w:?} for {v:?}: {ans:?}"));
        }
    }
    Ok(())
}

fn check_line(
    a: &View,
    b: &View,
    line: u32,
    asm: &Assumptions,
    syms: &[&str],
) -> Result<(), String> {
    let ans = share_cache_line(a, b, line, asm);
    let envs = allowed(asm, syms, -2, 5);
    let l = i128::from(line);
    judge("share_cache_line", &ans, &envs, &|e| truth_line(a, b, l, e))?;
    if let (Some(w), false) = (&ans.witness, ans.undecided) {
        let ok = witness_valid(w, &envs, &|env| {
            asm_holds(asm, env)
                && in_range(a, &w.a, env)
                && in_range(b, &w.b, env)
                && match (address(a, &w.a, env), address(b, &w.b, env)) {
                    (Some(x), Some(y)) => same_line(a, x, b, y, l),
                    _ => false,
                }
        });
        if !ok {
            return Err(format!("share_cache_line: bad witness {w:?}: {ans:?}"));
        }
    }
    Ok(())
}

fn check_iterations(
    v: &View,
    iter: &str,
    range: (Expr, Expr),
    line: Option<u32>,
    asm: &Assumptions,
    syms: &[&str],
) -> Result<(), String> {
    let ans = match line {
        None => iterations_overlap(v, iter, range.clone(), asm),
        Some(l) => iterations_share_cache_line(v, iter, range.clone(), l, asm),
    };
    let envs = allowed(asm, syms, -2, 5);
    let l = line.map(i128::from);
    judge("iterations", &ans, &envs, &|e| {
        truth_iterations(v, iter, &range, l, e)
    })?;
    if let (Some(w), false) = (&ans.witness, ans.undecided) {
        let ok = witness_valid(w, &envs, &|env| {
            let (i, j) = (
                env.get(iter).copied(),
                env.get(&format!("{iter}'")).copied(),
            );
            let (Some(i), Some(j)) = (i, j) else {
                return false;
            };
            let lo = ev(&range.0, env);
            let hi = ev(&range.1, env);
            let inside = |x: i128| lo.is_some_and(|lo| lo <= x) && hi.is_some_and(|h| x < h);
            let vi = v.subst(iter, &Expr::int(i as i64));
            let vj = v.subst(iter, &Expr::int(j as i64));
            i != j
                && inside(i)
                && inside(j)
                && asm_holds(asm, env)
                && in_range(&vi, &w.a, env)
                && in_range(&vj, &w.b, env)
                && match (address(&vi, &w.a, env), address(&vj, &w.b, env)) {
                    (Some(x), Some(y)) => match l {
                        None => x == y,
                        Some(l) => same_line(&vi, x, &vj, y, l),
                    },
                    _ => false,
                }
        });
        if !ok {
            return Err(format!("iterations: bad witness {w:?} for {v:?}: {ans:?}"));
        }
    }
    Ok(())
}

fn n() -> Expr {
    Expr::sym("n")
}

fn m() -> Expr {
    Expr::sym("m")
}

fn view(elem: u32, offset: Expr, dims: Vec<(Expr, Expr)>) -> View {
    View {
        root: RootId(0),
        elem_bytes: elem,
        offset,
        dims: dims.into_iter().map(|(l, s)| Dim::new(l, s)).collect(),
    }
}

fn ge(e: Expr, k: i64) -> (Expr, Cmp, Expr) {
    (e, Cmp::Ge, Expr::int(k))
}

fn asm_of(facts: Vec<(Expr, Cmp, Expr)>) -> Assumptions {
    let mut a = Assumptions::new();
    for (l, c, r) in facts {
        a.push(l, c, r);
    }
    a
}

fn ok(r: Result<(), String>) {
    if let Err(e) = r {
        panic!("{e}");
    }
}

// ---------------------------------------------------------------------------------------
// targeted cases

#[test]
fn interval_with_a_stride_that_may_be_zero() {
    // stride n with n >= 0: a = [0, n*(4-1)], b starts at 1. n = 0 keeps a at element 0.
    let a = view(1, Expr::int(0), vec![(Expr::int(4), n())]);
    let b = view(1, Expr::int(1), vec![(Expr::int(1), Expr::int(1))]);
    let asm = asm_of(vec![ge(n(), 0)]);
    ok(check_overlap(&a, &b, &asm, &["n"]));
}

#[test]
fn interval_with_a_stride_of_unknown_sign() {
    // stride n - 2 is negative for n < 2: a reaches below its offset.
    let a = view(1, Expr::int(10), vec![(Expr::int(4), &n() - 2)]);
    let b = view(1, Expr::int(5), vec![(Expr::int(2), Expr::int(1))]);
    let asm = asm_of(vec![ge(n(), 0)]);
    ok(check_overlap(&a, &b, &asm, &["n"]));
}

#[test]
fn same_map_of_possibly_empty_views_is_not_must() {
    let a = view(4, n(), vec![(&n() - 1, Expr::int(1))]);
    let asm = asm_of(vec![ge(n(), 1)]);
    ok(check_overlap(&a, &a, &asm, &["n"]));
}

#[test]
fn gcd_with_symbolic_strides_that_may_be_zero() {
    // strides 2n: every stride is even, offsets differ by one: never overlap.
    let a = view(1, Expr::int(0), vec![(Expr::int(3), &n() * 2)]);
    let b = view(1, Expr::int(1), vec![(Expr::int(3), &n() * 2)]);
    ok(check_overlap(&a, &b, &Assumptions::new(), &["n"]));
    // With a length-1 axis of odd stride excluded and a symbolic length that may be 1.
    let c = view(
        1,
        Expr::int(1),
        vec![(n(), Expr::int(3)), (Expr::int(2), Expr::int(2))],
    );
    ok(check_overlap(&a, &c, &Assumptions::new(), &["n"]));
}

#[test]
fn gcd_with_mixed_element_sizes() {
    // u8 view at byte 1 of an f32 buffer viewed with stride 2 (in f32 units).
    let a = view(4, Expr::int(0), vec![(n(), Expr::int(2))]);
    let b = view(1, Expr::int(1), vec![(Expr::int(1), Expr::int(1))]);
    ok(check_overlap(&a, &b, &Assumptions::new(), &["n"]));
    let c = view(2, &n() * 2 + 1, vec![(Expr::int(2), Expr::int(2))]);
    ok(check_overlap(&a, &c, &asm_of(vec![ge(n(), 1)]), &["n"]));
}

#[test]
fn floor_division_of_negative_offsets() {
    // offset (n - 7)/2 (floor) vs an element at -2: n in [-2, 5] gives offsets -5..-1.
    let a = view(
        1,
        (&n() - 7).div_floor(2),
        vec![(Expr::int(1), Expr::int(1))],
    );
    let b = view(1, Expr::int(-2), vec![(Expr::int(1), Expr::int(1))]);
    ok(check_overlap(&a, &b, &Assumptions::new(), &["n"]));
    let c = view(1, (&n() - 7).rem(3), vec![(Expr::int(2), Expr::int(1))]);
    let d = view(1, Expr::int(2), vec![(Expr::int(1), Expr::int(1))]);
    ok(check_overlap(&c, &d, &Assumptions::new(), &["n"]));
    // Negative divisor.
    let e = view(1, n().div_floor(-2), vec![(Expr::int(1), Expr::int(1))]);
    let f = view(1, Expr::int(1), vec![(Expr::int(1), Expr::int(1))]);
    ok(check_overlap(&e, &f, &Assumptions::new(), &["n"]));
}

#[test]
fn min_and_max_lengths() {
    let a = view(
        1,
        Expr::int(0),
        vec![(n().minimum(&Expr::int(3)), Expr::int(1))],
    );
    let b = view(
        1,
        Expr::int(2),
        vec![(m().maximum(&Expr::int(1)), Expr::int(1))],
    );
    ok(check_overlap(
        &a,
        &b,
        &asm_of(vec![ge(n(), 0)]),
        &["n", "m"],
    ));
    ok(check_overlap(
        &a,
        &b,
        &asm_of(vec![ge(n(), 3)]),
        &["n", "m"],
    ));
}

#[test]
fn must_alias_needs_the_witness_in_range_for_every_value() {
    // a = [0, n), b = {5}: overlap only when n > 5.
    let a = view(1, Expr::int(0), vec![(n(), Expr::int(1))]);
    let b = view(1, Expr::int(5), vec![(Expr::int(1), Expr::int(1))]);
    ok(check_overlap(&a, &b, &asm_of(vec![ge(n(), 1)]), &["n"]));
    // b = {n - 1} overlaps whenever n >= 1: MustAlias is right.
    let c = view(1, &n() - 1, vec![(Expr::int(1), Expr::int(1))]);
    let ans = overlap(&a, &c, &asm_of(vec![ge(n(), 1)]));
    assert_eq!(ans.verdict, Verdict::MustAlias, "{ans:?}");
    ok(check_overlap(&a, &c, &asm_of(vec![ge(n(), 1)]), &["n"]));
}

#[test]
fn must_alias_with_a_corner_that_moves_with_two_sizes() {
    // a = rows [0, n) of width m; b = the element n*m - 1 (last one): must when both >= 1.
    let a = view(1, Expr::int(0), vec![(n(), m()), (m(), Expr::int(1))]);
    let b = view(1, &(&n() * &m()) - 1, vec![(Expr::int(1), Expr::int(1))]);
    let asm = asm_of(vec![ge(n(), 1), ge(m(), 1)]);
    ok(check_overlap(&a, &b, &asm, &["n", "m"]));
    // Without m >= 1 it is not must.
    let asm = asm_of(vec![ge(n(), 1)]);
    ok(check_overlap(&a, &b, &asm, &["n", "m"]));
}

#[test]
fn must_alias_with_mixed_element_sizes_under_assumptions() {
    // f32 elements [0, n) and byte 4n - 1 (the last byte of the last element).
    let a = view(4, Expr::int(0), vec![(n(), Expr::int(1))]);
    let b = view(1, &(&n() * 4) - 1, vec![(Expr::int(1), Expr::int(1))]);
    ok(check_overlap(&a, &b, &asm_of(vec![ge(n(), 1)]), &["n"]));
    ok(check_overlap(&a, &b, &Assumptions::new(), &["n"]));
    let c = view(1, &n() * 4, vec![(Expr::int(1), Expr::int(1))]);
    ok(check_overlap(&a, &c, &asm_of(vec![ge(n(), 1)]), &["n"]));
}

#[test]
fn internal_overlap_with_symbolic_strides() {
    // stride n may be zero.
    let v = view(1, Expr::int(0), vec![(Expr::int(3), n())]);
    ok(check_internal(&v, &asm_of(vec![ge(n(), 0)]), &["n"]));
    // strides (n, 1) with length 2 on the inner axis: nested only when n >= 2.
    let w = view(
        1,
        Expr::int(0),
        vec![(Expr::int(3), n()), (Expr::int(2), Expr::int(1))],
    );
    ok(check_internal(&w, &asm_of(vec![ge(n(), 1)]), &["n"]));
    ok(check_internal(&w, &asm_of(vec![ge(n(), 2)]), &["n"]));
    // A broadcast axis whose length may be 1.
    let b = view(
        1,
        Expr::int(0),
        vec![(n(), Expr::int(0)), (Expr::int(2), Expr::int(1))],
    );
    ok(check_internal(&b, &asm_of(vec![ge(n(), 1)]), &["n"]));
    ok(check_internal(&b, &asm_of(vec![ge(n(), 2)]), &["n"]));
    // Negative stride of unknown magnitude.
    let c = view(
        1,
        Expr::int(0),
        vec![(Expr::int(3), -&n()), (n(), Expr::int(1))],
    );
    ok(check_internal(&c, &asm_of(vec![ge(n(), 0)]), &["n"]));
}

#[test]
fn same_map_claims_hold_for_every_value() {
    let a = view(1, Expr::int(0), vec![(n(), Expr::int(1))]);
    let b = view(1, Expr::int(0), vec![(n(), m())]);
    // Different strides: same map only when n <= 1 or m == 1.
    assert!(!same_map(&a, &b, &Assumptions::new()));
    assert!(same_map(
        &a,
        &b,
        &asm_of(vec![(n(), Cmp::Le, Expr::int(1))])
    ));
    assert!(same_map(
        &a,
        &b,
        &asm_of(vec![(m(), Cmp::Eq, Expr::int(1))])
    ));
    // Different element sizes never map alike.
    let mut c = a.clone();
    c.elem_bytes = 2;
    assert!(!same_map(&a, &c, &Assumptions::new()));
}

#[test]
fn share_cache_line_with_negative_offsets() {
    // Bytes [-4, -1] and [-8, -5] lie in line -1 (bytes -64..-1).
    let a = View::strided(RootId(0), 4, -1, &[1], &[1]);
    let b = View::strided(RootId(0), 4, -2, &[1], &[1]);
    let ans = share_cache_line(&a, &b, 64, &Assumptions::new());
    assert_eq!(ans.verdict, Verdict::MustAlias, "{ans:?}");
    // Byte -1 and byte 0 are in different lines.
    let c = View::strided(RootId(0), 1, -1, &[1], &[1]);
    let d = View::strided(RootId(0), 1, 0, &[1], &[1]);
    let ans = share_cache_line(&c, &d, 64, &Assumptions::new());
    assert_eq!(ans.verdict, Verdict::NoAlias, "{ans:?}");
    // Symbolic negative offsets.
    let e = view(4, -&n(), vec![(Expr::int(1), Expr::int(1))]);
    let f = view(4, Expr::int(0), vec![(Expr::int(1), Expr::int(1))]);
    ok(check_line(&e, &f, 8, &asm_of(vec![ge(n(), 1)]), &["n"]));
    ok(check_line(&e, &f, 8, &Assumptions::new(), &["n"]));
}

#[test]
fn iterations_over_empty_and_reversed_ranges() {
    let v = view(1, Expr::sym("i"), vec![(Expr::int(2), Expr::int(1))]);
    for (lo, hi) in [(0, 0), (0, 1), (3, 1), (5, -5)] {
        let ans = iterations_overlap(&v, "i", (Expr::int(lo), Expr::int(hi)), &Assumptions::new());
        assert_eq!(ans.verdict, Verdict::NoAlias, "{lo}..{hi}: {ans:?}");
        let ans = iterations_share_cache_line(
            &v,
            "i",
            (Expr::int(lo), Expr::int(hi)),
            64,
            &Assumptions::new(),
        );
        assert_eq!(ans.verdict, Verdict::NoAlias, "{lo}..{hi}: {ans:?}");
    }
    // Symbolic ranges that may be empty or reversed.
    ok(check_iterations(
        &v,
        "i",
        (n(), m()),
        None,
        &Assumptions::new(),
        &["n", "m"],
    ));
    ok(check_iterations(
        &v,
        "i",
        (Expr::int(0), n()),
        None,
        &asm_of(vec![ge(n(), 2)]),
        &["n"],
    ));
    ok(check_iterations(
        &v,
        "i",
        (Expr::int(0), n()),
        Some(4),
        &Assumptions::new(),
        &["n"],
    ));
}

#[test]
fn iterations_with_a_step_that_may_be_zero_or_negative() {
    let i = Expr::sym("i");
    // Offset n*i: step n; tiles of 2 elements apart only when |n| >= 2.
    let v = view(1, &n() * &i, vec![(Expr::int(2), Expr::int(1))]);
    for asm in [
        Assumptions::new(),
        asm_of(vec![ge(n(), 0)]),
        asm_of(vec![ge(n(), 2)]),
        asm_of(vec![(n(), Cmp::Le, Expr::int(-2))]),
    ] {
        ok(check_iterations(
            &v,
            "i",
            (Expr::int(0), Expr::int(3)),
            None,
            &asm,
            &["n"],
        ));
    }
}

#[test]
fn iterations_concrete_with_first_iteration_not_zero() {
    let i = Expr::sym("i");
    let v = view(1, &i * 3, vec![(Expr::int(4), Expr::int(1))]);
    ok(check_iterations(
        &v,
        "i",
        (Expr::int(-3), Expr::int(-1)),
        None,
        &Assumptions::new(),
        &[],
    ));
    ok(check_iterations(
        &v,
        "i",
        (Expr::int(5), Expr::int(8)),
        None,
        &Assumptions::new(),
        &[],
    ));
    // Step beyond the span: no overlap.
    let w = view(1, &i * 4, vec![(Expr::int(4), Expr::int(1))]);
    ok(check_iterations(
        &w,
        "i",
        (Expr::int(-2), Expr::int(3)),
        None,
        &Assumptions::new(),
        &[],
    ));
}

#[test]
fn banded_tiles_with_a_shorter_last_band() {
    let (band, b) = (Expr::sym("band"), Expr::sym("b"));
    let w = Expr::int(2);
    let rows = n();
    let height = band.minimum(&(&rows - &(&band * &b)));
    let tile = view(
        4,
        &(&band * &w) * &b,
        vec![(height.clone(), w.clone()), (w.clone(), Expr::int(1))],
    );
    let count = (&(&rows + &band) - 1).div_floor(band.clone());
    let asm = asm_of(vec![ge(band.clone(), 1), ge(rows.clone(), 1)]);
    ok(check_iterations(
        &tile,
        "b",
        (Expr::int(0), count.clone()),
        None,
        &asm,
        &["band", "n"],
    ));
    // A band one row too tall overlaps the next.
    let tall = band.minimum(&(&rows - &(&band * &b))) + 1;
    let t2 = view(
        4,
        &(&band * &w) * &b,
        vec![(tall, w.clone()), (w, Expr::int(1))],
    );
    ok(check_iterations(
        &t2,
        "b",
        (Expr::int(0), count),
        None,
        &asm,
        &["band", "n"],
    ));
}

#[test]
fn bounded_tiles_with_a_negative_min_coefficient_length() {
    // Length 3 - min(i, 2): grows as i falls; the bound must not take `3 - i` or `1`.
    let i = Expr::sym("i");
    let len = Expr::int(3) - i.minimum(&Expr::int(2));
    let v = view(1, &i * 2, vec![(len, Expr::int(1))]);
    ok(check_iterations(
        &v,
        "i",
        (Expr::int(0), n()),
        None,
        &asm_of(vec![ge(n(), 0)]),
        &["n"],
    ));
    // Length min(2, n - i) + min(i, 1): a min with the iteration on both sides.
    let len = Expr::int(2).minimum(&(&n() - &i)) + i.minimum(&Expr::int(1));
    let v = view(1, &i * 2, vec![(len, Expr::int(1))]);
    ok(check_iterations(
        &v,
        "i",
        (Expr::int(0), n()),
        None,
        &asm_of(vec![ge(n(), 0)]),
        &["n"],
    ));
}

#[test]
fn iterations_share_cache_line_with_negative_offsets() {
    let i = Expr::sym("i");
    let v = view(4, &(-&i) * 2 - 1, vec![(Expr::int(1), Expr::int(1))]);
    ok(check_iterations(
        &v,
        "i",
        (Expr::int(0), Expr::int(4)),
        Some(16),
        &Assumptions::new(),
        &[],
    ));
    ok(check_iterations(
        &v,
        "i",
        (Expr::int(0), n()),
        Some(16),
        &asm_of(vec![ge(n(), 2)]),
        &["n"],
    ));
}

// ---------------------------------------------------------------------------------------
// large concrete values

#[test]
fn huge_strides_do_not_overflow_into_a_wrong_verdict() {
    let big = 1_000_000_000_000i64;
    // a: 10^6 rows of stride 10^12; b: one element just past a's last row start + 1.
    let a = View::strided(RootId(0), 8, 0, &[1_000_000], &[big]);
    let last = big * 999_999;
    let b = View::strided(RootId(0), 8, last + 1, &[1], &[1]);
    assert_eq!(
        overlap(&a, &b, &Assumptions::new()).verdict,
        Verdict::NoAlias
    );
    let c = View::strided(RootId(0), 8, last, &[1], &[1]);
    let ans = overlap(&a, &c, &Assumptions::new());
    assert_eq!(ans.verdict, Verdict::MustAlias, "{ans:?}");
    assert_eq!(ans.witness.map(|w| w.a), Some(vec![999_999]));
    // Strides whose byte product leaves i64 (stride 2^62, f64 elements).
    let huge = 1i64 << 62;
    let d = View::strided(RootId(0), 8, 0, &[2], &[huge]);
    let e = View::strided(RootId(0), 1, 0, &[2], &[1]);
    let ans = overlap(&d, &e, &Assumptions::new());
    assert_eq!(ans.verdict, Verdict::MustAlias, "{ans:?}");
    // Byte 8*2^62 = 2^65 is reached by d[1] only.
    let f = View::strided(RootId(0), 8, huge, &[1], &[1]);
    let ans = overlap(&d, &f, &Assumptions::new());
    assert_eq!(ans.verdict, Verdict::MustAlias, "{ans:?}");
    let g = View::strided(RootId(0), 8, huge - 1, &[1], &[1]);
    let ans = overlap(&d, &g, &Assumptions::new());
    assert_eq!(ans.verdict, Verdict::NoAlias, "{ans:?}");
}

#[test]
fn extreme_strides_and_offsets() {
    let a = View::strided(RootId(0), 4, i64::MAX, &[2], &[i64::MIN]);
    let b = View::strided(RootId(0), 4, -1, &[1], &[1]);
    // a reaches i64::MAX and -1: b's element.
    let ans = overlap(&a, &b, &Assumptions::new());
    assert_eq!(ans.verdict, Verdict::MustAlias, "{ans:?}");
    let c = View::strided(RootId(0), 4, 0, &[1], &[1]);
    let ans = overlap(&a, &c, &Assumptions::new());
    assert_eq!(ans.verdict, Verdict::NoAlias, "{ans:?}");
    let ans = internal_overlap(
        &View::strided(RootId(0), 1, 0, &[3, 3], &[i64::MAX, i64::MIN]),
        &Assumptions::new(),
    );
    assert_eq!(ans.verdict, Verdict::NoAlias, "{ans:?}");
}

#[test]
fn huge_symbolic_views_fold_exactly() {
    // offset 2^62*n + 2^62*n overflows the coefficient; with n >= 1 the views are far
    // apart, with n == 0 they meet.
    let c = 1i64 << 62;
    let off = &(&n() * c) + &(&n() * c);
    let a = view(1, off, vec![(Expr::int(2), Expr::int(1))]);
    let b = view(1, Expr::int(0), vec![(Expr::int(2), Expr::int(1))]);
    let ans = overlap(&a, &b, &Assumptions::new());
    assert_ne!(ans.verdict, Verdict::NoAlias, "{ans:?}");
    assert_ne!(ans.verdict, Verdict::MustAlias, "{ans:?}");
    let ans = overlap(&a, &b, &asm_of(vec![ge(n(), 1)]));
    assert_eq!(ans.verdict, Verdict::NoAlias, "{ans:?}");
}

#[test]
fn floor_division_by_minus_one_of_the_extreme_coefficient_does_not_panic() {
    let e = &n() * i64::MIN;
    let r = std::panic::catch_unwind(|| e.div_floor(-1));
    assert!(r.is_ok(), "div_floor panicked");
    let r = std::panic::catch_unwind(|| (&n() * i64::MIN).rem(-1));
    assert!(r.is_ok(), "rem panicked");
}

// ---------------------------------------------------------------------------------------
// random symbolic views against brute force

fn small_expr() -> impl Strategy<Value = Expr> {
    prop_oneof![
        (-3i64..=3).prop_map(Expr::int),
        (-2i64..=2, -2i64..=2).prop_map(|(a, c)| &(&n() * a) + c),
        (-1i64..=1, -1i64..=1, -2i64..=2).prop_map(|(a, b, c)| &(&(&n() * a) + &(&m() * b)) + c),
        (-3i64..=3, 1i64..=3).prop_map(|(c, d)| (&n() + c).div_floor(d)),
        (-3i64..=3, 2i64..=3).prop_map(|(c, d)| (&m() + c).rem(d)),
        (-1i64..=3).prop_map(|c| n().minimum(&Expr::int(c))),
        (-1i64..=2).prop_map(|c| m().maximum(&(&n() - c))),
    ]
}

fn len_expr() -> impl Strategy<Value = Expr> {
    prop_oneof![
        (0i64..=3).prop_map(Expr::int),
        (-1i64..=1).prop_map(|c| &n() + c),
        (-1i64..=1).prop_map(|c| &m() + c),
        Just(n().div_floor(2)),
        (0i64..=2).prop_map(|c| n().minimum(&Expr::int(c))),
        Just(&n() - &m()),
    ]
}

fn dims() -> impl Strategy<Value = Vec<(Expr, Expr)>> {
    proptest::collection::vec((len_expr(), small_expr()), 1..=2)
}

fn sym_view(elems: &'static [u32]) -> impl Strategy<Value = View> {
    (proptest::sample::select(elems), small_expr(), dims()).prop_map(|(e, off, d)| view(e, off, d))
}

fn assumptions() -> impl Strategy<Value = Assumptions> {
    proptest::collection::vec(
        prop_oneof![
            (-1i64..=3).prop_map(|k| Fact::Cmp(n(), Cmp::Ge, Expr::int(k))),
            (-1i64..=3).prop_map(|k| Fact::Cmp(m(), Cmp::Ge, Expr::int(k))),
            (1i64..=4).prop_map(|k| Fact::Cmp(n(), Cmp::Le, Expr::int(k))),
            Just(Fact::Cmp(n(), Cmp::Gt, m())),
            Just(Fact::Divisible(n(), 2)),
            Just(Fact::Cmp(m(), Cmp::Ne, Expr::int(1))),
            Just(Fact::Or(vec![
                Fact::Cmp(n(), Cmp::Eq, Expr::int(2)),
                Fact::Cmp(n(), Cmp::Eq, Expr::int(4)),
            ])),
        ],
        0..=3,
    )
    .prop_map(|fs| {
        let mut a = Assumptions::new();
        for f in fs {
            a.push_fact(f);
        }
        // Keep the brute force box honest: the symbols stay inside it.
        a.push(n(), Cmp::Le, Expr::int(5));
        a.push(n(), Cmp::Ge, Expr::int(-2));
        a.push(m(), Cmp::Le, Expr::int(5));
        a.push(m(), Cmp::Ge, Expr::int(-2));
        a
    })
}

const SYMS: &[&str] = &["n", "m"];

/// `cases` cases from a fixed seed (the same cases on every run, so that a run's outcome
/// and duration do not depend on chance), without writing failure files into the source
/// tree. `AUDIT_CASES=N` in the environment runs N cases instead, and `AUDIT_SEED=S`
/// draws them from seed `S`, for a deeper search.
fn cfg(cases: u32) -> ProptestConfig {
    let cases = std::env::var("AUDIT_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    let seed = std::env::var("AUDIT_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x7e55_0a11);
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(seed),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(cfg(400))]

    #[test]
    fn symbolic_overlap_agrees_with_brute_force(
        a in sym_view(&[1, 2, 4]), b in sym_view(&[1, 4]), asm in assumptions()
    ) {
        let r = check_overlap(&a, &b, &asm, SYMS);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }

    #[test]
    fn symbolic_internal_overlap_agrees_with_brute_force(
        v in sym_view(&[1, 4]), asm in assumptions()
    ) {
        let r = check_internal(&v, &asm, SYMS);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }

    #[test]
    fn symbolic_iterations_agree_with_brute_force(
        v in sym_view(&[1]), step in small_expr(), hi in len_expr(), asm in assumptions()
    ) {
        let v = v.offset_by(&step * &Expr::sym("i"));
        let r = check_iterations(&v, "i", (Expr::int(0), hi), None, &asm, SYMS);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

proptest! {
    #![proptest_config(cfg(120))]

    #[test]
    fn symbolic_cache_lines_agree_with_brute_force(
        a in sym_view(&[1, 4]), b in sym_view(&[1, 4]), asm in assumptions(),
        line in proptest::sample::select(&[4u32, 8][..])
    ) {
        let r = check_line(&a, &b, line, &asm, SYMS);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }

    #[test]
    fn symbolic_iterations_share_lines_agree_with_brute_force(
        v in sym_view(&[1, 4]), step in small_expr(), hi in len_expr(), asm in assumptions(),
        line in proptest::sample::select(&[4u32, 8][..])
    ) {
        let v = v.offset_by(&step * &Expr::sym("i"));
        let r = check_iterations(&v, "i", (Expr::int(0), hi), Some(line), &asm, SYMS);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

// ---------------------------------------------------------------------------------------
// iterations_share_cache_line: the neighbour fast path

#[test]
fn neighbour_lines_need_two_iterations_in_the_range() {
    // Per-thread counters `i` of 4 bytes; the range 0..n has at most one iteration
    // when n <= 1, so no two iterations can share a line.
    let v = view(4, Expr::sym("i"), vec![(Expr::int(1), Expr::int(1))]);
    let asm = asm_of(vec![(n(), Cmp::Le, Expr::int(1))]);
    let ans = iterations_share_cache_line(&v, "i", (Expr::int(0), n()), 64, &asm);
    ok(check_iterations(
        &v,
        "i",
        (Expr::int(0), n()),
        Some(64),
        &asm,
        &["n"],
    ));
    assert_eq!(ans.verdict, Verdict::NoAlias, "{ans:?}");
}

#[test]
fn neighbour_lines_with_huge_lengths_do_not_overflow() {
    // The element count of the first iteration leaves i128: the fast path must give up
    // rather than overflow (a panic in debug builds; in release the product wraps to 0
    // and the enumeration of 2^62 x 2^62 x 16 tuples never ends).
    let big = 1i64 << 62;
    let v = view(
        1,
        Expr::sym("i"),
        vec![
            (Expr::int(big), Expr::int(1)),
            (Expr::int(big), Expr::int(1)),
            (Expr::int(16), Expr::int(1)),
        ],
    );
    let r = std::panic::catch_unwind(|| {
        iterations_share_cache_line(
            &v,
            "i",
            (Expr::int(0), Expr::int(2)),
            64,
            &Assumptions::new(),
        )
    });
    assert!(r.is_ok(), "iterations_share_cache_line panicked");
}

#[test]
fn neighbour_lines_with_a_negative_step_and_a_late_first_iteration() {
    let i = Expr::sym("i");
    let v = view(2, &(-&i) * 3 + 5, vec![(Expr::int(2), Expr::int(1))]);
    for (lo, hi) in [(-4, -1), (3, 5), (7, 8)] {
        ok(check_iterations(
            &v,
            "i",
            (Expr::int(lo), Expr::int(hi)),
            Some(8),
            &Assumptions::new(),
            &[],
        ));
    }
    ok(check_iterations(
        &v,
        "i",
        (Expr::int(2), n()),
        Some(8),
        &asm_of(vec![ge(n(), 4)]),
        &["n"],
    ));
    ok(check_iterations(
        &v,
        "i",
        (Expr::int(2), n()),
        Some(8),
        &Assumptions::new(),
        &["n"],
    ));
}

// ---------------------------------------------------------------------------------------
// more random shapes: chunked iterations, concrete-but-for-the-iteration views, and
// assumptions without the box bounds (so fast paths cannot lean on them)

fn stride_expr() -> impl Strategy<Value = Expr> {
    prop_oneof![
        (-3i64..=3).prop_map(Expr::int),
        (-1i64..=1).prop_map(|c| &n() + c),
        Just(-&n()),
        Just(&n() - &m()),
        Just(&n() * 2),
        Just(m()),
    ]
}

fn wide_view(elems: &'static [u32]) -> impl Strategy<Value = View> {
    (
        proptest::sample::select(elems),
        small_expr(),
        proptest::collection::vec((len_expr(), stride_expr()), 1..=3),
    )
        .prop_map(|(e, off, d)| view(e, off, d))
}

fn concrete_view(elems: &'static [u32]) -> impl Strategy<Value = View> {
    (
        proptest::sample::select(elems),
        -6i64..=6,
        proptest::collection::vec((0i64..=3, -4i64..=4), 1..=2),
    )
        .prop_map(|(e, off, d)| {
            let (shape, strides): (Vec<i64>, Vec<i64>) = d.into_iter().unzip();
            View::strided(RootId(0), e, off, &shape, &strides)
        })
}

fn loose_assumptions() -> impl Strategy<Value = Assumptions> {
    proptest::collection::vec(
        prop_oneof![
            (-1i64..=3).prop_map(|k| Fact::Cmp(n(), Cmp::Ge, Expr::int(k))),
            (-1i64..=3).prop_map(|k| Fact::Cmp(m(), Cmp::Ge, Expr::int(k))),
            (0i64..=4).prop_map(|k| Fact::Cmp(n(), Cmp::Le, Expr::int(k))),
            Just(Fact::Cmp(n(), Cmp::Ge, m())),
            Just(Fact::Cmp(m(), Cmp::Gt, n())),
            Just(Fact::Divisible(n(), 2)),
        ],
        0..=3,
    )
    .prop_map(|fs| {
        let mut a = Assumptions::new();
        for f in fs {
            a.push_fact(f);
        }
        a
    })
}

proptest! {
    #![proptest_config(cfg(300))]

    #[test]
    fn wide_overlap_agrees_with_brute_force(
        a in wide_view(&[1, 4]), b in wide_view(&[1, 2]), asm in loose_assumptions()
    ) {
        let r = check_overlap(&a, &b, &asm, SYMS);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }

    #[test]
    fn wide_internal_overlap_agrees_with_brute_force(
        v in wide_view(&[1]), asm in loose_assumptions()
    ) {
        let r = check_internal(&v, &asm, SYMS);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }

    #[test]
    fn chunked_iterations_agree_with_brute_force(
        base in prop_oneof![wide_view(&[1]), concrete_view(&[1, 4])],
        c in prop_oneof![(1i64..=3).prop_map(Expr::int), Just(n()), Just(m())],
        hi in prop_oneof![(0i64..=4).prop_map(Expr::int), Just(n()), Just(m())],
        asm in loose_assumptions(),
        line in proptest::option::of(proptest::sample::select(&[4u32, 8][..])),
    ) {
        let Some(v) = base.chunk(0, Expr::sym("i"), c) else { return Ok(()); };
        let r = check_iterations(&v, "i", (Expr::int(0), hi), line, &asm, SYMS);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }

    #[test]
    fn concrete_stepped_iterations_agree_with_brute_force(
        base in concrete_view(&[1, 2, 4]),
        step in -5i64..=5,
        lo in -3i64..=2,
        hi in prop_oneof![(-2i64..=5).prop_map(Expr::int), Just(n())],
        asm in loose_assumptions(),
        line in proptest::option::of(proptest::sample::select(&[4u32, 8, 16][..])),
    ) {
        let v = base.offset_by(&Expr::sym("i") * step);
        let r = check_iterations(&v, "i", (Expr::int(lo), hi), line, &asm, SYMS);
        prop_assert!(r.is_ok(), "{}", r.err().unwrap_or_default());
    }
}

// ---------------------------------------------------------------------------------------
// witnesses must name every symbol their element depends on

#[test]
fn overlap_witness_element_when_a_shared_base_cancels() {
    // a = [k, k+2), b = [k+1, k+3): the base k cancels from the address equation, so the
    // solver's model never assigns it; the witness element must still be an address of
    // both views under the witness symbols.
    let k = Expr::sym("k");
    let a = view(1, k.clone(), vec![(n(), Expr::int(1))]);
    let b = view(1, &k + 1, vec![(n(), Expr::int(1))]);
    let asm = asm_of(vec![ge(n(), 2)]);
    let ans = overlap(&a, &b, &asm);
    let w = ans
        .witness
        .clone()
        .unwrap_or_else(|| panic!("no witness: {ans:?}"));
    let env = witness_env(&w);
    let at_a = address(&a, &w.a, &env);
    assert_eq!(at_a, address(&b, &w.b, &env), "{ans:?}");
    assert_eq!(
        at_a,
        Some(i128::from(w.element)),
        "element not at a's address: {ans:?}"
    );
}

#[test]
fn internal_witness_element_when_the_offset_cancels() {
    let k = Expr::sym("k");
    // Strides (n, 1) with an inner length n + 1: rows overlap by one element.
    let v = view(1, k, vec![(Expr::int(2), n()), (&n() + 1, Expr::int(1))]);
    let asm = asm_of(vec![ge(n(), 1)]);
    let ans = internal_overlap(&v, &asm);
    let w = ans
        .witness
        .clone()
        .unwrap_or_else(|| panic!("no witness: {ans:?}"));
    let env = witness_env(&w);
    let at_a = address(&v, &w.a, &env);
    assert_eq!(at_a, address(&v, &w.b, &env), "{ans:?}");
    assert_eq!(
        at_a,
        Some(i128::from(w.element)),
        "element not at a's address: {ans:?}"
    );
}

#[test]
fn iteration_witness_element_when_the_base_pointer_cancels() {
    // Chunks of 8 elements 4 apart from a symbolic base p: neighbours overlap.
    let (p, i) = (Expr::sym("p"), Expr::sym("i"));
    let v = view(1, &p + &(&i * 4), vec![(Expr::int(8), Expr::int(1))]);
    let ans = iterations_overlap(&v, "i", (Expr::int(0), n()), &asm_of(vec![ge(n(), 2)]));
    let w = ans
        .witness
        .clone()
        .unwrap_or_else(|| panic!("no witness: {ans:?}"));
    let env = witness_env(&w);
    let vi = v.subst("i", &Expr::int(env.get("i").copied().unwrap_or(-1) as i64));
    let at_a = address(&vi, &w.a, &env);
    assert_eq!(
        at_a,
        Some(i128::from(w.element)),
        "element not at a's address: {ans:?}"
    );
}

// ---------------------------------------------------------------------------------------
// big concrete views against closed-form truths

proptest! {
    #![proptest_config(cfg(300))]

    #[test]
    fn big_rows_against_one_element(
        rows in 1i64..=1_000_000, pitch in -1_000_000_000_000i64..=1_000_000_000_000,
        width in 1i64..=1_000_000, off in -(1i64 << 60)..(1i64 << 60),
        r in 0i64..=1_000_000, c in -2i64..=1_000_002, elem in proptest::sample::select(&[1u32, 8][..]),
    ) {
        // a: rows x width with row pitch `pitch`; b: one element near row r's start.
        let a = View::strided(RootId(0), elem, off, &[rows, width], &[pitch, 1]);
        let x = off as i128 + (r as i128) * (pitch as i128) + c as i128;
        prop_assume!(i64::try_from(x).is_ok());
        let b = View::strided(RootId(0), elem, x as i64, &[1], &[1]);
        let rel = x - off as i128;
        let truth = {
            // rows r' with 0 <= rel - r'*pitch < width.
            if pitch == 0 {
                0 <= rel && rel < width as i128
            } else {
                let p = pitch as i128;
                // r' in [ceil((rel - width + 1)/p), floor(rel/p)] for p > 0 (swapped for p < 0).
                let (lo, hi) = if p > 0 {
                    (num_integer_div_ceil(rel - width as i128 + 1, p), rel.div_euclid(p))
                } else {
                    (num_integer_div_ceil(-rel, -p), (-(rel - width as i128 + 1)).div_euclid(-p))
                };
                lo.max(0) <= hi.min(rows as i128 - 1)
            }
        };
        let ans = overlap(&a, &b, &Assumptions::new());
        prop_assert!(!ans.undecided, "{ans:?}");
        prop_assert_eq!(ans.verdict != Verdict::NoAlias, truth, "{:?}", ans);
        if truth {
            prop_assert_eq!(ans.verdict, Verdict::MustAlias);
            let w = ans.witness.clone().unwrap_or_else(|| panic!("no witness"));
            let at = off as i128 + w.a[0] as i128 * pitch as i128 + w.a[1] as i128;
            prop_assert!(w.a[0] >= 0 && w.a[0] < rows && w.a[1] >= 0 && w.a[1] < width, "{ans:?}");
            prop_assert_eq!(at, x, "{:?}", ans);
            prop_assert_eq!(i128::from(w.element), x);
        }
    }

    #[test]
    fn big_rows_internal_overlap(
        rows in 0i64..=1_000_000, pitch in -1_000_000_000_000i64..=1_000_000_000_000,
        width in 0i64..=1_000_000,
    ) {
        let a = View::strided(RootId(0), 4, 7, &[rows, width], &[pitch, 1]);
        let truth = rows >= 2 && width >= 1 && (pitch == 0 || (width > 1 && pitch.unsigned_abs() < width as u64));
        let ans = internal_overlap(&a, &Assumptions::new());
        prop_assert!(!ans.undecided, "{ans:?}");
        prop_assert_eq!(ans.verdict != Verdict::NoAlias, truth, "{:?}", ans);
        if let Some(w) = &ans.witness {
            let at = |t: &[i64]| 7i128 + t[0] as i128 * pitch as i128 + t[1] as i128;
            prop_assert!(w.a != w.b && at(&w.a) == at(&w.b), "{ans:?}");
            prop_assert!(w.a.iter().chain(&w.b).zip([rows, width, rows, width]).all(|(x, l)| 0 <= *x && *x < l), "{ans:?}");
        }
    }

    #[test]
    fn big_chunks_across_iterations(
        step in -1_000_000_000_000i64..=1_000_000_000_000, width in 1i64..=1_000_000,
        count in 0i64..=1_000_000, first in -1000i64..=1000,
    ) {
        let v = View::strided(RootId(0), 8, 0, &[width], &[1]).offset_by(&Expr::sym("i") * step);
        let truth = count >= 2 && (step.unsigned_abs() as i128) < width as i128;
        let ans = iterations_overlap(&v, "i", (Expr::int(first), Expr::int(first + count)), &Assumptions::new());
        prop_assert_eq!(ans.verdict != Verdict::NoAlias, truth, "{:?}", ans);
        if truth {
            prop_assert_eq!(ans.verdict, Verdict::MustAlias);
        }
    }
}

fn num_integer_div_ceil(a: i128, b: i128) -> i128 {
    -((-a).div_euclid(b))
}

// ---------------------------------------------------------------------------------------
// same_map against brute force

fn truth_same_map(a: &View, b: &View, env: &Env) -> Option<bool> {
    if a.ndim() != b.ndim() || a.elem_bytes != b.elem_bytes {
        return Some(false);
    }
    for (x, y) in a.dims.iter().zip(&b.dims) {
        if ev(&x.len, env)?.max(0) != ev(&y.len, env)?.max(0) {
            // Two empty axes of different negative lengths are the same (empty) map.
            return Some(false);
        }
    }
    let (ea, eb) = (elements(a, env)?, elements(b, env)?);
    Some(ea.iter().zip(&eb).all(|((_, x), (_, y))| x == y))
}

proptest! {
    #![proptest_config(cfg(300))]

    #[test]
    fn same_map_agrees_with_brute_force(
        a in wide_view(&[1]),
        edits in proptest::collection::vec((0usize..3, stride_expr()), 0..=2),
        offset in proptest::option::of(small_expr()),
        asm in loose_assumptions(),
    ) {
        let mut b = a.clone();
        for (k, s) in edits {
            if let Some(d) = b.dims.get_mut(k) {
                d.stride = s;
            }
        }
        if let Some(o) = offset {
            b.offset = o;
        }
        if same_map(&a, &b, &asm) {
            for e in allowed(&asm, SYMS, -2, 5) {
                prop_assert!(truth_same_map(&a, &b, &e) != Some(false), "same_map claimed but differ at {e:?}: {a:?} / {b:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// assorted symbolic corners (regression tests: the oracle answers these correctly)

#[test]
fn strides_that_assumptions_pin_to_zero() {
    let asm = asm_of(vec![(n(), Cmp::Eq, Expr::int(0))]);
    let v = view(
        4,
        Expr::int(3),
        vec![(Expr::int(2), n()), (Expr::int(2), Expr::int(1))],
    );
    ok(check_internal(&v, &asm, &["n"]));
    assert_eq!(internal_overlap(&v, &asm).verdict, Verdict::MustAlias);
    let w = view(4, Expr::int(4), vec![(Expr::int(3), n())]);
    ok(check_overlap(&v, &w, &asm, &["n"]));
    assert_eq!(overlap(&v, &w, &asm).verdict, Verdict::MustAlias);
}

#[test]
fn rows_moving_by_a_symbolic_pitch_in_either_direction() {
    let i = Expr::sym("i");
    for sign in [1i64, -1] {
        let row = view(4, &(&i * &n()) * sign, vec![(n(), Expr::int(1))]);
        ok(check_iterations(
            &row,
            "i",
            (Expr::int(0), m()),
            None,
            &Assumptions::new(),
            &["n", "m"],
        ));
        let asm = asm_of(vec![ge(n(), 1)]);
        let ans = iterations_overlap(&row, "i", (Expr::int(0), m()), &asm);
        assert_eq!(ans.verdict, Verdict::NoAlias, "{ans:?}");
        // One element wider than the pitch: neighbours overlap whenever there are two.
        let wide = view(4, &(&i * &n()) * sign, vec![(&n() + 1, Expr::int(1))]);
        ok(check_iterations(
            &wide,
            "i",
            (Expr::int(0), m()),
            None,
            &asm,
            &["n", "m"],
        ));
        let asm2 = asm_of(vec![ge(n(), 1), ge(m(), 2)]);
        ok(check_iterations(
            &wide,
            "i",
            (Expr::int(0), m()),
            None,
            &asm2,
            &["n", "m"],
        ));
    }
}

#[test]
fn floor_division_strides_and_max_offsets() {
    let a = view(
        1,
        n().maximum(&Expr::int(0)),
        vec![(Expr::int(3), n().div_floor(2))],
    );
    let b = view(1, Expr::int(2), vec![(m(), Expr::int(1))]);
    ok(check_overlap(&a, &b, &Assumptions::new(), &["n", "m"]));
    ok(check_overlap(
        &a,
        &b,
        &asm_of(vec![ge(n(), 2), ge(m(), 1)]),
        &["n", "m"],
    ));
    ok(check_internal(&a, &asm_of(vec![ge(n(), -2)]), &["n"]));
    // Remainder strides: (n % 3) may be zero.
    let c = view(
        1,
        Expr::int(0),
        vec![(Expr::int(3), n().rem(3)), (Expr::int(2), Expr::int(1))],
    );
    ok(check_internal(&c, &Assumptions::new(), &["n"]));
    ok(check_internal(&c, &asm_of(vec![ge(n(), 1)]), &["n"]));
}

#[test]
fn chunks_of_a_symbolic_vector_with_a_short_last_chunk() {
    // chunks_mut(c) of an n-vector: iteration i writes [i*c, min((i+1)*c, n)).
    let v = View::contiguous(RootId(0), 4, vec![n()]);
    let c = Expr::sym("c");
    let Some(chunk) = v.chunk(0, Expr::sym("i"), c.clone()) else {
        panic!("no chunk");
    };
    let count = (&(&n() + &c) - 1).div_floor(c.clone());
    let asm = asm_of(vec![ge(c.clone(), 1), ge(n(), 0)]);
    ok(check_iterations(
        &chunk,
        "i",
        (Expr::int(0), count.clone()),
        None,
        &asm,
        &["n", "c"],
    ));
    let ans = iterations_overlap(&chunk, "i", (Expr::int(0), count.clone()), &asm);
    assert_eq!(ans.verdict, Verdict::NoAlias, "{ans:?}");
    // Cache lines: 4-byte elements in chunks of c < 16 share lines for some sizes.
    ok(check_iterations(
        &chunk,
        "i",
        (Expr::int(0), count),
        Some(16),
        &asm,
        &["n", "c"],
    ));
}

// ---------------------------------------------------------------------------------------
// extreme concrete values: no panics, and the concrete answers stay exact

fn extreme() -> impl Strategy<Value = i64> {
    proptest::sample::select(
        &[
            i64::MIN,
            i64::MIN + 1,
            -(1i64 << 62),
            -1_000_000_000_000,
            -1,
            0,
            1,
            2,
            1_000_000,
            1_000_000_000_000,
            1i64 << 62,
            i64::MAX - 1,
            i64::MAX,
        ][..],
    )
}

fn extreme_view() -> impl Strategy<Value = View> {
    (
        proptest::sample::select(&[1u32, 8, u32::MAX][..]),
        extreme(),
        proptest::collection::vec(
            (
                prop_oneof![extreme(), 0i64..=3],
                prop_oneof![extreme(), -3i64..=3],
            ),
            1..=3,
        ),
    )
        .prop_map(|(e, off, d)| {
            let (shape, strides): (Vec<i64>, Vec<i64>) =
                d.into_iter().map(|(l, s)| (l.max(0), s)).unzip();
            View::strided(RootId(0), e, off, &shape, &strides)
        })
}

proptest! {
    #![proptest_config(cfg(40))]

    #[test]
    fn extreme_concrete_views_never_panic(a in extreme_view(), b in extreme_view(), step in extreme()) {
        let asm = Assumptions::new();
        let r = std::panic::catch_unwind(|| {
            let _ = overlap(&a, &b, &asm);
            let _ = internal_overlap(&a, &asm);
            let _ = share_cache_line(&a, &b, 64, &asm);
            let _ = same_map(&a, &b, &asm);
            let v = a.offset_by(&Expr::sym("i") * step);
            let _ = iterations_overlap(&v, "i", (Expr::int(0), Expr::int(i64::MAX)), &asm);
            let _ = iterations_share_cache_line(&v, "i", (Expr::int(i64::MIN), Expr::int(i64::MAX)), 64, &asm);
        });
        prop_assert!(r.is_ok(), "panicked on {a:?} / {b:?} / step {step}");
    }
}
