//! `alias_race`: parallel tasks whose accesses to tensor memory may overlap.

crate::declare_lint! {
    /// ### What it does
    /// Splits each parallel region (`rayon::join`, `rayon::scope` and
    /// `std::thread::scope` spawns, `par_iter`/`par_chunks`/`into_par_iter` iterations,
    /// `par_azip!`, `Zip::par_for_each`) into tasks, collects the memory each task reads
    /// and writes as strided views, and asks the alias oracle whether a write of one task
    /// can reach memory another task reads or writes. Writes through a broadcast
    /// (stride-0) view from parallel iterations are races too. Disjointness that Rust
    /// already guarantees (`split_at_mut`, `chunks_mut`, safe `&mut` views), atomics and
    /// data behind a lock never warn. The code a `scope` closure runs after its first
    /// `spawn` counts as one more task; what it does before runs before the spawned
    /// tasks start. Threads of `std::thread::spawn`, and jobs handed to a thread pool
    /// (`rayon::spawn`, `ThreadPool::execute` / `spawn` on a value declared or built as
    /// a `ThreadPool`, a `spawn` model of the configuration), started with no `join`
    /// between them run together.
    ///
    /// A `&mut` made from a raw pointer to several elements (`&mut *buf` of a
    /// `*mut [T]`, `slice::from_raw_parts_mut(p, len)`) claims all of them while it
    /// lives: two tasks holding such references to the same elements race even when each
    /// then writes a different element. So does a crate method that hands out `&mut T`
    /// from `&self` (`fn get(&self) -> &mut T`, a cell around a borrowed buffer): each
    /// call claims everything the receiver holds. An accessor returning `&mut T` made
    /// from a raw pointer (`unsafe fn get(self, i) -> &mut T { &mut *self.base.add(i) }`)
    /// claims the element it hands out.
    ///
    /// Tasks spawned in a `while` or `loop` are one instance per round, each with that
    /// round's values of the integers the loop moves on (`offset += batch`). A loop over
    /// a range a task computes at run time (`for row in start..end` with the bounds read
    /// from a table), or an index it reads (`out[slot]` with `slot` read from a table),
    /// is trusted to be the task's own: different tasks take different values of it. What
    /// is derived from them may still meet: eight rows share a byte of a packed bitmap
    /// (`bits[row / 8] |= ..`), and a flat range of `rows * k` items cut into runs shares
    /// an output row across a run boundary (`out[item / k] += ..`).
    ///
    /// A race that happens for every input allowed by the kernel's `assume(...)` (with at
    /// least two iterations, for a parallel iteration) is an error; one that happens
    /// only for some inputs is a warning. When the solver runs out of time the accesses
    /// are treated as overlapping, and the warning says so.
    ///
    /// ### Why is this bad
    /// Two threads writing the same element is a data race: undefined behaviour, and in
    /// practice results that change from run to run. Raw pointers, `from_shape_ptr` and
    /// wrappers such as `SendPtr` hide it from the borrow checker.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let half = n / 2;
    /// let top = unsafe { ArrayViewMut2::from_shape_ptr((half + 1, w), p) };
    /// let bottom = unsafe { ArrayViewMut2::from_shape_ptr((n - half, w), p.add(half * w)) };
    /// rayon::join(|| top.fill(0.0), || bottom.fill(1.0)); // row `half` is written by both
    /// ```
    /// Use instead: split so the parts are disjoint, and let Rust prove it.
    /// ```rust,ignore
    /// let (top, bottom) = grid.view_mut().split_at(Axis(0), n / 2);
    /// rayon::join(|| top.fill(0.0), || bottom.fill(1.0));
    /// ```
    pub ALIAS_RACE = "alias_race", Deny, Correctness,
    "parallel tasks whose accesses to tensor memory may overlap",
    possible_is_warn = true
}

/// The pass behind this lint.
pub const PASS: Option<crate::context::CheckFn> = Some(check);

use std::collections::{BTreeMap, BTreeSet};

use tensor_lint_analyzer::dataflow::parallel::{
    assumptions_for, existential_only, primed, renamed, guarded_by_own, second_instance, tied_instance, AccessKind, Own, RegionFacts, TaskAccess,
    TaskFacts,
};
use tensor_lint_analyzer::dataflow::Derivations;
use tensor_lint_analyzer::ir::{FnIr, Iteration, ParallelKind, TyClass, ValueId, ValueKind};
use tensor_lint_analyzer::oracle::{
    iterations_overlap, overlap, witness_holds, Answer, Assumptions, Cmp, Expr, RootId, Verdict, View, Witness,
};

use crate::context::{LintContext, LintFinding};
use crate::describe::{access_name, root_name, symbol_name, task_label};
use crate::diagnostic::{Diagnostic, Severity};

/// A conflict between two accesses, before it becomes a diagnostic.
struct Conflict<'a> {
    first: (&'a TaskFacts, &'a TaskAccess),
    second: (&'a TaskFacts, &'a TaskAccess),
    /// Two instances of one replicated task.
    same_task: bool,
    answer: Answer,
    proven: bool,
    /// Symbols of the second instance's iteration, as renamed in the query.
    second_symbol: Option<String>,
    /// Values the two instances never share, as both instances name them (the loop
    /// variables walking each instance's own range): the overlap comes from different
    /// ones.
    own: Vec<Own>,
    /// Values both instances read from one element of shared memory, which place the
    /// accesses (see `tied_instance`).
    tied: Vec<String>,
}

impl Conflict<'_> {
    fn both_write(&self) -> bool {
        self.first.1.kind != AccessKind::Read && self.second.1.kind != AccessKind::Read
    }

    /// Stronger first: proven, then two writes, then a `&mut` taken against a write
    /// through another (which shows both lines) over two `&mut` taken on one line.
    fn rank(&self) -> (bool, bool, bool) {
        let kinds = (self.first.1.kind, self.second.1.kind);
        let claim_and_write = matches!(
            kinds,
            (AccessKind::Claim, AccessKind::Write) | (AccessKind::Write, AccessKind::Claim)
        );
        (self.proven, self.both_write(), claim_and_write)
    }
}

fn check(cx: &LintContext<'_>, out: &mut Vec<LintFinding>) {
    for ir in cx.functions() {
        let Some(facts) = cx.ir.facts(ir.id) else {
            continue;
        };
        for region in &facts.parallel.regions {
            check_region(cx, ir, &facts.derivations, region, out);
        }
    }
}

fn check_region(
    cx: &LintContext<'_>,
    ir: &FnIr,
    derived: &Derivations,
    region: &RegionFacts,
    out: &mut Vec<LintFinding>,
) {
    // One diagnostic per buffer and region: the strongest conflict found.
    let mut best: BTreeMap<RootId, Conflict<'_>> = BTreeMap::new();
    for (ti, ta) in region.tasks.iter().enumerate() {
        for tb in &region.tasks[ti..] {
            let same_task = std::ptr::eq(ta, tb);
            if same_task && ta.task.iteration.is_none() {
                continue;
            }
            for (ai, a) in ta.accesses.iter().enumerate() {
                let from = if same_task { ai } else { 0 };
                for b in &tb.accesses[from..] {
                    let Some(c) = conflict(ir, (ta, a), (tb, b), same_task) else {
                        continue;
                    };
                    let root = c.first.1.root;
                    if best.get(&root).is_none_or(|old| c.rank() > old.rank()) {
                        best.insert(root, c);
                    }
                }
            }
        }
    }
    for c in best.into_values() {
        out.push(finding(cx, ir, derived, c, region.kind == ParallelKind::Pieces));
    }
}

/// Asks the oracle whether access `a` of one task instance and access `b` of another
/// can reach the same element.
fn conflict<'a>(
    ir: &FnIr,
    first: (&'a TaskFacts, &'a TaskAccess),
    second: (&'a TaskFacts, &'a TaskAccess),
    same_task: bool,
) -> Option<Conflict<'a>> {
    conflict_when(ir, first, second, same_task, false)
        // Two instances of one task may each read the same element of shared memory
        // and be placed by that one value (`for &a in shared_index`, walked whole by
        // each): both reach the element it names.
        .or_else(|| same_task.then(|| conflict_when(ir, first, second, true, true))?)
}

/// [`conflict`]; with `tied`, the second instance of a replicated task has read the
/// same shared elements as the first (see `tied_instance`).
fn conflict_when<'a>(
    ir: &FnIr,
    (ta, a): (&'a TaskFacts, &'a TaskAccess),
    (tb, b): (&'a TaskFacts, &'a TaskAccess),
    same_task: bool,
    tied: bool,
) -> Option<Conflict<'a>> {
    if a.kind == AccessKind::Read && b.kind == AccessKind::Read {
        return None;
    }
    // An atomic synchronises every access made through it.
    if a.atomic || b.atomic {
        return None;
    }
    // Disjointness of safe borrows is the borrow checker's to prove, and it does.
    if a.root != b.root || !(a.unchecked || b.unchecked) {
        return None;
    }
    let (va, vb) = (a.view.as_ref()?, b.view.as_ref()?);
    let mut ranges: Vec<Iteration> = Vec::new();
    let mut existential: BTreeSet<String> = ir
        .loop_ranges
        .iter()
        .map(|(_, it)| it.symbol.clone())
        .collect();
    let ia = ta.task.iteration.as_ref();
    if let Some(it) = ia {
        ranges.push(it.clone());
        existential.insert(it.symbol.clone());
    }
    let mut second_symbol = None;
    let mut vb = vb.clone();
    let mut distinct: Vec<Own> = Vec::new();
    let mut tied_values = Vec::new();
    let mut guards_b = b.guards.clone();
    if let Some(it) = tb.task.iteration.as_ref() {
        // Two instances of one loop of spawns (or of one parallel iteration) are told
        // apart by renaming the second one's variable.
        if same_task || ia.is_some_and(|x| x.symbol == it.symbol) {
            let name = primed(&it.symbol);
            if same_task {
                let second = if tied {
                    let second = tied_instance(ir, tb, it, b)?;
                    let kept: BTreeSet<String> = second.tied.iter().cloned().collect();
                    if guarded_by_own(ta, &a.guards, &kept) {
                        return None;
                    }
                    second
                } else {
                    second_instance(ir, tb, it, b)?
                };
                vb = second.view;
                existential.extend(second.ranges.iter().map(|r| r.symbol.clone()));
                ranges.extend(second.ranges);
                distinct = second.own;
                guards_b = second.guards;
                tied_values = second.tied;
            } else {
                vb = vb.subst(&it.symbol, &Expr::sym(&name));
                ranges.push(renamed(it, name.clone()));
                existential.insert(name.clone());
            }
            second_symbol = Some(name);
        } else {
            ranges.push(it.clone());
            existential.insert(it.symbol.clone());
        }
    }
    // Two accesses of one replicated task through the same map (a read and a write of
    // one row) ask the per-iteration question, which has fast paths for tiles.
    let varies = va.symbols().iter().any(|s| ta.instance.contains(s));
    let one_map = same_task && !varies && (std::ptr::eq(a, b) || a.view == b.view);
    let answer = if one_map {
        let it = ia?;
        // The oracle bounds the iteration variable itself.
        let others: Vec<Iteration> = ranges
            .iter()
            .filter(|r| r.symbol != it.symbol)
            .cloned()
            .collect();
        let asm = assumptions_for(ir, &others, &[&va.subst(&it.symbol, &Expr::int(0))]);
        let answer = iterations_overlap(va, &it.symbol, (it.lo.clone(), it.hi.clone()), &asm);
        // Two different iterations, both in range, reaching one element.
        let other = primed(&it.symbol);
        let mut both = asm.clone();
        for s in [&it.symbol, &other] {
            both.push(Expr::sym(s), Cmp::Ge, it.lo.clone());
            both.push(Expr::sym(s), Cmp::Lt, it.hi.clone());
        }
        both.push(Expr::sym(&it.symbol), Cmp::Ne, Expr::sym(&other));
        checked(answer, va, &va.subst(&it.symbol, &Expr::sym(&other)), &both)?
    } else {
        let mut asm = assumptions_for(ir, &ranges, &[va, &vb]);
        for g in a.guards.iter().chain(&guards_b) {
            asm.push(g.lhs.clone(), g.cmp, g.rhs.clone());
        }
        for o in distinct.iter().filter(|o| o.assumed) {
            asm.push(o.first.clone(), Cmp::Ne, o.second.clone());
        }
        if let (true, Some(it), Some(name)) = (same_task, ia, second_symbol.as_ref()) {
            asm.push(Expr::sym(&it.symbol), Cmp::Ne, Expr::sym(name));
            // The two instances are iterations that run, also when an access does not
            // depend on which one it is (a `&mut` to the whole buffer): the witness
            // names them.
            for s in [&it.symbol, name] {
                asm.push(Expr::sym(s), Cmp::Ge, it.lo.clone());
                asm.push(Expr::sym(s), Cmp::Lt, it.hi.clone());
            }
        }
        checked(overlap(va, &vb, &asm), va, &vb, &asm)?
    };
    if !answer.may_overlap() {
        return None;
    }
    let proven = match answer.verdict {
        Verdict::MustAlias => true,
        Verdict::MayAlias => {
            !answer.undecided
                && answer.witness.is_some()
                && existential_only(&[va, &vb], &existential)
        }
        Verdict::NoAlias => false,
    };
    Some(Conflict {
        first: (ta, a),
        second: (tb, b),
        same_task,
        answer,
        proven,
        second_symbol,
        own: distinct,
        tied: tied_values,
    })
}

/// The loop variable whose different values of the two instances reach one element,
/// with those values under the witness.
fn own_values(c: &Conflict<'_>) -> Option<(String, i64, i64)> {
    let w = c.answer.witness.as_ref()?;
    let value = |s: &str| {
        w.symbols
            .iter()
            .find(|(k, _)| k == s)
            .map(|(_, v)| Expr::int(*v))
    };
    c.own.iter().find_map(|o| {
        let (vx, vy) = (
            o.first.map_symbols(&value).as_const()?,
            o.second.map_symbols(&value).as_const()?,
        );
        (vx != vy).then(|| (symbol_name(&o.var).to_string(), vx, vy))
    })
}

/// `answer`, unless its witness fails when substituted into `a` and `b`: the witness is
/// shown to the user, and one that does not hold is a bug of the oracle (an internal
/// error in tests), never a finding.
fn checked(answer: Answer, a: &View, b: &View, asm: &Assumptions) -> Option<Answer> {
    if let Some(w) = &answer.witness {
        if !witness_holds(a, b, asm, w) {
            debug_assert!(false, "alias_race: witness {w:?} does not hold");
            return None;
        }
    }
    Some(answer)
}

/// Whether `root` is the memory of a PyTorch-style tensor handle.
fn is_tensor_root(ir: &FnIr, root: RootId) -> bool {
    ir.values.iter().any(|v| {
        v.ty == TyClass::Tensor
            && matches!(v.kind, ValueKind::Root(r) | ValueKind::View(r) if r == root)
    })
}

/// Whether `value` is (derived from) a view with a stride-0 axis of more than one
/// element: a broadcast.
fn through_broadcast(ir: &FnIr, derived: &Derivations, value: ValueId) -> bool {
    let mut cur = value;
    let mut seen = BTreeSet::new();
    while seen.insert(cur) {
        let zero_axis = ir
            .values
            .get(cur.0 as usize)
            .and_then(|v| v.view.as_ref())
            .is_some_and(|v| {
                v.dims
                    .iter()
                    .any(|d| d.stride.as_const() == Some(0) && d.len.as_const() != Some(1))
            });
        if zero_axis {
            return true;
        }
        match derived.get(&cur) {
            Some((src, _)) => cur = *src,
            None => break,
        }
    }
    false
}

/// `row[1, 2]` (with the loop variables the witness picked, `k = 3`) for one side of a
/// witness.
fn witness_side(name: &str, a: &TaskAccess, index: &[i64], symbols: &[(String, i64)]) -> String {
    let own: Vec<String> = index.iter().take(a.own_dims).map(i64::to_string).collect();
    let mut text = if own.is_empty() {
        format!("`{name}`")
    } else {
        format!("`{name}[{}]`", own.join(", "))
    };
    let env = |s: &str| {
        symbols
            .iter()
            .find(|(k, _)| k == s)
            .map(|(_, v)| i128::from(*v))
    };
    let loops: Vec<String> = a
        .folded
        .iter()
        .zip(index.iter().skip(a.own_dims))
        .map(|((sym, lo), k)| {
            let first = lo.eval(&env).unwrap_or(0);
            format!("`{} = {}`", symbol_name(sym), first + i128::from(*k))
        })
        .collect();
    if !loops.is_empty() {
        text.push_str(&format!(" (at {})", loops.join(", ")));
    }
    text
}

fn verb(kind: AccessKind) -> &'static str {
    match kind {
        AccessKind::Read => "reads",
        AccessKind::Write => "writes",
        AccessKind::Claim => "takes a `&mut` to",
    }
}

/// The iteration value a witness gives `symbol`, in words.
fn iteration_words(symbol: &str, symbols: &[(String, i64)], one: &str) -> String {
    // The oracle lists the iteration pair last; an earlier entry is the free symbol.
    let value = symbols
        .iter()
        .rev()
        .find(|(k, _)| k == symbol)
        .map(|(_, v)| *v);
    let base = symbol_name(symbol.trim_end_matches('\''));
    match (value, base) {
        (Some(v), "it") if one == "iteration" => format!("iteration {v}"),
        (Some(v), _) if one != "iteration" => format!("{one} {v}"),
        (Some(v), name) => format!("iteration `{name} = {v}`"),
        (None, _) => format!("another {one}"),
    }
}

/// Symbols of the witness that are sizes, not iterations: the input it happens for.
fn size_words(w: &Witness, hidden: &BTreeSet<String>) -> Option<String> {
    let sizes: Vec<String> = w
        .symbols
        .iter()
        .filter(|(k, _)| !hidden.contains(k) && !k.contains('#') && !k.ends_with('\''))
        .map(|(k, v)| format!("`{k} = {v}`"))
        .collect();
    (!sizes.is_empty()).then(|| sizes.join(", "))
}

fn finding(
    cx: &LintContext<'_>,
    ir: &FnIr,
    derived: &Derivations,
    c: Conflict<'_>,
    pieces: bool,
) -> LintFinding {
    let (ta, a) = c.first;
    let (tb, b) = c.second;
    // Lead with the write.
    let ((ta, a), (tb, b)) = if a.kind != AccessKind::Read {
        ((ta, a), (tb, b))
    } else {
        ((tb, b), (ta, a))
    };
    let root = root_name(ir, a.root);
    let (name_a, name_b) = (
        access_name(cx, ir, derived, a),
        access_name(cx, ir, derived, b),
    );
    let may = if c.proven { "" } else { "may " };
    let writes = if c.proven { "writes" } else { "may write" };
    let replicated = c.same_task;
    let own = own_values(&c);
    let fixed = replicated
        && own.is_none()
        && std::ptr::eq(a, b)
        && ta
            .task
            .iteration
            .as_ref()
            .zip(a.view.as_ref())
            .is_some_and(|(it, v)| !v.mentions(&it.symbol));
    let broadcast = fixed && through_broadcast(ir, derived, a.value);
    let claim = a.kind == AccessKind::Claim || b.kind == AccessKind::Claim;
    let instances = if pieces {
        "pieces of a parallel producer"
    } else {
        "parallel iterations"
    };
    let message = match (replicated, c.both_write()) {
        _ if claim && replicated => format!(
            "{instances} {may}hold `&mut` references to the same elements of `{root}` at once"
        ),
        _ if claim => format!(
            "parallel tasks {may}hold `&mut` references to the same elements of `{root}` at once"
        ),
        _ if broadcast => format!(
            "parallel iterations {may}write the same elements of `{root}` through the broadcast view `{name_a}`"
        ),
        _ if fixed => format!(
            "parallel iterations {may}write the same elements of `{root}` through `{name_a}`"
        ),
        (true, true) => format!("{instances} {may}write overlapping elements of `{root}`"),
        (true, false) => format!(
            "a parallel iteration reads elements of `{root}` that another iteration {writes}"
        ),
        (false, true) => format!("parallel tasks {may}write overlapping elements of `{root}`"),
        (false, false) => {
            format!("a parallel task reads elements of `{root}` that another task {writes}")
        }
    };
    let one = if pieces { "piece" } else { "iteration" };
    let who = |t: &TaskFacts| {
        if replicated {
            format!("each {one}")
        } else {
            task_label(t)
        }
    };
    let primary = format!("{} {} `{name_a}` here", who(ta), verb(a.kind));
    let mut diagnostic = Diagnostic::new(
        Severity::Error,
        message,
        crate::diagnostic::Label::new(a.span, primary),
    )
    .with_code(format!("tensor_lint::{}", ALIAS_RACE.name));
    if a.span != b.span {
        diagnostic = diagnostic.with_label(
            b.span,
            format!("{} {} `{name_b}` here", who(tb), verb(b.kind)),
        );
    }
    if c.answer.undecided {
        diagnostic =
            diagnostic.with_note("the solver could not decide in time; treated as may alias");
    }
    if let Some(w) = &c.answer.witness {
        let mut hidden = BTreeSet::new();
        let side_a = witness_side(&name_a, a, &w.a, &w.symbols);
        let side_b = witness_side(&name_b, b, &w.b, &w.symbols);
        let (first, second) = if replicated {
            let it = ta.task.iteration.as_ref();
            let sym_a = it.map(|i| i.symbol.clone()).unwrap_or_default();
            let sym_b = c.second_symbol.clone().unwrap_or_else(|| primed(&sym_a));
            hidden.insert(sym_a.clone());
            hidden.insert(sym_b.clone());
            (
                iteration_words(&sym_a, &w.symbols, one),
                iteration_words(&sym_b, &w.symbols, one),
            )
        } else {
            (task_label(ta), task_label(tb))
        };
        // When the write was not the query's first side the witness sides are swapped.
        let (side_a, side_b) = if std::ptr::eq(a, c.first.1) {
            (side_a, side_b)
        } else {
            (
                witness_side(&name_a, a, &w.b, &w.symbols),
                witness_side(&name_b, b, &w.a, &w.symbols),
            )
        };
        let mut note = format!(
            "{first} {} {side_a} and {second} {} {side_b}, both element {} of `{root}`",
            verb(a.kind),
            verb(b.kind),
            w.element
        );
        if let Some(sizes) = size_words(w, &hidden) {
            note.push_str(&format!(" (with {sizes})"));
        }
        diagnostic = diagnostic.with_note(note);
    }
    let tied = c.tied.iter().find_map(|s| {
        let (_, at) = ir.element_values.iter().find(|(v, _)| v == s)?;
        let value = c
            .answer
            .witness
            .as_ref()
            .and_then(|w| w.symbols.iter().find(|(k, _)| k == s))
            .map(|(_, v)| *v);
        Some((symbol_name(s).to_string(), root_name(ir, at.root), value))
    });
    if let Some((var, source, value)) = &tied {
        let both = value.map_or_else(String::new, |v| format!(" (`{var} = {v}` in both)"));
        diagnostic = diagnostic.with_note(format!(
            "each {one} reads `{var}` from every element of `{source}`, not only from a part of its own, so two {one}s reach the same `{var}`{both}"
        ));
    }
    if claim {
        diagnostic = diagnostic.with_note(
            "a `&mut` promises that nothing else reaches its elements while it lives; two at once are undefined behaviour even when each thread then writes different elements",
        );
    }
    if let Some((var, source, _)) = &tied {
        let part = if pieces {
            format!("the part of `{source}` that `split` gave the piece")
        } else {
            format!("a part of `{source}` that is the iteration's own")
        };
        diagnostic = diagnostic.with_help(format!(
            "walk only {part}, so that no two {one}s take the same `{var}`"
        ));
    } else if claim {
        diagnostic = diagnostic
            .with_help(format!(
                "make each `&mut` cover only the elements its thread writes (`&mut *ptr.add(i)`), or split `{root}` with `split_at_mut` or `chunks_mut` before handing out the parts"
            ));
    } else if broadcast {
        diagnostic = diagnostic
            .with_note(format!(
                "`{name_a}` does not move with the iteration (a stride-0 axis), so every iteration reaches the same elements"
            ))
            .with_help(
                "write into an owned array (`.to_owned()`) or combine per-iteration results with a reduction instead of writing through a broadcast view",
            );
    } else if fixed {
        diagnostic = diagnostic
            .with_note(format!(
                "where `{name_a}` points does not depend on the iteration, so every iteration writes the same elements"
            ))
            .with_help(format!(
                "give each iteration its own elements of `{root}` (offset the writes by the iteration's index), or combine the per-iteration values with a reduction and write once"
            ));
    } else if let Some((var, x, y)) = own {
        diagnostic = diagnostic
            .with_note(format!(
                "each iteration walks its own `{var}`s, yet two different ones reach one element: `{var} = {x}` in one iteration and `{var} = {y}` in the other"
            ))
            .with_help(format!(
                "make the element written depend on all of `{var}`, or give each iteration all the `{var}`s that share an element of `{root}` (partition by the element written)"
            ));
    } else if ta.number == 0 || tb.number == 0 {
        diagnostic = diagnostic.with_help(format!(
            "write `{root}` from the scope body before the first `spawn`, or give the spawned tasks and the scope body disjoint parts with `split_at_mut`"
        ));
    } else if is_tensor_root(ir, a.root) {
        // Tensor handles have no borrow-checked split: the ranges must be made disjoint.
        let part = if replicated { "iteration" } else { "task" };
        diagnostic = diagnostic.with_help(format!(
            "give each {part} a `narrow` of `{root}` that starts where the previous one ends, so the ranges do not overlap"
        ));
    } else if replicated {
        diagnostic = diagnostic.with_help(format!(
            "give each iteration its own part of `{root}`: iterate with `par_chunks_mut`, `axis_iter_mut` or `axis_chunks_iter_mut` so the parts are disjoint and the borrow checker proves it"
        ));
    } else {
        diagnostic = diagnostic.with_help(format!(
            "split `{root}` with `split_at_mut` (or `split_at` on an array view) so the parts are disjoint and the borrow checker proves it"
        ));
    }
    LintFinding {
        lint: &ALIAS_RACE,
        proven: c.proven,
        diagnostic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbol_names_drop_the_ir_suffix() {
        assert_eq!(symbol_name("k#3"), "k");
        assert_eq!(symbol_name("n"), "n");
        assert_eq!(
            iteration_words("t#1'", &[("t#1'".into(), 2)], "iteration"),
            "iteration `t = 2`"
        );
        assert_eq!(
            iteration_words("it#4", &[("it#4".into(), 0)], "iteration"),
            "iteration 0"
        );
        assert_eq!(
            iteration_words("piece#3'", &[("piece#3'".into(), 1)], "piece"),
            "piece 1"
        );
    }
}
