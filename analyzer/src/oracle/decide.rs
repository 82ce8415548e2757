//! The oracle's questions (overlap, internal overlap, same map, shared cache lines and
//! their parallel-iteration forms) and the order in which paths try to decide them:
//! exact fast paths first, the solver last.

use std::collections::{BTreeMap, BTreeSet};

use super::assume::{nonnegative_sides, Assumptions, Cmp, Fact};
use super::diophantine::{self, Solve, Term};
use super::expr::{gcd_u128, Atom, Expr, OpKind};
use super::smt::{self, ExVar, Outcome, Problem};
use super::stats::{self, DecidedBy};
use super::view::View;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// No allowed symbol values let the memory meet.
    NoAlias,
    /// Some allowed symbol values do (or the solver gave up, see [`Answer::undecided`]).
    MayAlias,
    /// Every allowed symbol value does.
    MustAlias,
}

/// Index tuples of both sides that reach one address. For overlap questions `a` and `b`
/// index the two views; for internal overlap they are the two distinct tuples of the one
/// view; for parallel iterations they index the view at the two iterations named in
/// `symbols` (`i` and `i'`). `element` is the address of `a`'s element in units of
/// `a`'s element size, under the symbol values `symbols` (saturated to `i64`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Witness {
    pub a: Vec<i64>,
    pub b: Vec<i64>,
    pub element: i64,
    pub symbols: Vec<(String, i64)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub verdict: Verdict,
    pub decided_by: DecidedBy,
    /// The solver gave up within its time limit; the verdict is then `MayAlias` and
    /// diagnostics must say "undecided".
    pub undecided: bool,
    /// Present whenever the verdict is not `NoAlias` (unless undecided).
    pub witness: Option<Witness>,
}

impl Answer {
    fn no(by: DecidedBy) -> Answer {
        Answer {
            verdict: Verdict::NoAlias,
            decided_by: by,
            undecided: false,
            witness: None,
        }
    }

    fn found(verdict: Verdict, by: DecidedBy, witness: Witness) -> Answer {
        Answer {
            verdict,
            decided_by: by,
            undecided: false,
            witness: Some(witness),
        }
    }

    fn undecided() -> Answer {
        Answer {
            verdict: Verdict::MayAlias,
            decided_by: DecidedBy::Z3,
            undecided: true,
            witness: None,
        }
    }

    /// Whether the memory can meet at all (anything but `NoAlias`).
    pub fn may_overlap(&self) -> bool {
        self.verdict != Verdict::NoAlias
    }
}

fn to_i64(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

fn recorded(ans: Answer) -> Answer {
    stats::record(ans.decided_by);
    ans
}

/// A view whose every quantity is a constant, in `i128`.
struct Concrete {
    elem: i128,
    offset: i128,
    /// (len, stride)
    dims: Vec<(i128, i128)>,
}

impl Concrete {
    /// The view with every symbol given its value in `env`.
    fn under(v: &View, env: &BTreeMap<String, i128>) -> Option<Concrete> {
        let at = |e: &Expr| e.eval(&|s: &str| env.get(s).copied());
        Some(Concrete {
            elem: i128::from(v.elem_bytes.max(1)),
            offset: at(&v.offset)?,
            dims: v
                .dims
                .iter()
                .map(|d| Some((at(&d.len)?, at(&d.stride)?)))
                .collect::<Option<_>>()?,
        })
    }

    fn of(v: &View) -> Option<Concrete> {
        Some(Concrete {
            elem: i128::from(v.elem_bytes.max(1)),
            offset: i128::from(v.offset.as_const()?),
            dims: v
                .dims
                .iter()
                .map(|d| {
                    Some((
                        i128::from(d.len.as_const()?),
                        i128::from(d.stride.as_const()?),
                    ))
                })
                .collect::<Option<_>>()?,
        })
    }

    fn is_empty(&self) -> bool {
        self.dims.iter().any(|&(l, _)| l <= 0)
    }

    /// Lowest and highest element address (non-empty views).
    fn span(&self) -> Option<(i128, i128)> {
        let (mut lo, mut hi) = (self.offset, self.offset);
        for &(l, s) in &self.dims {
            let reach = s.checked_mul(l - 1)?;
            if reach < 0 {
                lo = lo.checked_add(reach)?;
            } else {
                hi = hi.checked_add(reach)?;
            }
        }
        Some((lo, hi))
    }

    /// First and last byte touched (non-empty views).
    fn byte_span(&self) -> Option<(i128, i128)> {
        let (lo, hi) = self.span()?;
        Some((
            lo.checked_mul(self.elem)?,
            hi.checked_add(1)?.checked_mul(self.elem)? - 1,
        ))
    }

    fn address(&self, idx: &[i128]) -> i128 {
        self.dims
            .iter()
            .zip(idx)
            .fold(self.offset, |acc, (&(_, s), &x)| {
                acc.saturating_add(s.saturating_mul(x))
            })
    }
}

fn symbol_pairs(values: &BTreeMap<String, i128>) -> Vec<(String, i64)> {
    values
        .iter()
        .filter(|(k, _)| !k.starts_with('%'))
        .map(|(k, v)| (k.clone(), to_i64(*v)))
        .collect()
}

fn index_values(values: &BTreeMap<String, i128>, prefix: &str, n: usize) -> Vec<i64> {
    (0..n)
        .map(|k| to_i64(values.get(&format!("{prefix}{k}")).copied().unwrap_or(0)))
        .collect()
}

/// The solver's values with every symbol of `views` the model did not name set to 0.
///
/// A symbol that cancels out of the address equation (a shared base offset `k`) never
/// reaches the solver, so any value of it works; the witness must still name one, or
/// its element could not be computed.
fn completed(values: &BTreeMap<String, i128>, views: &[&View]) -> BTreeMap<String, i128> {
    let mut out = values.clone();
    for view in views {
        for symbol in view.symbols() {
            out.entry(symbol).or_insert(0);
        }
    }
    out
}

fn element_of(v: &View, idx: &[i64], values: &BTreeMap<String, i128>) -> i64 {
    let index: Vec<Expr> = idx.iter().map(|&x| Expr::int(x)).collect();
    let env = |s: &str| values.get(s).copied();
    to_i64(v.address(&index).eval(&env).unwrap_or(0))
}

/// Existential index variables `{prefix}k` ranging over the view's dimensions.
fn index_vars(v: &View, prefix: &str) -> (Vec<ExVar>, Vec<Expr>) {
    let vars: Vec<ExVar> = v
        .dims
        .iter()
        .enumerate()
        .map(|(k, d)| ExVar {
            name: format!("{prefix}{k}"),
            lo: Expr::int(0),
            hi: d.len.clone(),
        })
        .collect();
    let exprs = vars.iter().map(|x| Expr::sym(&x.name)).collect();
    (vars, exprs)
}

/// The element sizes of two views divided by their gcd: elements at `A` and `B` share a
/// byte iff `ea*A - eb*B` lies in `(-ea, eb)` (see [`overlap`]).
fn reduced_elems(a: &View, b: &View) -> (i64, i64) {
    let (ea, eb) = (
        u128::from(a.elem_bytes.max(1)),
        u128::from(b.elem_bytes.max(1)),
    );
    let g = gcd_u128(ea, eb).max(1);
    ((ea / g) as i64, (eb / g) as i64)
}

// ---------------------------------------------------------------------------------------
// overlap

/// Whether some element of `a` and some element of `b` share a byte.
///
/// Units: each view counts in its own element size (see [`View`]); with different
/// sizes the byte ranges `[ea*A, ea*A + ea)` and `[eb*B, eb*B + eb)` are compared.
pub fn overlap(a: &View, b: &View, asm: &Assumptions) -> Answer {
    recorded(overlap_unrecorded(a, b, asm))
}

fn overlap_unrecorded(a: &View, b: &View, asm: &Assumptions) -> Answer {
    if a.root != b.root {
        return Answer::no(DecidedBy::Root);
    }
    if a.is_trivially_empty() || b.is_trivially_empty() {
        return Answer::no(DecidedBy::Empty);
    }
    if let (Some(ca), Some(cb)) = (Concrete::of(a), Concrete::of(b)) {
        if let Some(ans) = concrete_overlap(&ca, &cb) {
            return ans;
        }
        return solver_overlap(a, b, &Assumptions::new());
    }
    if let Some(ans) = symbolic_fast_overlap(a, b, asm) {
        return ans;
    }
    if let Some(ans) = instances_disagree(&[a, b], asm, |c| concrete_overlap(&c[0], &c[1])) {
        return ans;
    }
    solver_overlap(a, b, asm)
}

/// Assignments of `syms` tried before the solver: every symbol one small value, then
/// values spread apart (growing or shrinking powers of two in name order), which gives
/// sizes and strides of different magnitudes. Only those the assumptions allow.
fn probe_assignments(syms: &BTreeSet<String>, asm: &Assumptions) -> Vec<BTreeMap<String, i128>> {
    let n = syms.len();
    let spread = |k: usize| 1i128 << k.min(12);
    let mut out = Vec::new();
    for pattern in 0..7 {
        let values: BTreeMap<String, i128> = syms
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let v = match pattern {
                    0 => 2,
                    1 => 3,
                    2 => 1,
                    3 => 4,
                    4 => spread(k),
                    5 => spread(n - 1 - k),
                    _ => 2 + (k as i128 % 2),
                };
                (s.clone(), v)
            })
            .collect();
        if asm.hold(&|s: &str| values.get(s).copied()) == Some(true) {
            out.push(values);
        }
    }
    out
}

/// "May alias", decided without the solver: one allowed assignment of the symbols under
/// which the views overlap (its witness is the answer's) and one under which they do
/// not. `concrete` decides the views made concrete; `None` when the instances agree
/// (the answer may then be "no" or "must", which only the solver can tell).
fn instances_disagree(
    views: &[&View],
    asm: &Assumptions,
    concrete: impl Fn(&[Concrete]) -> Option<Answer>,
) -> Option<Answer> {
    let mut syms = asm.symbols();
    for v in views {
        syms.extend(v.symbols());
    }
    let mut overlapping: Option<(Answer, BTreeMap<String, i128>)> = None;
    let mut disjoint = false;
    for values in probe_assignments(&syms, asm) {
        let instance: Vec<Concrete> = views
            .iter()
            .map(|v| Concrete::under(v, &values))
            .collect::<Option<_>>()?;
        let answer = concrete(&instance)?;
        match answer.verdict {
            Verdict::NoAlias => disjoint = true,
            _ if answer.witness.is_some() && overlapping.is_none() => {
                overlapping = Some((answer, values));
            }
            _ => {}
        }
        if disjoint && overlapping.is_some() {
            break;
        }
    }
    let (answer, values) = overlapping.filter(|_| disjoint)?;
    let mut witness = answer.witness?;
    witness.symbols = symbol_pairs(&values);
    Some(Answer::found(
        Verdict::MayAlias,
        DecidedBy::Instances,
        witness,
    ))
}

/// Exact decision for concrete views, `None` only when the Diophantine search gives up
/// (its budget or `i128` ran out).
fn concrete_overlap(a: &Concrete, b: &Concrete) -> Option<Answer> {
    if a.is_empty() || b.is_empty() {
        return Some(Answer::no(DecidedBy::Empty));
    }
    let ((alo, ahi), (blo, bhi)) = (a.byte_span()?, b.byte_span()?);
    if ahi < blo || bhi < alo {
        return Some(Answer::no(DecidedBy::Interval));
    }
    if a.elem == b.elem && a.offset == b.offset && a.dims == b.dims {
        let zeros = vec![0i64; a.dims.len()];
        return Some(Answer::found(
            Verdict::MustAlias,
            DecidedBy::SameMap,
            Witness {
                a: zeros.clone(),
                b: zeros,
                element: to_i64(a.offset),
                symbols: Vec::new(),
            },
        ));
    }
    let g = gcd_u128(a.elem as u128, b.elem as u128).max(1) as i128;
    let (ea, eb) = (a.elem / g, b.elem / g);
    let mut terms: Vec<Term> = Vec::with_capacity(a.dims.len() + b.dims.len() + 1);
    for &(l, s) in &a.dims {
        terms.push(Term {
            coef: s.checked_mul(ea)?,
            lo: 0,
            hi: l - 1,
        });
    }
    for &(l, s) in &b.dims {
        terms.push(Term {
            coef: s.checked_mul(eb)?.checked_neg()?,
            lo: 0,
            hi: l - 1,
        });
    }
    if ea > 1 || eb > 1 {
        terms.push(Term {
            coef: -1,
            lo: -(ea - 1),
            hi: eb - 1,
        });
    }
    let target = eb
        .checked_mul(b.offset)?
        .checked_sub(ea.checked_mul(a.offset)?)?;
    // The gcd test on the equation shifted to start every unknown at zero.
    let mut shifted = target;
    let mut g_all: u128 = 0;
    for t in &terms {
        shifted = shifted.checked_sub(t.coef.checked_mul(t.lo)?)?;
        if t.lo < t.hi {
            g_all = gcd_u128(g_all, t.coef.unsigned_abs());
        }
    }
    if g_all > 1 && shifted.rem_euclid(g_all as i128) != 0 {
        return Some(Answer::no(DecidedBy::Gcd));
    }
    match diophantine::solve(&terms, target, diophantine::DEFAULT_BUDGET) {
        Solve::Found(v) => {
            let xa: Vec<i128> = v[..a.dims.len()].to_vec();
            let xb: Vec<i128> = v[a.dims.len()..a.dims.len() + b.dims.len()].to_vec();
            Some(Answer::found(
                Verdict::MustAlias,
                DecidedBy::Diophantine,
                Witness {
                    element: to_i64(a.address(&xa)),
                    a: xa.into_iter().map(to_i64).collect(),
                    b: xb.into_iter().map(to_i64).collect(),
                    symbols: Vec::new(),
                },
            ))
        }
        Solve::NoSolution => Some(Answer::no(DecidedBy::Diophantine)),
        Solve::GaveUp => None,
    }
}

/// `(lowest, highest)` element address relative to the offset, when every stride has a
/// provable sign; lengths are taken as at least 1 (an empty view overlaps nothing, so
/// conclusions drawn from these bounds stay sound).
fn relative_span(v: &View, asm: &Assumptions) -> Option<(Expr, Expr)> {
    let (mut lo, mut hi) = (Expr::int(0), Expr::int(0));
    for d in &v.dims {
        let reach = &d.stride * &(&d.len - 1);
        if asm.proves_at_least(&d.stride, 0) {
            hi = &hi + &reach;
        } else if asm.proves_at_least(&-&d.stride, 0) {
            lo = &lo + &reach;
        } else {
            return None;
        }
    }
    Some((lo, hi))
}

fn symbolic_fast_overlap(a: &View, b: &View, asm: &Assumptions) -> Option<Answer> {
    let (ea, eb) = reduced_elems(a, b);
    // Interval, in units of gcd(elem sizes): a covers [ea*lo_a, ea*(hi_a+1) - 1].
    if let (Some((alo, ahi)), Some((blo, bhi))) = (relative_span(a, asm), relative_span(b, asm)) {
        let a_first = &(&a.offset + &alo) * ea;
        let a_last = &(&(&a.offset + &ahi) + 1) * ea - 1;
        let b_first = &(&b.offset + &blo) * eb;
        let b_last = &(&(&b.offset + &bhi) + 1) * eb - 1;
        if asm.proves_at_least(&(&b_first - &a_last), 1)
            || asm.proves_at_least(&(&a_first - &b_last), 1)
        {
            return Some(Answer::no(DecidedBy::Interval));
        }
    }
    if a.elem_bytes == b.elem_bytes
        && a.offset == b.offset
        && a.dims == b.dims
        && a.dims.iter().all(|d| asm.proves_at_least(&d.len, 1))
    {
        let mut syms = a.symbols();
        syms.extend(asm.symbols());
        if let Some(values) = assignment(asm, &syms, &[]) {
            let zeros = vec![0i64; a.dims.len()];
            return Some(Answer::found(
                Verdict::MustAlias,
                DecidedBy::SameMap,
                Witness {
                    element: element_of(a, &zeros, &values),
                    a: zeros.clone(),
                    b: zeros,
                    symbols: symbol_pairs(&values),
                },
            ));
        }
    }
    // Gcd: every stride value is a multiple of the gcd of all stride coefficients, so
    // the offset difference must be one too.
    if ea == 1 && eb == 1 {
        let g = a
            .dims
            .iter()
            .chain(&b.dims)
            .filter(|d| d.len.as_const() != Some(1))
            .fold(0u128, |g, d| gcd_u128(g, d.stride.content()));
        let diff = &b.offset - &a.offset;
        if g > 1
            && diff.non_constant_content() % g == 0
            && (diff.constant_term() as i128).rem_euclid(g as i128) != 0
        {
            return Some(Answer::no(DecidedBy::Gcd));
        }
    }
    if remainder_below_pitch(a, b, asm) {
        return Some(Answer::no(DecidedBy::Gcd));
    }
    None
}

/// Elements at `q*p + r` and `q'*p + r'` with a symbolic pitch `p` (`row * cols + col`):
/// they meet only when `(q - q')*p + (r - r') == 0`, so `r - r'` is a multiple of `p`.
/// When the facts bound `r - r'` strictly between `-p` and `p` and rule out `r == r'`
/// (`col != col'`), it cannot be one: the elements differ, whatever the sizes. The
/// solver often gives up on such products of unknowns.
fn remainder_below_pitch(a: &View, b: &View, asm: &Assumptions) -> bool {
    if a.elem_bytes != b.elem_bytes {
        return false;
    }
    let (mut vars, xa) = index_vars(a, "%a");
    let (vars_b, xb) = index_vars(b, "%b");
    vars.extend(vars_b);
    pitch_separates(&(&a.address(&xa) - &b.address(&xb)), &within(asm, &vars))
}

/// `asm` with the bounds of the existential variables `vars` as facts.
fn within(asm: &Assumptions, vars: &[ExVar]) -> Assumptions {
    let mut out = asm.clone();
    for f in smt::bounds(vars) {
        out.push_fact(f);
    }
    out
}

/// Whether `diff == 0` is impossible because `diff` is `q*p + r` with `0 < |r| < p`
/// (see [`remainder_below_pitch`]).
fn pitch_separates(diff: &Expr, asm: &Assumptions) -> bool {
    diff.symbols().iter().any(|p| {
        let Some(q) = diff.affine_coefficient(p) else {
            return false;
        };
        let r = diff.subst(p, &Expr::int(0));
        let pitch = Expr::sym(p);
        !q.is_const()
            && !r.mentions(p)
            && nonzero(&r, asm)
            && bounds(&r, asm, p).is_some_and(|(lo, hi)| {
                asm.proves_at_least(&(&pitch - &hi), 1) && asm.proves_at_least(&(&lo + &pitch), 1)
            })
    })
}

/// Whether the facts say `e != 0`: a fact `x != y` with `x - y` equal to `e` or `-e`.
fn nonzero(e: &Expr, asm: &Assumptions) -> bool {
    asm.facts().iter().any(|f| match f {
        Fact::Cmp(l, Cmp::Ne, r) => {
            let d = l - r;
            d == *e || d == -e
        }
        _ => false,
    })
}

/// Bounds `lo <= e <= hi` of a sum of symbols with constant coefficients, each symbol
/// bounded by one fact on each side (`0 <= col`, `col < cols`); where a symbol has
/// several, the one that mentions `prefer` (the pitch) is taken.
fn bounds(e: &Expr, asm: &Assumptions, prefer: &str) -> Option<(Expr, Expr)> {
    let (mut lo, mut hi) = (Expr::int(e.constant_term()), Expr::int(e.constant_term()));
    for (monomial, coef) in e.terms() {
        let [(Atom::Sym(s), 1)] = monomial else {
            if monomial.is_empty() {
                continue;
            }
            return None;
        };
        let (s_lo, s_hi) = symbol_bounds(s.as_str(), asm, prefer)?;
        let (low, high) = if coef > 0 { (s_lo, s_hi) } else { (s_hi, s_lo) };
        lo = &lo + &(&low * coef);
        hi = &hi + &(&high * coef);
    }
    Some((lo, hi))
}

/// The inclusive bounds of symbol `s` that facts `s >= lo` and `s < hi` (in any of
/// their spellings) state.
fn symbol_bounds(s: &str, asm: &Assumptions, prefer: &str) -> Option<(Expr, Expr)> {
    let x = Expr::sym(s);
    let mut lows = Vec::new();
    let mut highs = Vec::new();
    // Each fact as `p >= 0`: `p = x - lo` bounds `x` below, `p = hi - x` above.
    for p in asm.facts().iter().flat_map(nonnegative_sides) {
        match p.affine_coefficient(s).and_then(|c| c.as_const()) {
            Some(1) => lows.push(&x - &p),
            Some(-1) => highs.push(&p + &x),
            _ => {}
        }
    }
    let pick = |v: Vec<Expr>| {
        v.iter()
            .find(|e| e.mentions(prefer))
            .or_else(|| v.first())
            .cloned()
    };
    Some((pick(lows)?, pick(highs)?))
}

fn overlap_problem<'a>(a: &View, b: &View, asm: &'a Assumptions) -> Problem<'a> {
    let (ea, eb) = reduced_elems(a, b);
    let (mut vars, xa) = index_vars(a, "%a");
    let (vb, xb) = index_vars(b, "%b");
    vars.extend(vb);
    let mut equation = &(&a.address(&xa) * ea) - &(&b.address(&xb) * eb);
    if ea > 1 || eb > 1 {
        vars.push(ExVar {
            name: "%d".into(),
            lo: Expr::int(1 - ea),
            hi: Expr::int(eb),
        });
        equation = &equation - &Expr::sym("%d");
    }
    Problem {
        asm,
        vars,
        goal: vec![Fact::Cmp(equation.clone(), Cmp::Eq, Expr::int(0))],
        equation: Some(equation),
    }
}

fn solver_overlap(a: &View, b: &View, asm: &Assumptions) -> Answer {
    let problem = overlap_problem(a, b, asm);
    solver_answer(&problem, |values| {
        let values = &completed(values, &[a, b]);
        let xa = index_values(values, "%a", a.ndim());
        let xb = index_values(values, "%b", b.ndim());
        Witness {
            element: element_of(a, &xa, values),
            a: xa,
            b: xb,
            symbols: symbol_pairs(values),
        }
    })
}

fn solver_answer(
    problem: &Problem<'_>,
    witness: impl Fn(&BTreeMap<String, i128>) -> Witness,
) -> Answer {
    match smt::decide(problem) {
        Outcome::Unsat => Answer::no(DecidedBy::Z3),
        Outcome::Unknown => Answer::undecided(),
        Outcome::Sat { values, must } => Answer::found(
            if must {
                Verdict::MustAlias
            } else {
                Verdict::MayAlias
            },
            DecidedBy::Z3,
            witness(&values),
        ),
    }
}

/// Symbol values satisfying the assumptions and `extra`: small uniform values first,
/// the solver only when none fits.
fn assignment(
    asm: &Assumptions,
    syms: &BTreeSet<String>,
    extra: &[Fact],
) -> Option<BTreeMap<String, i128>> {
    for v in [1i128, 2, 3, 4, 8, 16, 32, 64, 128, 256, 1024] {
        let env = |_: &str| Some(v);
        let ok = asm.hold(&env) == Some(true) && extra.iter().all(|f| f.eval(&env) == Some(true));
        if ok {
            return Some(syms.iter().map(|s| (s.clone(), v)).collect());
        }
    }
    let mut facts: Vec<Fact> = extra.to_vec();
    // Mention every symbol so the model assigns each one.
    facts.extend(
        syms.iter()
            .map(|s| Fact::Cmp(Expr::sym(s), Cmp::Eq, Expr::sym(s))),
    );
    smt::model_of(asm, &facts)
}

// ---------------------------------------------------------------------------------------
// internal overlap

/// Whether two distinct index tuples of `v` reach the same element.
pub fn internal_overlap(v: &View, asm: &Assumptions) -> Answer {
    recorded(internal_unrecorded(v, asm))
}

fn internal_unrecorded(v: &View, asm: &Assumptions) -> Answer {
    if v.is_trivially_empty()
        || v.dims
            .iter()
            .all(|d| d.len.as_const().is_some_and(|l| l <= 1))
    {
        return Answer::no(DecidedBy::Empty);
    }
    if let Some(c) = Concrete::of(v) {
        if let Some(ans) = concrete_internal(&c) {
            return ans;
        }
        return solver_internal(v, &Assumptions::new());
    }
    if let Some(ans) = symbolic_fast_internal(v, asm) {
        return ans;
    }
    if let Some(ans) = instances_disagree(&[v], asm, |c| concrete_internal(&c[0])) {
        return ans;
    }
    solver_internal(v, asm)
}

fn broadcast_witness(
    ndim: usize,
    axis: usize,
    element: i64,
    symbols: Vec<(String, i64)>,
) -> Answer {
    let a = vec![0i64; ndim];
    let mut b = a.clone();
    b[axis] = 1;
    Answer::found(
        Verdict::MustAlias,
        DecidedBy::Broadcast,
        Witness {
            a,
            b,
            element,
            symbols,
        },
    )
}

fn concrete_internal(v: &Concrete) -> Option<Answer> {
    if v.is_empty() {
        return Some(Answer::no(DecidedBy::Empty));
    }
    let live: Vec<usize> = (0..v.dims.len()).filter(|&k| v.dims[k].0 >= 2).collect();
    if live.is_empty() {
        return Some(Answer::no(DecidedBy::Empty));
    }
    if let Some(&k) = live.iter().find(|&&k| v.dims[k].1 == 0) {
        return Some(broadcast_witness(
            v.dims.len(),
            k,
            to_i64(v.offset),
            Vec::new(),
        ));
    }
    // Strides sorted by magnitude, each beyond the reach of all smaller ones: distinct
    // tuples then always differ in address.
    let mut sorted: Vec<(i128, i128)> = live
        .iter()
        .map(|&k| (v.dims[k].0, v.dims[k].1.checked_abs()))
        .map(|(l, s)| (l, s.unwrap_or(i128::MAX)))
        .collect();
    sorted.sort_by_key(|&(_, s)| s);
    let mut reach: i128 = 0;
    let mut nested = true;
    for &(l, s) in &sorted {
        if s <= reach {
            nested = false;
            break;
        }
        reach = reach.checked_add(s.checked_mul(l - 1)?)?;
    }
    if nested {
        return Some(Answer::no(DecidedBy::Nested));
    }
    // Otherwise: differences δ = x - x' with the first non-zero one positive.
    for (pos, &k) in live.iter().enumerate() {
        let mut terms = vec![Term {
            coef: v.dims[k].1,
            lo: 1,
            hi: v.dims[k].0 - 1,
        }];
        for &j in &live[pos + 1..] {
            terms.push(Term {
                coef: v.dims[j].1,
                lo: -(v.dims[j].0 - 1),
                hi: v.dims[j].0 - 1,
            });
        }
        match diophantine::solve(&terms, 0, diophantine::DEFAULT_BUDGET) {
            Solve::Found(delta) => {
                let mut xa = vec![0i128; v.dims.len()];
                let mut xb = vec![0i128; v.dims.len()];
                for (&j, &d) in live[pos..].iter().zip(&delta) {
                    xa[j] = d.max(0);
                    xb[j] = xa[j] - d;
                }
                return Some(Answer::found(
                    Verdict::MustAlias,
                    DecidedBy::Diophantine,
                    Witness {
                        element: to_i64(v.address(&xa)),
                        a: xa.into_iter().map(to_i64).collect(),
                        b: xb.into_iter().map(to_i64).collect(),
                        symbols: Vec::new(),
                    },
                ));
            }
            Solve::NoSolution => {}
            Solve::GaveUp => return None,
        }
    }
    Some(Answer::no(DecidedBy::Diophantine))
}

fn symbolic_fast_internal(v: &View, asm: &Assumptions) -> Option<Answer> {
    for (k, d) in v.dims.iter().enumerate() {
        if d.stride.as_const() == Some(0)
            && v.dims
                .iter()
                .enumerate()
                .all(|(j, o)| asm.proves_at_least(&o.len, if j == k { 2 } else { 1 }))
        {
            let mut syms = v.symbols();
            syms.extend(asm.symbols());
            let values = assignment(asm, &syms, &[])?;
            let zeros = vec![0i64; v.ndim()];
            let element = element_of(v, &zeros, &values);
            return Some(broadcast_witness(
                v.ndim(),
                k,
                element,
                symbol_pairs(&values),
            ));
        }
    }
    // Nested strides in the given order or reversed (row-major views nest last-first).
    let magnitudes: Option<Vec<Expr>> = v
        .dims
        .iter()
        .map(|d| {
            if asm.proves_at_least(&d.stride, 0) {
                Some(d.stride.clone())
            } else if asm.proves_at_least(&-&d.stride, 0) {
                Some(-&d.stride)
            } else {
                None
            }
        })
        .collect();
    let magnitudes = magnitudes?;
    let nested_in = |order: &mut dyn Iterator<Item = usize>| {
        let mut reach = Expr::int(0);
        for k in order {
            if v.dims[k].len.as_const() == Some(1) {
                continue;
            }
            if !asm.proves_at_least(&(&magnitudes[k] - &reach), 1) {
                return false;
            }
            reach = &reach + &(&magnitudes[k] * &(&v.dims[k].len - 1));
        }
        true
    };
    if nested_in(&mut (0..v.ndim()).rev()) || nested_in(&mut (0..v.ndim())) {
        return Some(Answer::no(DecidedBy::Nested));
    }
    None
}

fn solver_internal(v: &View, asm: &Assumptions) -> Answer {
    let (mut vars, xa) = index_vars(v, "%a");
    let (vb, xb) = index_vars(v, "%b");
    vars.extend(vb);
    let equation = &v.address(&xa) - &v.address(&xb);
    let distinct = Fact::Or(
        xa.iter()
            .zip(&xb)
            .map(|(x, y)| Fact::Cmp(x.clone(), Cmp::Ne, y.clone()))
            .collect(),
    );
    let problem = Problem {
        asm,
        vars,
        goal: vec![Fact::Cmp(equation.clone(), Cmp::Eq, Expr::int(0)), distinct],
        equation: Some(equation),
    };
    solver_answer(&problem, |values| {
        let values = &completed(values, &[v]);
        let a = index_values(values, "%a", v.ndim());
        let b = index_values(values, "%b", v.ndim());
        Witness {
            element: element_of(v, &a, values),
            a,
            b,
            symbols: symbol_pairs(values),
        }
    })
}

// ---------------------------------------------------------------------------------------
// same map

/// Whether `a` and `b` map every index tuple to the same element (same root, element
/// size and shape; equal offsets and equal strides wherever an axis has more than one
/// index), for every allowed symbol value. This is what makes an element-wise in-place
/// operation from `b` into `a` safe.
pub fn same_map(a: &View, b: &View, asm: &Assumptions) -> bool {
    if a.root != b.root || a.elem_bytes != b.elem_bytes || a.ndim() != b.ndim() {
        return false;
    }
    let structural = a.offset == b.offset
        && a.dims.iter().zip(&b.dims).all(|(x, y)| {
            x.len == y.len && (x.stride == y.stride || x.len.as_const().is_some_and(|l| l <= 1))
        });
    if structural {
        return true;
    }
    if a.is_concrete() && b.is_concrete() {
        return false;
    }
    let mut equal = vec![Fact::Cmp(a.offset.clone(), Cmp::Eq, b.offset.clone())];
    for (x, y) in a.dims.iter().zip(&b.dims) {
        equal.push(Fact::Cmp(x.len.clone(), Cmp::Eq, y.len.clone()));
        equal.push(Fact::Or(vec![
            Fact::Cmp(x.len.clone(), Cmp::Le, Expr::int(1)),
            Fact::Cmp(x.stride.clone(), Cmp::Eq, y.stride.clone()),
        ]));
    }
    let differ = Fact::Or(
        equal
            .into_iter()
            .map(|f| match f {
                Fact::Cmp(l, Cmp::Eq, r) => Fact::Cmp(l, Cmp::Ne, r),
                Fact::Or(parts) => Fact::And(
                    parts
                        .into_iter()
                        .map(|p| match p {
                            Fact::Cmp(l, Cmp::Le, r) => Fact::Cmp(l, Cmp::Gt, r),
                            Fact::Cmp(l, Cmp::Eq, r) => Fact::Cmp(l, Cmp::Ne, r),
                            other => other,
                        })
                        .collect(),
                ),
                other => other,
            })
            .collect(),
    );
    let problem = Problem {
        asm,
        vars: Vec::new(),
        goal: vec![differ],
        equation: None,
    };
    matches!(smt::decide(&problem), Outcome::Unsat)
}

// ---------------------------------------------------------------------------------------
// cache lines

/// Bytes `[first, last]` of an element, as expressions.
fn element_bytes(v: &View, index: &[Expr]) -> (Expr, Expr) {
    let e = i64::from(v.elem_bytes.max(1));
    let first = &v.address(index) * e;
    let last = &first + (e - 1);
    (first, last)
}

/// Two elements with disjoint bytes in one cache line: the nearer ends are in the same
/// line (lines are intervals, so any shared line contains both nearer ends).
fn same_line_goal(a: (Expr, Expr), b: (Expr, Expr), line: i64) -> Fact {
    let side = |lo: &(Expr, Expr), hi: &(Expr, Expr)| {
        Fact::And(vec![
            Fact::Cmp(&lo.1 + 1, Cmp::Le, hi.0.clone()),
            Fact::Cmp(lo.1.div_floor(line), Cmp::Eq, hi.0.div_floor(line)),
        ])
    };
    Fact::Or(vec![side(&a, &b), side(&b, &a)])
}

/// Whether an element of `a` and an element of `b` with disjoint bytes lie in one
/// `line_bytes`-byte cache line (lines start at multiples of `line_bytes` from the root;
/// roots are taken as line-aligned, which allocators of tensor memory guarantee).
pub fn share_cache_line(a: &View, b: &View, line_bytes: u32, asm: &Assumptions) -> Answer {
    recorded(share_line_unrecorded(a, b, line_bytes, asm))
}

fn share_line_unrecorded(a: &View, b: &View, line_bytes: u32, asm: &Assumptions) -> Answer {
    if a.root != b.root {
        return Answer::no(DecidedBy::Root);
    }
    if a.is_trivially_empty() || b.is_trivially_empty() {
        return Answer::no(DecidedBy::Empty);
    }
    let line = i64::from(line_bytes.max(1));
    if let (Some(ca), Some(cb)) = (Concrete::of(a), Concrete::of(b)) {
        if let (Some((alo, ahi)), Some((blo, bhi))) = (ca.byte_span(), cb.byte_span()) {
            let l = i128::from(line);
            if ahi.div_euclid(l) < blo.div_euclid(l) || bhi.div_euclid(l) < alo.div_euclid(l) {
                return Answer::no(DecidedBy::Interval);
            }
        }
    }
    let (mut vars, xa) = index_vars(a, "%a");
    let (vb, xb) = index_vars(b, "%b");
    vars.extend(vb);
    let goal = same_line_goal(element_bytes(a, &xa), element_bytes(b, &xb), line);
    let asm = if a.is_concrete() && b.is_concrete() {
        Assumptions::new()
    } else {
        asm.clone()
    };
    let problem = Problem {
        asm: &asm,
        vars,
        goal: vec![goal],
        equation: None,
    };
    solver_answer(&problem, |values| {
        let values = &completed(values, &[a, b]);
        let xa = index_values(values, "%a", a.ndim());
        let xb = index_values(values, "%b", b.ndim());
        Witness {
            element: element_of(a, &xa, values),
            a: xa,
            b: xb,
            symbols: symbol_pairs(values),
        }
    })
}

// ---------------------------------------------------------------------------------------
// parallel iterations

/// `symbols` without the two iterations' own entries, which the witness gives itself
/// (a value the assignment happened to hold for them would be listed twice).
fn without_iterations(symbols: Vec<(String, i64)>, iter: &str) -> Vec<(String, i64)> {
    let other = other_iter(iter);
    symbols
        .into_iter()
        .filter(|(s, _)| s != iter && *s != other)
        .collect()
}

/// The second iteration's name in witnesses.
fn other_iter(iter: &str) -> String {
    format!("{iter}'")
}

fn iteration_witness(v: &View, iter: &str, values: &BTreeMap<String, i128>) -> Witness {
    let values = &completed(values, &[v]);
    let xa = index_values(values, "%a", v.ndim());
    let xb = index_values(values, "%b", v.ndim());
    let i = values.get("%i").copied().unwrap_or(0);
    let j = values.get("%j").copied().unwrap_or(0);
    let mut env = values.clone();
    env.insert(iter.to_string(), i);
    let mut symbols = without_iterations(symbol_pairs(values), iter);
    symbols.push((iter.to_string(), to_i64(i)));
    symbols.push((other_iter(iter), to_i64(j)));
    Witness {
        element: element_of(v, &xa, &env),
        a: xa,
        b: xb,
        symbols,
    }
}

fn iteration_vars(
    v: &View,
    iter: &str,
    range: &(Expr, Expr),
) -> (Vec<ExVar>, View, View, Vec<Expr>, Vec<Expr>) {
    let vi = v.subst(iter, &Expr::sym("%i"));
    let vj = v.subst(iter, &Expr::sym("%j"));
    let mut vars = vec![
        ExVar {
            name: "%i".into(),
            lo: range.0.clone(),
            hi: range.1.clone(),
        },
        ExVar {
            name: "%j".into(),
            lo: range.0.clone(),
            hi: range.1.clone(),
        },
    ];
    let (va, xa) = index_vars(&vi, "%a");
    let (vb, xb) = index_vars(&vj, "%b");
    vars.extend(va);
    vars.extend(vb);
    (vars, vi, vj, xa, xb)
}

/// Whether two different iterations `i != j` in `[range.0, range.1)` of a view that
/// depends on the iteration symbol `iter` can reach one element. The iteration indices
/// are existential like the element indices: `MustAlias` means that for every allowed
/// value of the other symbols some two iterations overlap. Witness symbols name the two
/// iterations `iter` and `iter'`.
pub fn iterations_overlap(v: &View, iter: &str, range: (Expr, Expr), asm: &Assumptions) -> Answer {
    recorded(iterations_unrecorded(v, iter, &range, asm))
}

fn iterations_unrecorded(v: &View, iter: &str, range: &(Expr, Expr), asm: &Assumptions) -> Answer {
    let count = &range.1 - &range.0;
    if v.is_trivially_empty() || count.as_const().is_some_and(|c| c < 2) {
        return Answer::no(DecidedBy::Empty);
    }
    let step = v.offset.affine_coefficient(iter);
    let dims_fixed = v
        .dims
        .iter()
        .all(|d| !d.len.mentions(iter) && !d.stride.mentions(iter));
    if let (Some(step), true) = (&step, dims_fixed) {
        // Tiles: iteration i covers [base + K*i + lo, base + K*i + hi]; a step beyond the
        // span keeps consecutive (hence all) iterations apart.
        if let Some((lo, hi)) = relative_span(v, asm) {
            let span = &hi - &lo;
            if asm.proves_at_least(&(step - &span), 1) || asm.proves_at_least(&(-step - &span), 1) {
                return Answer::no(DecidedBy::Tiles);
            }
        }
        let base = v.subst(iter, &Expr::int(0));
        if let (Some(c), Some(k), Some(first)) =
            (Concrete::of(&base), step.as_const(), range.0.as_const())
        {
            if let Some(ans) = concrete_iterations(&c, i128::from(k), first, count.as_const(), iter)
            {
                return ans;
            }
        }
    }
    if let Some(step) = &step {
        if bounded_tiles_apart(v, iter, step, asm) {
            return Answer::no(DecidedBy::Tiles);
        }
    }
    let (vars, vi, vj, xa, xb) = iteration_vars(v, iter, range);
    let equation = &vi.address(&xa) - &vj.address(&xb);
    let mut apart = within(asm, &vars);
    apart.push(Expr::sym("%i"), Cmp::Ne, Expr::sym("%j"));
    if pitch_separates(&equation, &apart) {
        return Answer::no(DecidedBy::Gcd);
    }
    let problem = Problem {
        asm,
        vars,
        goal: vec![
            Fact::Cmp(Expr::sym("%i"), Cmp::Lt, Expr::sym("%j")),
            Fact::Cmp(equation.clone(), Cmp::Eq, Expr::int(0)),
        ],
        equation: Some(equation),
    };
    solver_answer(&problem, |values| iteration_witness(v, iter, values))
}

/// Upper bounds of `e` (itself first): `r + c*min(a, b)` with `c > 0` is at most
/// `r + c*a` and `r + c*b`.
fn upper_bounds(e: &Expr, depth: u32, out: &mut Vec<Expr>) {
    out.push(e.clone());
    if depth == 0 {
        return;
    }
    let min_term = e.terms().find_map(|(mono, coef)| match mono {
        [(atom @ Atom::Op(OpKind::Min, a, b), 1)] if coef > 0 => {
            Some((atom.clone(), a.as_ref().clone(), b.as_ref().clone(), coef))
        }
        _ => None,
    });
    if let Some((atom, a, b, coef)) = min_term {
        let rest = e - &(&Expr::atom(atom) * coef);
        for side in [a, b] {
            upper_bounds(&(&rest + &(&side * coef)), depth - 1, out);
        }
    }
}

/// Tiles whose extent changes with the iteration (a shorter last band,
/// `min(band, rows - band*i)` rows): when every length that depends on the iteration
/// has an iteration-free upper bound and a non-negative stride, iteration `i` stays
/// within `[base + step*i + lo, base + step*i + hi]` for bounds `lo`, `hi` shared by all
/// iterations, and a step beyond `hi - lo` keeps the iterations apart.
fn bounded_tiles_apart(v: &View, iter: &str, step: &Expr, asm: &Assumptions) -> bool {
    let (mut lo, mut hi) = (Expr::int(0), Expr::int(0));
    for d in &v.dims {
        if d.stride.mentions(iter) {
            return false;
        }
        if asm.proves_at_least(&d.stride, 0) {
            // A length below 1 leaves the view empty at that iteration, so bounding it
            // from above is all the span needs.
            let mut bounds = Vec::new();
            upper_bounds(&d.len, 4, &mut bounds);
            let Some(len) = bounds.into_iter().find(|u| !u.mentions(iter)) else {
                return false;
            };
            hi = &hi + &(&d.stride * &(&len - 1));
        } else if asm.proves_at_least(&-&d.stride, 0) && !d.len.mentions(iter) {
            lo = &lo + &(&d.stride * &(&d.len - 1));
        } else {
            return false;
        }
    }
    let span = &hi - &lo;
    asm.proves_at_least(&(step - &span), 1) || asm.proves_at_least(&(-step - &span), 1)
}

/// Iterations of a concrete view whose offset moves by `step` per iteration: `i < j`
/// overlap iff `Σ s*x - Σ s*y - step*δ = 0` with `δ = j - i` in `[1, count)`.
fn concrete_iterations(
    base: &Concrete,
    step: i128,
    first: i64,
    count: Option<i64>,
    iter: &str,
) -> Option<Answer> {
    let count = i128::from(count?);
    if base.is_empty() {
        return Some(Answer::no(DecidedBy::Empty));
    }
    let mut terms = Vec::with_capacity(2 * base.dims.len() + 1);
    for sign in [1i128, -1] {
        for &(l, s) in &base.dims {
            terms.push(Term {
                coef: s.checked_mul(sign)?,
                lo: 0,
                hi: l - 1,
            });
        }
    }
    terms.push(Term {
        coef: step.checked_neg()?,
        lo: 1,
        hi: count - 1,
    });
    match diophantine::solve(&terms, 0, diophantine::DEFAULT_BUDGET) {
        Solve::Found(v) => {
            let n = base.dims.len();
            let delta = v[2 * n];
            let i = i128::from(first);
            let element = base.address(&v[..n]).saturating_add(step.saturating_mul(i));
            Some(Answer::found(
                Verdict::MustAlias,
                DecidedBy::Diophantine,
                Witness {
                    a: v[..n].iter().copied().map(to_i64).collect(),
                    b: v[n..2 * n].iter().copied().map(to_i64).collect(),
                    element: to_i64(element),
                    symbols: vec![
                        (iter.to_string(), to_i64(i)),
                        (other_iter(iter), to_i64(i.saturating_add(delta))),
                    ],
                },
            ))
        }
        Solve::NoSolution => Some(Answer::no(DecidedBy::Diophantine)),
        Solve::GaveUp => None,
    }
}

/// Most elements one small view enumerates when looking for a shared line directly.
const NEIGHBOUR_ELEMENTS: i128 = 256;

/// Per-thread slots and small chunks: a view that moves by a constant step per
/// iteration and is concrete otherwise. When the first two iterations write distinct
/// bytes of one line, that pair is the witness, found by enumerating their few
/// elements; `MustAlias` when the range surely has two iterations. `None` leaves the
/// question (including every "no") to the solver.
fn neighbours_share_line(
    v: &View,
    iter: &str,
    range: &(Expr, Expr),
    line: i64,
    asm: &Assumptions,
) -> Option<Answer> {
    if v.dims
        .iter()
        .any(|d| d.len.mentions(iter) || d.stride.mentions(iter))
    {
        return None;
    }
    let step = i128::from(v.offset.affine_coefficient(iter)?.as_const()?);
    let first = range.0.as_const()?;
    let at_first = Concrete::of(&v.subst(iter, &Expr::int(first)))?;
    if at_first.is_empty() {
        return None;
    }
    let count = at_first
        .dims
        .iter()
        .try_fold(1i128, |acc, &(l, _)| acc.checked_mul(l))?;
    if count > NEIGHBOUR_ELEMENTS {
        return None;
    }
    let tuples = |c: &Concrete| -> Vec<Vec<i128>> {
        let mut out = vec![Vec::new()];
        for &(l, _) in &c.dims {
            out = out
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
        out
    };
    let e = at_first.elem;
    let l = i128::from(line);
    let all = tuples(&at_first);
    for xa in &all {
        let a0 = at_first.address(xa).checked_mul(e)?;
        for xb in &all {
            let b0 = at_first.address(xb).checked_add(step)?.checked_mul(e)?;
            let (a_end, b_end) = (a0.checked_add(e)?, b0.checked_add(e)?);
            let disjoint = a_end <= b0 || b_end <= a0;
            let (near_a, near_b) = if a0 < b0 {
                (a_end - 1, b0)
            } else {
                (b_end - 1, a0)
            };
            if disjoint && near_a.div_euclid(l) == near_b.div_euclid(l) {
                let count = &range.1 - &range.0;
                let two = asm.proves_at_least(&count, 2);
                let verdict = if two {
                    Verdict::MustAlias
                } else {
                    Verdict::MayAlias
                };
                // Sizes for which the range holds both iterations.
                let mut syms = count.symbols();
                syms.extend(asm.symbols());
                let enough = Fact::Cmp(count, Cmp::Ge, Expr::int(2));
                let values = assignment(asm, &syms, &[enough])?;
                let i = first;
                let mut symbols = without_iterations(symbol_pairs(&values), iter);
                symbols.push((iter.to_string(), i));
                symbols.push((other_iter(iter), i.checked_add(1)?));
                return Some(Answer::found(
                    verdict,
                    DecidedBy::Tiles,
                    Witness {
                        a: xa.iter().copied().map(to_i64).collect(),
                        b: xb.iter().copied().map(to_i64).collect(),
                        element: to_i64(a0 / e),
                        symbols,
                    },
                ));
            }
        }
    }
    None
}

/// Whether two different iterations write distinct bytes of one cache line (the
/// false-sharing question), with the conventions of [`iterations_overlap`] and
/// [`share_cache_line`].
pub fn iterations_share_cache_line(
    v: &View,
    iter: &str,
    range: (Expr, Expr),
    line_bytes: u32,
    asm: &Assumptions,
) -> Answer {
    let count = &range.1 - &range.0;
    if v.is_trivially_empty() || count.as_const().is_some_and(|c| c < 2) {
        return recorded(Answer::no(DecidedBy::Empty));
    }
    let line = i64::from(line_bytes.max(1));
    if let Some(ans) = neighbours_share_line(v, iter, &range, line, asm) {
        return recorded(ans);
    }
    let (vars, vi, vj, xa, xb) = iteration_vars(v, iter, &range);
    let goal = same_line_goal(element_bytes(&vi, &xa), element_bytes(&vj, &xb), line);
    let problem = Problem {
        asm,
        vars,
        goal: vec![Fact::Cmp(Expr::sym("%i"), Cmp::Ne, Expr::sym("%j")), goal],
        equation: None,
    };
    recorded(solver_answer(&problem, |values| {
        iteration_witness(v, iter, values)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::view::Dim;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn n() -> Expr {
        Expr::sym("n")
    }

    fn view1(offset: Expr, len: Expr, stride: i64) -> View {
        View {
            root: crate::oracle::view::RootId(0),
            elem_bytes: 1,
            offset,
            dims: vec![Dim::new(len, stride)],
        }
    }

    fn tuples(shape: &[i64]) -> Vec<Vec<i64>> {
        let mut out = vec![Vec::new()];
        for &l in shape {
            out = out
                .into_iter()
                .flat_map(|t| {
                    (0..l.max(0)).map(move |x| {
                        let mut t = t.clone();
                        t.push(x);
                        t
                    })
                })
                .collect();
        }
        out
    }

    fn addr(offset: i64, strides: &[i64], t: &[i64]) -> i64 {
        offset + strides.iter().zip(t).map(|(s, x)| s * x).sum::<i64>()
    }

    /// Every byte of every element, by brute force.
    fn bytes(v: &Spec) -> BTreeSet<i64> {
        tuples(&v.shape)
            .iter()
            .flat_map(|t| {
                let a = addr(v.offset, &v.strides, t) * v.elem;
                a..a + v.elem
            })
            .collect()
    }

    #[derive(Clone, Debug)]
    struct Spec {
        elem: i64,
        offset: i64,
        shape: Vec<i64>,
        strides: Vec<i64>,
    }

    impl Spec {
        fn view(&self) -> View {
            View::strided(
                crate::oracle::view::RootId(0),
                self.elem as u32,
                self.offset,
                &self.shape,
                &self.strides,
            )
        }
    }

    fn spec(elems: &'static [i64]) -> impl Strategy<Value = Spec> {
        (
            proptest::sample::select(elems),
            -10i64..=10,
            proptest::collection::vec((0i64..=4, -5i64..=5), 1..=4),
        )
            .prop_map(|(elem, offset, dims)| Spec {
                elem,
                offset,
                shape: dims.iter().map(|d| d.0).collect(),
                strides: dims.iter().map(|d| d.1).collect(),
            })
    }

    fn witness_shares_a_byte(a: &Spec, b: &Spec, w: &Witness) -> bool {
        let in_bounds = |s: &Spec, t: &[i64]| {
            t.len() == s.shape.len() && t.iter().zip(&s.shape).all(|(x, l)| 0 <= *x && x < l)
        };
        let ba = addr(a.offset, &a.strides, &w.a) * a.elem;
        let bb = addr(b.offset, &b.strides, &w.b) * b.elem;
        in_bounds(a, &w.a) && in_bounds(b, &w.b) && ba < bb + b.elem && bb < ba + a.elem
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn overlap_agrees_with_enumeration(a in spec(&[1]), b in spec(&[1])) {
            let ans = overlap(&a.view(), &b.view(), &Assumptions::new());
            let truth = !bytes(&a).is_disjoint(&bytes(&b));
            prop_assert!(!ans.undecided);
            prop_assert_eq!(ans.verdict != Verdict::NoAlias, truth);
            if truth {
                prop_assert_eq!(ans.verdict, Verdict::MustAlias);
                let w = ans.witness.as_ref();
                prop_assert!(w.is_some_and(|w| witness_shares_a_byte(&a, &b, w)), "bad witness {:?}", ans);
                prop_assert!(w.is_some_and(|w| w.element == addr(a.offset, &a.strides, &w.a)));
            }
        }

        #[test]
        fn byte_overlap_of_mixed_element_sizes_agrees(a in spec(&[1, 2, 4]), b in spec(&[1, 2, 4, 8])) {
            let ans = overlap(&a.view(), &b.view(), &Assumptions::new());
            let truth = !bytes(&a).is_disjoint(&bytes(&b));
            prop_assert_eq!(ans.verdict != Verdict::NoAlias, truth);
            if truth {
                prop_assert!(ans.witness.as_ref().is_some_and(|w| witness_shares_a_byte(&a, &b, w)));
            }
        }

        #[test]
        fn internal_overlap_agrees_with_enumeration(v in spec(&[1])) {
            let ans = internal_overlap(&v.view(), &Assumptions::new());
            let all = tuples(&v.shape);
            let distinct: BTreeSet<i64> = all.iter().map(|t| addr(v.offset, &v.strides, t)).collect();
            let truth = distinct.len() < all.len();
            prop_assert!(!ans.undecided);
            prop_assert_eq!(ans.verdict != Verdict::NoAlias, truth);
            if let Some(w) = &ans.witness {
                prop_assert!(w.a != w.b);
                prop_assert_eq!(addr(v.offset, &v.strides, &w.a), addr(v.offset, &v.strides, &w.b));
                prop_assert!(all.contains(&w.a) && all.contains(&w.b));
            }
        }

        #[test]
        fn iterations_agree_with_enumeration(v in spec(&[1]), step in -6i64..=6, count in 0i64..=4) {
            let view = v.view().offset_by(&Expr::sym("i") * step);
            let ans = iterations_overlap(&view, "i", (Expr::int(0), Expr::int(count)), &Assumptions::new());
            let at = |i: i64| -> BTreeSet<i64> {
                tuples(&v.shape).iter().map(|t| addr(v.offset + step * i, &v.strides, t)).collect()
            };
            let truth = (0..count).any(|i| (0..count).any(|j| i != j && !at(i).is_disjoint(&at(j))));
            prop_assert_eq!(ans.verdict != Verdict::NoAlias, truth, "{:?}", ans);
            if let Some(w) = &ans.witness {
                let get = |name: &str| w.symbols.iter().find(|(k, _)| k == name).map(|(_, v)| *v);
                let (i, j) = (get("i").unwrap_or(-1), get("i'").unwrap_or(-1));
                prop_assert!(i != j && (0..count).contains(&i) && (0..count).contains(&j));
                prop_assert_eq!(addr(v.offset + step * i, &v.strides, &w.a), addr(v.offset + step * j, &v.strides, &w.b));
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(150))]
        #[test]
        fn cache_line_sharing_agrees_with_enumeration(a in spec(&[1, 4]), b in spec(&[1, 4]), line in proptest::sample::select(&[4i64, 8, 16][..])) {
            let ans = share_cache_line(&a.view(), &b.view(), line as u32, &Assumptions::new());
            let elems = |s: &Spec| -> Vec<(i64, i64)> {
                tuples(&s.shape).iter().map(|t| { let f = addr(s.offset, &s.strides, t) * s.elem; (f, f + s.elem - 1) }).collect()
            };
            let truth = elems(&a).iter().any(|&(af, al)| elems(&b).iter().any(|&(bf, bl)| {
                let disjoint = al < bf || bl < af;
                let lines = |f: i64, l: i64| f.div_euclid(line)..=l.div_euclid(line);
                disjoint && lines(af, al).any(|x| lines(bf, bl).contains(&x))
            }));
            prop_assert!(!ans.undecided);
            prop_assert_eq!(ans.verdict != Verdict::NoAlias, truth);
        }

        #[test]
        fn iterations_sharing_a_line_agree_with_enumeration(v in spec(&[1, 4, 8]), step in -6i64..=6, count in 0i64..=4, line in proptest::sample::select(&[8i64, 16][..])) {
            let view = v.view().offset_by(&Expr::sym("i") * step);
            let ans = iterations_share_cache_line(&view, "i", (Expr::int(0), Expr::int(count)), line as u32, &Assumptions::new());
            let elems = |i: i64| -> Vec<(i64, i64)> {
                tuples(&v.shape).iter().map(|t| { let f = addr(v.offset + step * i, &v.strides, t) * v.elem; (f, f + v.elem - 1) }).collect()
            };
            let share = |i: i64, j: i64| elems(i).iter().any(|&(af, al)| elems(j).iter().any(|&(bf, bl)| {
                let disjoint = al < bf || bl < af;
                let lines = |f: i64, l: i64| f.div_euclid(line)..=l.div_euclid(line);
                disjoint && lines(af, al).any(|x| lines(bf, bl).contains(&x))
            }));
            let truth = (0..count).any(|i| (0..count).any(|j| i != j && share(i, j)));
            prop_assert!(!ans.undecided);
            prop_assert_eq!(ans.verdict != Verdict::NoAlias, truth, "{:?}", ans);
            if let Some(w) = &ans.witness {
                let get = |name: &str| w.symbols.iter().rev().find(|(k, _)| k == name).map(|(_, v)| *v);
                let (i, j) = (get("i").unwrap_or(-1), get("i'").unwrap_or(-1));
                prop_assert!(i != j && (0..count).contains(&i) && (0..count).contains(&j));
            }
        }
    }

    #[test]
    fn overlapping_halves_alias_for_every_n() {
        let h = n().div_floor(2);
        let mut asm = Assumptions::new();
        asm.push(n(), Cmp::Ge, Expr::int(2));
        let a = view1(Expr::int(0), &h + 1, 1);
        let b = view1(h.clone(), &n() - &h, 1);
        let ans = overlap(&a, &b, &asm);
        assert_eq!(ans.verdict, Verdict::MustAlias, "{ans:?}");
        let w = ans.witness.unwrap_or_else(|| panic!("no witness"));
        let n_val = w
            .symbols
            .iter()
            .find(|(k, _)| k == "n")
            .map(|(_, v)| *v)
            .unwrap_or(0);
        assert_eq!(w.a[0], n_val / 2 + w.b[0]);
    }

    #[test]
    fn disjoint_halves_never_alias() {
        let h = n().div_floor(2);
        let mut asm = Assumptions::new();
        asm.push(n(), Cmp::Ge, Expr::int(2));
        let a = view1(Expr::int(0), h.clone(), 1);
        let b = view1(h.clone(), &n() - &h, 1);
        let ans = overlap(&a, &b, &asm);
        assert_eq!(ans.verdict, Verdict::NoAlias);
        assert_eq!(ans.decided_by, DecidedBy::Interval);
    }

    #[test]
    fn rows_partition_for_all_rows_and_widths() {
        let (r, cols) = (Expr::sym("r"), Expr::sym("cols"));
        let row = view1(&r * &cols, cols.clone(), 1);
        let ans = iterations_overlap(
            &row,
            "r",
            (Expr::int(0), Expr::sym("rows")),
            &Assumptions::new(),
        );
        assert_eq!(ans.verdict, Verdict::NoAlias);
        assert_eq!(ans.decided_by, DecidedBy::Tiles);
    }

    #[test]
    fn rows_with_a_short_pitch_overlap() {
        let (r, cols) = (Expr::sym("r"), Expr::sym("cols"));
        let row = view1(&r * &(&cols - 1), cols.clone(), 1);
        let ans = iterations_overlap(
            &row,
            "r",
            (Expr::int(0), Expr::sym("rows")),
            &Assumptions::new(),
        );
        assert_ne!(ans.verdict, Verdict::NoAlias);
        let w = ans.witness.unwrap_or_else(|| panic!("no witness"));
        let get = |name: &str| {
            w.symbols
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| *v)
                .unwrap_or(0)
        };
        let (i, j, c) = (get("r"), get("r'"), get("cols"));
        assert_ne!(i, j);
        assert_eq!(i * (c - 1) + w.a[0], j * (c - 1) + w.b[0]);
        assert!(w.a[0] < c && w.b[0] < c);
    }

    /// Band `b` of `min(band, rows - band*b)` rows of width `w`, as a banded kernel
    /// writes it: rows `(height, w)` from `b*band*w`.
    fn band_tile(band_offset: Expr) -> View {
        let (band, w, b) = (Expr::sym("band"), Expr::sym("w"), Expr::sym("b"));
        let height = band.minimum(&(&Expr::sym("rows") - &(&band * &b)));
        View {
            root: crate::oracle::view::RootId(0),
            elem_bytes: 4,
            offset: band_offset,
            dims: vec![Dim::new(height, w.clone()), Dim::new(w, 1)],
        }
    }

    fn band_assumptions() -> Assumptions {
        let mut asm = Assumptions::new();
        for s in ["band", "w", "rows"] {
            asm.push(Expr::sym(s), Cmp::Ge, Expr::int(1));
        }
        asm
    }

    #[test]
    fn bands_with_a_shorter_last_band_are_tiles_apart() {
        let (band, w, b) = (Expr::sym("band"), Expr::sym("w"), Expr::sym("b"));
        let tile = band_tile(&(&band * &w) * &b);
        let count = (&(&Expr::sym("rows") + &band) - 1).div_floor(band);
        let ans = iterations_overlap(&tile, "b", (Expr::int(0), count), &band_assumptions());
        assert_eq!(ans.verdict, Verdict::NoAlias);
        assert_eq!(ans.decided_by, DecidedBy::Tiles);
    }

    #[test]
    fn bands_one_row_too_tall_are_not_taken_apart_by_the_bound() {
        let (band, w, b) = (Expr::sym("band"), Expr::sym("w"), Expr::sym("b"));
        // Each band starts `band - 1` rows after the previous one: the last row of one
        // band is the first of the next.
        let tile = band_tile(&(&(&band - 1) * &w) * &b);
        assert!(!bounded_tiles_apart(
            &tile,
            "b",
            &(&(&band - 1) * &w),
            &band_assumptions()
        ));
    }

    #[test]
    fn upper_bounds_replace_a_min_by_each_side() {
        let (a, b, c) = (Expr::sym("a"), Expr::sym("b"), Expr::sym("c"));
        let e = &(&a.minimum(&b) * 2) - &c;
        let mut out = Vec::new();
        upper_bounds(&e, 4, &mut out);
        assert_eq!(out, vec![e.clone(), &(&a * 2) - &c, &(&b * 2) - &c]);
        let mut negated = Vec::new();
        upper_bounds(&-&e, 4, &mut negated);
        assert_eq!(
            negated.len(),
            1,
            "-min(a, b) is not bounded above by either side"
        );
    }

    #[test]
    fn row_chunks_of_a_symbolic_matrix_partition() {
        let (rows, cols) = (Expr::sym("rows"), Expr::sym("cols"));
        let m = View::contiguous(
            crate::oracle::view::RootId(0),
            4,
            vec![rows.clone(), cols.clone()],
        );
        let mut asm = Assumptions::new();
        asm.push(cols.clone(), Cmp::Ge, Expr::int(1));
        let row = m.index(0, Expr::sym("r")).unwrap_or_else(|| m.clone());
        let ans = iterations_overlap(&row, "r", (Expr::int(0), rows), &asm);
        assert_eq!(ans.verdict, Verdict::NoAlias);
    }

    #[test]
    fn gcd_proves_even_and_odd_symbolic_offsets_disjoint() {
        let a = view1(&n() * 2, n(), 2);
        let b = view1(&n() * 2 + 1, n(), 2);
        let ans = overlap(&a, &b, &Assumptions::new());
        assert_eq!(
            (ans.verdict, ans.decided_by),
            (Verdict::NoAlias, DecidedBy::Gcd)
        );
    }

    /// Iteration `c` of `0..n` writes column `c` of `h` rows of pitch `n`.
    fn column_of_rows(pitch: Expr) -> View {
        View {
            root: crate::oracle::view::RootId(0),
            elem_bytes: 8,
            offset: Expr::sym("c"),
            dims: vec![Dim::new(Expr::sym("h"), pitch)],
        }
    }

    #[test]
    fn columns_of_a_symbolic_pitch_are_apart_without_the_solver() {
        let ans = iterations_overlap(
            &column_of_rows(n()),
            "c",
            (Expr::int(0), n()),
            &Assumptions::new(),
        );
        assert_eq!(
            (ans.verdict, ans.decided_by),
            (Verdict::NoAlias, DecidedBy::Gcd)
        );
        // The same from two instances: `r*n + c` and `r'*n + c'` with `c != c'`.
        let at = |r: &str, c: &str| View {
            root: crate::oracle::view::RootId(0),
            elem_bytes: 8,
            offset: &(&Expr::sym(r) * &n()) + &Expr::sym(c),
            dims: Vec::new(),
        };
        let mut asm = Assumptions::new();
        for (s, hi) in [
            ("c", n()),
            ("c'", n()),
            ("r", Expr::sym("h")),
            ("r'", Expr::sym("h")),
        ] {
            asm.push(Expr::sym(s), Cmp::Ge, Expr::int(0));
            asm.push(Expr::sym(s), Cmp::Lt, hi);
        }
        let mut apart = asm.clone();
        apart.push(Expr::sym("c"), Cmp::Ne, Expr::sym("c'"));
        let ans = overlap(&at("r", "c"), &at("r'", "c'"), &apart);
        assert_eq!(
            (ans.verdict, ans.decided_by),
            (Verdict::NoAlias, DecidedBy::Gcd)
        );
        // Without `c != c'` the two may be one element (`c == c'`, `r == r'`).
        assert!(!remainder_below_pitch(&at("r", "c"), &at("r'", "c'"), &asm));
    }

    #[test]
    fn a_column_as_wide_as_the_pitch_is_not_separated() {
        // Iterations `0..=n`: column `n` of row 0 is column 0 of row 1.
        let ans = iterations_overlap(
            &column_of_rows(n()),
            "c",
            (Expr::int(0), &n() + 1),
            &Assumptions::new(),
        );
        assert_ne!(ans.verdict, Verdict::NoAlias);
        // A pitch one less than the columns (`n - 1`) overlaps too.
        let ans = iterations_overlap(
            &column_of_rows(&n() - 1),
            "c",
            (Expr::int(0), n()),
            &Assumptions::new(),
        );
        assert_ne!(ans.verdict, Verdict::NoAlias);
    }

    #[test]
    fn different_roots_never_alias() {
        let a = view1(Expr::int(0), n(), 1);
        let mut b = a.clone();
        b.root = crate::oracle::view::RootId(1);
        let ans = overlap(&a, &b, &Assumptions::new());
        assert_eq!(
            (ans.verdict, ans.decided_by),
            (Verdict::NoAlias, DecidedBy::Root)
        );
    }

    #[test]
    fn identical_symbolic_views_must_alias_when_non_empty() {
        let a = view1(Expr::sym("k"), n(), 1);
        let mut asm = Assumptions::new();
        asm.push(n(), Cmp::Ge, Expr::int(1));
        let ans = overlap(&a, &a, &asm);
        assert_eq!(
            (ans.verdict, ans.decided_by),
            (Verdict::MustAlias, DecidedBy::SameMap)
        );
        // Possibly empty: overlap is only possible.
        let ans = overlap(&a, &a, &Assumptions::new());
        assert_eq!(ans.verdict, Verdict::MayAlias);
        assert!(ans.witness.is_some());
    }

    #[test]
    fn broadcast_views_overlap_internally() {
        let v = View::contiguous(crate::oracle::view::RootId(0), 4, vec![Expr::int(1), n()]);
        let b = v
            .broadcast(vec![Expr::sym("m"), n()])
            .unwrap_or_else(|| v.clone());
        let mut asm = Assumptions::new();
        asm.push(n(), Cmp::Ge, Expr::int(1));
        asm.push(Expr::sym("m"), Cmp::Ge, Expr::int(2));
        let ans = internal_overlap(&b, &asm);
        assert_eq!(
            (ans.verdict, ans.decided_by),
            (Verdict::MustAlias, DecidedBy::Broadcast)
        );
        let plain = internal_overlap(
            &View::contiguous(crate::oracle::view::RootId(0), 4, vec![Expr::sym("m"), n()]),
            &asm,
        );
        assert_eq!(
            (plain.verdict, plain.decided_by),
            (Verdict::NoAlias, DecidedBy::Nested)
        );
    }

    #[test]
    fn same_map_uses_assumptions() {
        let a = view1(Expr::sym("k"), n(), 1);
        let b = view1(Expr::sym("j"), n(), 1);
        assert!(same_map(&a, &a, &Assumptions::new()));
        assert!(!same_map(&a, &b, &Assumptions::new()));
        let mut asm = Assumptions::new();
        asm.push(Expr::sym("k"), Cmp::Eq, Expr::sym("j"));
        assert!(same_map(&a, &b, &asm));
        let t = View::contiguous(
            crate::oracle::view::RootId(0),
            4,
            vec![Expr::int(3), Expr::int(3)],
        );
        assert!(!same_map(&t, &t.transpose(), &Assumptions::new()));
    }

    #[test]
    fn byte_overlap_between_element_sizes() {
        let f32s = View::strided(crate::oracle::view::RootId(0), 4, 1, &[1], &[1]);
        let inside = View::strided(crate::oracle::view::RootId(0), 1, 7, &[1], &[1]);
        let after = View::strided(crate::oracle::view::RootId(0), 1, 8, &[1], &[1]);
        assert_eq!(
            overlap(&f32s, &inside, &Assumptions::new()).verdict,
            Verdict::MustAlias
        );
        assert_eq!(
            overlap(&f32s, &after, &Assumptions::new()).verdict,
            Verdict::NoAlias
        );
    }

    #[test]
    fn per_thread_counters_share_a_line_unless_padded() {
        let i = Expr::sym("i");
        let counters = View::strided(crate::oracle::view::RootId(0), 8, 0, &[1], &[1]);
        let packed = counters.offset_by(i.clone());
        let padded = counters.offset_by(&i * 8);
        let range = (Expr::int(0), Expr::int(8));
        let shared =
            iterations_share_cache_line(&packed, "i", range.clone(), 64, &Assumptions::new());
        assert_eq!(shared.verdict, Verdict::MustAlias);
        let apart = iterations_share_cache_line(&padded, "i", range, 64, &Assumptions::new());
        assert_eq!(apart.verdict, Verdict::NoAlias);
    }

    #[test]
    fn huge_dimensions_are_decided_without_the_solver() {
        let big = 1_000_000i64;
        let a = View::strided(crate::oracle::view::RootId(0), 4, 0, &[big, big], &[big, 1]);
        let b = View::strided(
            crate::oracle::view::RootId(0),
            4,
            7,
            &[big, big],
            &[big + 1, 3],
        );
        let c = View::strided(
            crate::oracle::view::RootId(0),
            4,
            1,
            &[big, big, big],
            &[6, 10, 15],
        );
        for (x, y) in [(&a, &b), (&b, &c), (&a, &c)] {
            let ans = overlap(x, y, &Assumptions::new());
            assert!(ans.decided_by.is_fast_path(), "{ans:?}");
            assert_eq!(ans.verdict, Verdict::MustAlias);
        }
        let odd = View::strided(
            crate::oracle::view::RootId(0),
            4,
            1,
            &[big, big],
            &[2 * big, 2],
        );
        let even = View::strided(crate::oracle::view::RootId(0), 4, 0, &[big], &[2]);
        assert_eq!(
            overlap(&odd, &even, &Assumptions::new()).decided_by,
            DecidedBy::Gcd
        );
        let internal = internal_overlap(&c, &Assumptions::new());
        assert!(internal.decided_by.is_fast_path());
        assert_eq!(internal.verdict, Verdict::MustAlias);
    }

    /// A matrix of unknown sizes and strides (a parameter): rows and columns overlap
    /// for some strides, not for others.
    fn free_matrix() -> View {
        View {
            root: crate::oracle::view::RootId(0),
            elem_bytes: 4,
            offset: Expr::int(0),
            dims: vec![
                Dim {
                    len: Expr::sym("m.dim0"),
                    stride: Expr::sym("m.stride0"),
                },
                Dim {
                    len: Expr::sym("m.dim1"),
                    stride: Expr::sym("m.stride1"),
                },
            ],
        }
    }

    fn reaches_one_element(v: &View, w: &Witness) -> bool {
        let env: BTreeMap<String, i128> = w
            .symbols
            .iter()
            .map(|(k, x)| (k.clone(), i128::from(*x)))
            .collect();
        let at = |idx: &[i64]| {
            let index: Vec<Expr> = idx.iter().map(|&x| Expr::int(x)).collect();
            v.address(&index).eval(&|s: &str| env.get(s).copied())
        };
        w.a != w.b && at(&w.a).is_some() && at(&w.a) == at(&w.b)
    }

    #[test]
    fn instances_that_disagree_decide_may_alias_without_the_solver() {
        let v = free_matrix();
        let answer = internal_overlap(&v, &Assumptions::new());
        assert_eq!(answer.decided_by, DecidedBy::Instances, "{answer:?}");
        assert_eq!(answer.verdict, Verdict::MayAlias);
        let witness = answer.witness.expect("a witness");
        assert!(reaches_one_element(&v, &witness), "{witness:?}");
    }

    #[test]
    fn instances_that_agree_leave_the_answer_to_the_solver() {
        // Row stride at least the row length in elements: rows never meet, which no
        // instance can prove; only the solver can say "no".
        let v = free_matrix();
        let mut asm = Assumptions::new();
        asm.push(Expr::sym("m.stride1"), Cmp::Eq, Expr::int(1));
        asm.push(Expr::sym("m.stride0"), Cmp::Ge, Expr::sym("m.dim1"));
        asm.push(Expr::sym("m.dim1"), Cmp::Ge, Expr::int(1));
        let answer = internal_overlap(&v, &asm);
        assert_eq!(answer.verdict, Verdict::NoAlias, "{answer:?}");
        assert_ne!(answer.decided_by, DecidedBy::Instances);
    }
}
