//! What is known about the symbols: a conjunction of comparisons and divisibility facts
//! (from `#[tensor_lint::kernel(assume(...))]`, loop bounds and guards), and a cheap
//! syntactic prover the fast paths use before any solver is asked.

use super::expr::Expr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Lt,
    Le,
    Eq,
    Ne,
    Ge,
    Gt,
}

impl Cmp {
    pub fn as_str(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
            Cmp::Ge => ">=",
            Cmp::Gt => ">",
        }
    }

    pub fn holds(self, l: i128, r: i128) -> bool {
        match self {
            Cmp::Lt => l < r,
            Cmp::Le => l <= r,
            Cmp::Eq => l == r,
            Cmp::Ne => l != r,
            Cmp::Ge => l >= r,
            Cmp::Gt => l > r,
        }
    }
}

/// A constraint over integer expressions.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Fact {
    Cmp(Expr, Cmp, Expr),
    /// `expr % k == 0`.
    Divisible(Expr, i64),
    And(Vec<Fact>),
    Or(Vec<Fact>),
}

impl Fact {
    /// The truth value under an assignment; `None` when an expression cannot be evaluated.
    pub fn eval(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<bool> {
        match self {
            Fact::Cmp(l, c, r) => Some(c.holds(l.eval(env)?, r.eval(env)?)),
            Fact::Divisible(e, k) => {
                let v = e.eval(env)?;
                Some(if *k == 0 {
                    v == 0
                } else {
                    v.checked_rem(*k as i128)? == 0
                })
            }
            Fact::And(fs) => fs.iter().try_fold(true, |acc, f| Some(acc && f.eval(env)?)),
            Fact::Or(fs) => fs
                .iter()
                .try_fold(false, |acc, f| Some(acc || f.eval(env)?)),
        }
    }

    pub fn map_symbols(&self, f: &dyn Fn(&str) -> Option<Expr>) -> Fact {
        match self {
            Fact::Cmp(l, c, r) => Fact::Cmp(l.map_symbols(f), *c, r.map_symbols(f)),
            Fact::Divisible(e, k) => Fact::Divisible(e.map_symbols(f), *k),
            Fact::And(fs) => Fact::And(fs.iter().map(|x| x.map_symbols(f)).collect()),
            Fact::Or(fs) => Fact::Or(fs.iter().map(|x| x.map_symbols(f)).collect()),
        }
    }

    fn collect_symbols(&self, out: &mut std::collections::BTreeSet<String>) {
        match self {
            Fact::Cmp(l, _, r) => {
                out.extend(l.symbols());
                out.extend(r.symbols());
            }
            Fact::Divisible(e, _) => out.extend(e.symbols()),
            Fact::And(fs) | Fact::Or(fs) => fs.iter().for_each(|f| f.collect_symbols(out)),
        }
    }
}

impl std::fmt::Display for Fact {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let join = |f: &mut std::fmt::Formatter<'_>, fs: &[Fact], sep: &str| {
            f.write_str("(")?;
            for (k, x) in fs.iter().enumerate() {
                if k > 0 {
                    f.write_str(sep)?;
                }
                write!(f, "{x}")?;
            }
            f.write_str(")")
        };
        match self {
            Fact::Cmp(l, c, r) => write!(f, "{l} {} {r}", c.as_str()),
            Fact::Divisible(e, k) => write!(f, "({e}) % {k} == 0"),
            Fact::And(fs) => join(f, fs, " && "),
            Fact::Or(fs) => join(f, fs, " || "),
        }
    }
}

/// A conjunction of facts about the symbols.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Assumptions {
    facts: Vec<Fact>,
}

impl Assumptions {
    pub fn new() -> Assumptions {
        Assumptions::default()
    }

    pub fn push(&mut self, lhs: Expr, cmp: Cmp, rhs: Expr) {
        self.facts.push(Fact::Cmp(lhs, cmp, rhs));
    }

    /// Records `expr % k == 0`.
    pub fn push_divisible(&mut self, expr: Expr, k: i64) {
        self.facts.push(Fact::Divisible(expr, k));
    }

    pub fn push_fact(&mut self, fact: Fact) {
        self.facts.push(fact);
    }

    /// A copy with one more comparison.
    pub fn with(&self, lhs: Expr, cmp: Cmp, rhs: Expr) -> Assumptions {
        let mut out = self.clone();
        out.push(lhs, cmp, rhs);
        out
    }

    pub fn facts(&self) -> &[Fact] {
        &self.facts
    }

    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    pub fn symbols(&self) -> std::collections::BTreeSet<String> {
        let mut out = std::collections::BTreeSet::new();
        for f in &self.facts {
            f.collect_symbols(&mut out);
        }
        out
    }

    /// Whether every fact holds under the assignment (`None` when one cannot be evaluated).
    pub fn hold(&self, env: &dyn Fn(&str) -> Option<i128>) -> Option<bool> {
        self.facts
            .iter()
            .try_fold(true, |acc, f| Some(acc && f.eval(env)?))
    }

    /// Whether `e >= k` follows from one fact alone: `e` is a constant, or `e` minus the
    /// non-negative side `p` of a fact `p >= 0` is a constant of at least `k`. A cheap,
    /// incomplete prover for the fast paths; `false` means "not shown", not "false".
    pub fn proves_at_least(&self, e: &Expr, k: i64) -> bool {
        if let Some(c) = e.as_const() {
            return c >= k;
        }
        self.facts.iter().any(|f| {
            nonnegative_sides(f)
                .iter()
                .any(|p| (e - p).as_const().is_some_and(|c| c >= k))
        })
    }
}

/// The expressions a fact states to be `>= 0`.
pub(crate) fn nonnegative_sides(f: &Fact) -> Vec<Expr> {
    match f {
        Fact::Cmp(l, c, r) => match c {
            Cmp::Ge => vec![l - r],
            Cmp::Gt => vec![l - r - 1],
            Cmp::Le => vec![r - l],
            Cmp::Lt => vec![r - l - 1],
            Cmp::Eq => vec![l - r, r - l],
            Cmp::Ne => Vec::new(),
        },
        Fact::And(fs) => fs.iter().flat_map(nonnegative_sides).collect(),
        Fact::Divisible(..) | Fact::Or(..) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prover_uses_single_facts_with_constant_slack() {
        let n = Expr::sym("n");
        let mut asm = Assumptions::new();
        asm.push(n.clone(), Cmp::Ge, Expr::int(2));
        assert!(asm.proves_at_least(&n, 2));
        assert!(asm.proves_at_least(&(&n + 3), 5));
        assert!(!asm.proves_at_least(&n, 3));
        assert!(!asm.proves_at_least(&Expr::sym("m"), 0));
        assert!(asm.proves_at_least(&Expr::int(4), 4));
    }

    #[test]
    fn facts_evaluate_under_assignments() {
        let n = Expr::sym("n");
        let mut asm = Assumptions::new();
        asm.push(n.clone(), Cmp::Gt, Expr::int(0));
        asm.push_divisible(n.clone(), 16);
        assert_eq!(asm.hold(&|_| Some(32)), Some(true));
        assert_eq!(asm.hold(&|_| Some(8)), Some(false));
        assert_eq!(asm.hold(&|_| None), None);
    }
}
