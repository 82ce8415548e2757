//! The Z3 back end: exact integer arithmetic (nonlinear terms allowed) for the queries
//! the fast paths leave. Each query runs in a Z3 context of its own, with a limit on the
//! solver's work (Z3's `rlimit`, a count of its steps) rather than on time, so that its
//! answer (sat, unsat, or undecided at the limit) and its model depend on the query
//! alone: not on the machine's speed or load, nor on the queries a thread ran before.
//!
//! A [`Problem`] is "∃ existential variables (index tuples, iteration indices) within
//! their bounds such that the goal holds", over universal symbols (sizes) constrained by
//! the assumptions. Satisfiable means overlap for some symbol values (`MayAlias`).
//! `MustAlias` needs "for all symbol values there exist indices", which is proved
//! soundly without quantifiers: candidate index expressions over the symbols are built
//! from the model (a bound, the model's constant, or solved from the address equation)
//! and the solver shows that no allowed symbol values make them miss. Failing that, the
//! answer stays `MayAlias`; only "∃ symbols ∃ indices" being unsat gives `NoAlias`.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU32, Ordering};

use z3::ast::{Bool, Int};
use z3::{Model, Params, SatResult, Solver};

use super::assume::{Assumptions, Cmp, Fact};
use super::expr::{Atom, Expr, OpKind};

static TIMEOUT_MS: AtomicU32 = AtomicU32::new(2000);

/// Z3's steps (its `rlimit` count) per millisecond of the configured limit: about what
/// Z3 does in a millisecond on one core of a machine of 2025, measured on the hardest
/// queries of the UI fixtures.
const STEPS_PER_MS: u32 = 500;

/// A time limit on the wall clock beyond the step limit. Z3's nonlinear arithmetic can
/// stop counting its steps on a query it cannot decide (`x³ + y³ = z³`); the wall clock
/// stops that one, at three times the limit, undecided either way. Every query whose
/// steps Z3 counts is decided, or given up, by the step limit alone.
const WALL_CLOCK_FACTOR: u32 = 3;

/// Sets the limit of each solver query, in milliseconds of work on a typical machine
/// (at least 1): Z3 stops after that many milliseconds' worth of its steps.
pub fn set_solver_timeout_ms(ms: u32) {
    TIMEOUT_MS.store(ms.max(1), Ordering::Relaxed);
}

pub fn solver_timeout_ms() -> u32 {
    TIMEOUT_MS.load(Ordering::Relaxed)
}

/// An existential variable `lo <= name < hi`.
#[derive(Clone, Debug)]
pub(crate) struct ExVar {
    pub name: String,
    pub lo: Expr,
    pub hi: Expr,
}

pub(crate) struct Problem<'a> {
    pub asm: &'a Assumptions,
    pub vars: Vec<ExVar>,
    pub goal: Vec<Fact>,
    /// An equation `equation == 0` among the goals, used to solve candidate witnesses.
    pub equation: Option<Expr>,
}

#[derive(Debug)]
pub(crate) enum Outcome {
    Unsat,
    /// The solver gave up (time limit or incompleteness).
    Unknown,
    /// Values of the existential variables and of the symbols in one solution; `must`
    /// when a witness is proven to exist for every allowed symbol value.
    Sat {
        values: BTreeMap<String, i128>,
        must: bool,
    },
}

#[derive(Default)]
struct Encoder {
    atoms: HashMap<Atom, Int>,
    /// Definitions of the fresh variables standing for floor divisions: asserted as
    /// facts, never negated, because they only name a function of other terms.
    side: Vec<Bool>,
}

impl Encoder {
    fn expr(&mut self, e: &Expr) -> Int {
        let mut sum: Vec<Int> = Vec::new();
        for (mono, c) in e.terms() {
            let mut factors = vec![Int::from_i64(c)];
            for (atom, p) in mono {
                let a = self.atom(atom);
                for _ in 0..*p {
                    factors.push(a.clone());
                }
            }
            sum.push(if factors.len() == 1 {
                factors.remove(0)
            } else {
                Int::mul(&factors)
            });
        }
        match sum.len() {
            0 => Int::from_i64(0),
            1 => sum.remove(0),
            _ => Int::add(&sum),
        }
    }

    fn atom(&mut self, a: &Atom) -> Int {
        if let Some(v) = self.atoms.get(a) {
            return v.clone();
        }
        let v = match a {
            Atom::Sym(s) => Int::new_const(s.0.as_str()),
            Atom::Op(kind, l, r) => {
                let (li, ri) = (self.expr(l), self.expr(r));
                match kind {
                    OpKind::Add => Int::add(&[li, ri]),
                    OpKind::Mul => Int::mul(&[li, ri]),
                    OpKind::FloorDiv => self.floor_div(&li, r.as_const(), &ri),
                    OpKind::Rem => {
                        let q = self.floor_div(&li, r.as_const(), &ri);
                        Int::sub(&[li, Int::mul(&[ri, q])])
                    }
                    OpKind::Min => li.le(ri.clone()).ite(&li, &ri),
                    OpKind::Max => li.ge(ri.clone()).ite(&li, &ri),
                }
            }
        };
        self.atoms.insert(a.clone(), v.clone());
        v
    }

    fn floor_div(&mut self, l: &Int, k: Option<i64>, r: &Int) -> Int {
        match k {
            // Division by zero has no value: any integer.
            Some(0) => Int::fresh_const("divzero"),
            Some(k) => {
                // floor(l / k) = floor(-l / -k): normalise to a positive divisor and
                // define q by k*q <= l < k*q + k, which stays linear.
                let (num, den) = if k > 0 {
                    (l.clone(), i128::from(k))
                } else {
                    (l.unary_minus(), -i128::from(k))
                };
                let q = Int::fresh_const("q");
                let kq = Int::mul(&[Int::from_i128(den), q.clone()]);
                self.side.push(kq.le(num.clone()));
                self.side.push(num.lt(Int::add(&[kq, Int::from_i128(den)])));
                q
            }
            None => {
                let zero = Int::from_i64(0);
                let pos = l.div(r.clone());
                let neg = l.unary_minus().div(r.unary_minus());
                r.gt(zero.clone())
                    .ite(&pos, &r.lt(zero).ite(&neg, &Int::fresh_const("divzero")))
            }
        }
    }

    fn fact(&mut self, f: &Fact) -> Bool {
        match f {
            Fact::Cmp(l, c, r) => {
                let (l, r) = (self.expr(l), self.expr(r));
                match c {
                    Cmp::Lt => l.lt(r),
                    Cmp::Le => l.le(r),
                    Cmp::Eq => l.eq(r),
                    Cmp::Ne => l.eq(r).not(),
                    Cmp::Ge => l.ge(r),
                    Cmp::Gt => l.gt(r),
                }
            }
            Fact::Divisible(e, k) => {
                let e = self.expr(e);
                if *k == 0 {
                    e.eq(Int::from_i64(0))
                } else {
                    e.modulo(Int::from_i64(*k)).eq(Int::from_i64(0))
                }
            }
            Fact::And(fs) => {
                let parts: Vec<Bool> = fs.iter().map(|f| self.fact(f)).collect();
                Bool::and(&parts)
            }
            Fact::Or(fs) => {
                let parts: Vec<Bool> = fs.iter().map(|f| self.fact(f)).collect();
                Bool::or(&parts)
            }
        }
    }
}

pub(crate) fn bounds(vars: &[ExVar]) -> Vec<Fact> {
    vars.iter()
        .flat_map(|v| {
            let x = Expr::sym(&v.name);
            [
                Fact::Cmp(v.lo.clone(), Cmp::Le, x.clone()),
                Fact::Cmp(x, Cmp::Lt, v.hi.clone()),
            ]
        })
        .collect()
}

fn params(ms: u32) -> Params {
    let mut p = Params::new();
    p.set_u32("rlimit", ms.saturating_mul(STEPS_PER_MS));
    p.set_u32("timeout", ms.saturating_mul(WALL_CLOCK_FACTOR));
    p
}

/// Runs one satisfiability check of `facts` (plus side definitions) in a Z3 context of
/// its own, returning the model's values of `names` when satisfiable. A context keeps
/// what earlier queries made (terms and their ids), which changes how far a query gets
/// within its step limit and which model it finds; which queries a thread ran before
/// depends on thread timing. A context is made only for a query the fast paths leave.
fn check(
    facts: &[Fact],
    names: &[String],
    timeout_ms: u32,
) -> (SatResult, Option<BTreeMap<String, i128>>) {
    z3::with_z3_config(&z3::Config::new(), || {
        solve(&Solver::new(), facts, names, timeout_ms)
    })
}

/// One satisfiability check of `facts` on `solver`, left as it was found.
fn solve(
    solver: &Solver,
    facts: &[Fact],
    names: &[String],
    timeout_ms: u32,
) -> (SatResult, Option<BTreeMap<String, i128>>) {
    solver.set_params(&params(timeout_ms));
    solver.push();
    let mut enc = Encoder::default();
    let encoded: Vec<Bool> = facts.iter().map(|f| enc.fact(f)).collect();
    for b in encoded.iter().chain(enc.side.iter()) {
        solver.assert(b);
    }
    let result = solver.check();
    let values = (result == SatResult::Sat)
        .then(|| solver.get_model())
        .flatten()
        .map(|m| read_model(&m, names, &mut enc));
    solver.pop(1);
    (result, values)
}

fn read_model(m: &Model, names: &[String], enc: &mut Encoder) -> BTreeMap<String, i128> {
    names
        .iter()
        .filter_map(|n| {
            let v = enc.atom(&Atom::Sym(super::expr::Sym(n.clone())));
            let value = m.eval(&v, true)?.as_i128()?;
            Some((n.clone(), value))
        })
        .collect()
}

/// Decides a problem: unsat, unknown, or sat with a model and whether the overlap is
/// proven for every allowed symbol value.
pub(crate) fn decide(p: &Problem<'_>) -> Outcome {
    let timeout = solver_timeout_ms();
    let mut facts: Vec<Fact> = p.asm.facts().to_vec();
    facts.extend(bounds(&p.vars));
    facts.extend(p.goal.iter().cloned());
    let ex_names: Vec<String> = p.vars.iter().map(|v| v.name.clone()).collect();
    let mut universal = p.asm.symbols();
    for f in &facts {
        universal.extend(fact_symbols(f));
    }
    for n in &ex_names {
        universal.remove(n);
    }
    let mut names = ex_names.clone();
    names.extend(universal.iter().cloned());
    let (result, values) = check(&facts, &names, timeout);
    match (result, values) {
        (SatResult::Unsat, _) => Outcome::Unsat,
        (SatResult::Sat, Some(values)) => {
            let must = universal.is_empty() || prove_must(p, &values, timeout / 4 + 1);
            Outcome::Sat { values, must }
        }
        _ => Outcome::Unknown,
    }
}

fn fact_symbols(f: &Fact) -> std::collections::BTreeSet<String> {
    let mut a = Assumptions::new();
    a.push_fact(f.clone());
    a.symbols()
}

/// Tries candidate witnesses that are expressions over the symbols; proven when the
/// assumptions together with "the candidate misses" are unsatisfiable.
fn prove_must(p: &Problem<'_>, values: &BTreeMap<String, i128>, timeout_ms: u32) -> bool {
    let env = |s: &str| values.get(s).copied();
    let structural: Vec<Expr> = p
        .vars
        .iter()
        .map(|v| {
            let m = values.get(&v.name).copied().unwrap_or(0);
            let lo = v.lo.eval(&env);
            let hi = v.hi.eval(&env);
            if lo == Some(m) {
                v.lo.clone()
            } else if hi.and_then(|h| h.checked_sub(1)) == Some(m) {
                &v.hi - 1
            } else {
                constant(m)
            }
        })
        .collect();
    let constants: Vec<Expr> = p
        .vars
        .iter()
        .map(|v| constant(values.get(&v.name).copied().unwrap_or(0)))
        .collect();
    let mut attempts = vec![structural.clone()];
    if let Some(eq) = &p.equation {
        // Solve one unit-coefficient unknown from the equation, the others structural;
        // the last ones first (the second view's indices).
        for k in (0..p.vars.len()).rev() {
            if let Some(solved) = solve_for(eq, &p.vars, &structural, k) {
                let mut cand = structural.clone();
                cand[k] = solved;
                attempts.push(cand);
                break;
            }
        }
    }
    if let Some(eq) = &p.equation {
        // A witness at the smallest sizes may sit at a corner that moves with the sizes:
        // try the other unknowns all at their first, then all at their last value.
        let firsts: Vec<Expr> = p.vars.iter().map(|v| v.lo.clone()).collect();
        let lasts: Vec<Expr> = p.vars.iter().map(|v| &v.hi - 1).collect();
        for base in [firsts, lasts] {
            if let Some(k) = p.vars.len().checked_sub(1) {
                if let Some(solved) = solve_for(eq, &p.vars, &base, k) {
                    let mut cand = base;
                    cand[k] = solved;
                    attempts.push(cand);
                }
            }
        }
    }
    attempts.push(constants);
    attempts.dedup();
    attempts
        .into_iter()
        .any(|cand| candidate_holds(p, &cand, timeout_ms))
}

fn constant(v: i128) -> Expr {
    i64::try_from(v).map(Expr::int).unwrap_or_else(|_| {
        // Values beyond i64 are rebuilt exactly as a product kept by the normal form.
        let hi = Expr::int((v >> 32) as i64);
        let lo = Expr::int((v & 0xffff_ffff) as i64);
        &(&hi * 0x1_0000_0000_i64) + &lo
    })
}

fn solve_for(eq: &Expr, vars: &[ExVar], cand: &[Expr], k: usize) -> Option<Expr> {
    let target = &vars[k].name;
    let others = |s: &str| {
        vars.iter()
            .position(|v| v.name == s && v.name != *target)
            .map(|j| cand[j].clone())
    };
    let e = eq.map_symbols(&others);
    let coef = e.affine_coefficient(target)?.as_const()?;
    if coef != 1 && coef != -1 {
        return None;
    }
    let rest = e.subst(target, &Expr::int(0));
    Some(&(-rest) * coef)
}

fn candidate_holds(p: &Problem<'_>, cand: &[Expr], timeout_ms: u32) -> bool {
    let sub = |s: &str| {
        p.vars
            .iter()
            .position(|v| v.name == s)
            .map(|j| cand[j].clone())
    };
    let mut wanted: Vec<Fact> = bounds(&p.vars)
        .iter()
        .map(|f| f.map_symbols(&sub))
        .collect();
    wanted.extend(p.goal.iter().map(|f| f.map_symbols(&sub)));
    let mut facts: Vec<Fact> = p.asm.facts().to_vec();
    facts.push(negate(&Fact::And(wanted)));
    matches!(check(&facts, &[], timeout_ms).0, SatResult::Unsat)
}

fn negate(f: &Fact) -> Fact {
    match f {
        Fact::Cmp(l, c, r) => {
            let c = match c {
                Cmp::Lt => Cmp::Ge,
                Cmp::Le => Cmp::Gt,
                Cmp::Eq => Cmp::Ne,
                Cmp::Ne => Cmp::Eq,
                Cmp::Ge => Cmp::Lt,
                Cmp::Gt => Cmp::Le,
            };
            Fact::Cmp(l.clone(), c, r.clone())
        }
        Fact::Divisible(e, 0) => Fact::Cmp(e.clone(), Cmp::Ne, Expr::int(0)),
        Fact::Divisible(e, k) => Fact::Cmp(e.rem(*k), Cmp::Ne, Expr::int(0)),
        Fact::And(fs) => Fact::Or(fs.iter().map(negate).collect()),
        Fact::Or(fs) => Fact::And(fs.iter().map(negate).collect()),
    }
}

/// One satisfiability check with the assumptions, for a model of the symbols alone.
pub(crate) fn model_of(asm: &Assumptions, extra: &[Fact]) -> Option<BTreeMap<String, i128>> {
    let mut facts = asm.facts().to_vec();
    facts.extend(extra.iter().cloned());
    let mut names: Vec<String> = asm.symbols().into_iter().collect();
    for f in extra {
        names.extend(fact_symbols(f));
    }
    names.sort();
    names.dedup();
    check(&facts, &names, solver_timeout_ms()).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solver_finds_models_and_refutes() {
        let mut asm = Assumptions::new();
        asm.push(Expr::sym("n"), Cmp::Ge, Expr::int(2));
        asm.push_divisible(Expr::sym("n"), 16);
        let model = model_of(&asm, &[]);
        let n = model.and_then(|m| m.get("n").copied());
        assert!(n.is_some_and(|n| n >= 16 && n % 16 == 0));
        asm.push(Expr::sym("n"), Cmp::Lt, Expr::int(16));
        assert!(model_of(&asm, &[]).is_none());
    }

    #[test]
    fn floor_division_is_encoded_exactly() {
        let n = Expr::sym("n");
        let mut asm = Assumptions::new();
        asm.push(n.clone(), Cmp::Eq, Expr::int(-7));
        let q = n.div_floor(2);
        let r = n.rem(2);
        let facts = [
            Fact::Cmp(q, Cmp::Eq, Expr::int(-4)),
            Fact::Cmp(r, Cmp::Eq, Expr::int(1)),
        ];
        assert!(model_of(&asm, &facts).is_some());
    }

    #[test]
    fn must_is_proven_for_all_sizes_only_when_true() {
        // x in [0, n), x == n - 1: a witness exists whenever n >= 1.
        let n = Expr::sym("n");
        let mut asm = Assumptions::new();
        asm.push(n.clone(), Cmp::Ge, Expr::int(1));
        let vars = vec![ExVar {
            name: "%x".into(),
            lo: Expr::int(0),
            hi: n.clone(),
        }];
        let eq = &Expr::sym("%x") - &(&n - 1);
        let problem = Problem {
            asm: &asm,
            vars: vars.clone(),
            goal: vec![Fact::Cmp(eq.clone(), Cmp::Eq, Expr::int(0))],
            equation: Some(eq),
        };
        assert!(matches!(decide(&problem), Outcome::Sat { must: true, .. }));
        // x == 5 only has a witness when n > 5.
        let eq = &Expr::sym("%x") - 5;
        let problem = Problem {
            asm: &asm,
            vars,
            goal: vec![Fact::Cmp(eq.clone(), Cmp::Eq, Expr::int(0))],
            equation: Some(eq),
        };
        assert!(matches!(decide(&problem), Outcome::Sat { must: false, .. }));
    }
}
