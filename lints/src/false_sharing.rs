//! `false_sharing`: threads repeatedly writing distinct bytes of one cache line.

crate::declare_lint! {
    /// ### What it does
    /// Reports parallel tasks that write, inside a loop, distinct bytes that lie on one
    /// cache line (`cache-line-bytes` in the configuration, 64 by default): per-thread
    /// counters or accumulators packed in a `Vec` or array, struct fields written by
    /// different threads (also through the struct's own methods, and in a struct that
    /// keeps its slots in a `Vec` field beside its counters), small per-thread chunks
    /// rewritten in a loop. Elements that are pointers to objects of their own
    /// (`&[Arc<Stats>]`, `Vec<Box<Stats>>`) are not neighbours: each object is a
    /// separate allocation.
    ///
    /// Which writers count as different threads:
    /// - each task of `rayon::join`, each `spawn` on a `rayon::scope` or
    ///   `std::thread::scope` (one per iteration when spawned in a loop), and threads of
    ///   `std::thread::spawn` started with no `join` between them;
    /// - the items of a parallel iterator (`par_iter_mut`, `par_chunks_mut`,
    ///   `Zip::par_for_each`, `par_azip!`) only when there are about as many items as
    ///   threads: a count derived from `rayon::current_num_threads()` (or
    ///   `num_cpus::get()`), or a constant count of at most 64. Rayon hands each thread a
    ///   contiguous run of items, so in a longer iteration neighbouring items run on the
    ///   same thread and only the line at each end of a run is written by two threads.
    ///
    /// A write is a store or an atomic operation (`fetch_add`, `store`, `swap`,
    /// `compare_exchange`, ...), made by the task or by a method of the crate it calls
    /// (`slots[w].record(n)` where `record` bumps an atomic of `self`). Atomics never
    /// race, but they share lines like anything else.
    ///
    /// A `static` table of locks or atomics whose entry each call picks at run time
    /// (`&LOCKS[addr % LEN]`, a lock chosen by hashing an address or a key) is written
    /// by every thread that takes a lock in a loop: threads that pick different entries
    /// of one line still share it, so entries smaller than a line are reported. The same
    /// holds for a table of locks kept in a field of an object the threads share
    /// (`self.shards[i].write()`, `Vec<Mutex<T>>`): taking a lock, also a shared one,
    /// writes its lock word.
    ///
    /// Values a task reads at run time and owns by residue (`if key % parts == part {
    /// counts[key] += 1 }`, also through a helper such as `key & (n - 1) == part`) are
    /// interleaved: neighbouring values, on one line, belong to different tasks, so the
    /// line is written by all of them. Owning contiguous ranges (`key >= lo && key < hi`)
    /// meets only at range borders and is not reported.
    ///
    /// Struct fields are told apart for a struct value the function builds from plain
    /// values (`Stats { hits: 0, misses: 0 }`), and for a struct shared through `&T` or
    /// `Arc<T>` whose fields are all numbers, atomics, cells or padded slots, laid out in
    /// declaration order.
    ///
    /// Such boundary lines are not reported, nor are chunks of a line or more, elements
    /// padded to a line (`CachePadded`, `#[repr(align(N))]` with `N` at least the line),
    /// and values written once instead of in a loop.
    ///
    /// ### Why is this bad
    /// The program is correct but the cores fight over the line: every write invalidates
    /// the line in the other cores' caches, and a loop that should scale with the number
    /// of threads runs slower than on one thread.
    ///
    /// ### Example
    /// ```rust,ignore
    /// let mut hits = vec![0u64; rayon::current_num_threads()];
    /// hits.par_iter_mut().enumerate().for_each(|(t, h)| {
    ///     for p in chunk(points, t) {
    ///         *h += inside(p) as u64; // eight counters share one line
    ///     }
    /// });
    /// ```
    /// Use instead: accumulate in a local and store once, or pad each counter.
    /// ```rust,ignore
    /// let mut hits = vec![CachePadded::new(0u64); rayon::current_num_threads()];
    /// ```
    pub FALSE_SHARING = "false_sharing", Warn, Correctness,
    "threads repeatedly writing distinct bytes of one cache line"
}

/// The pass behind this lint.
pub const PASS: Option<crate::context::CheckFn> = Some(check);

use std::collections::BTreeSet;

use tensor_lint_analyzer::dataflow::parallel::{
    assumptions_for, primed, renamed, second_instance, AccessKind, TaskAccess, TaskFacts,
};
use tensor_lint_analyzer::dataflow::Derivations;
use tensor_lint_analyzer::ir::{FnIr, Iteration, Op, ParallelKind, Task};
use tensor_lint_analyzer::models::{self, THREAD_COUNT};
use tensor_lint_analyzer::oracle::{
    iterations_share_cache_line, overlap, share_cache_line, Answer, Atom, Cmp, Expr, OpKind,
    RootId, View,
};

use crate::context::{LintContext, LintFinding};
use crate::describe::{access_name, root_name, symbol_name, task_label};
use crate::diagnostic::{Diagnostic, Label, Severity};

fn check(cx: &LintContext<'_>, out: &mut Vec<LintFinding>) {
    let line = cx.cache_line_bytes.max(1);
    for ir in cx.functions() {
        let Some(facts) = cx.ir.facts(ir.id) else {
            continue;
        };
        let derived = &facts.derivations;
        for region in &facts.parallel.regions {
            let mut reported: BTreeSet<RootId> = BTreeSet::new();
            // Writes repeated by a task, to elements smaller than a line.
            let repeated = |a: &TaskAccess| {
                a.kind == AccessKind::Write
                    && (a.in_loop || region.in_loop)
                    && !is_padded(ir, a.root, line)
            };
            let writes = |t: &'_ TaskFacts| -> Vec<usize> {
                t.accesses
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| {
                        repeated(a)
                            // A place over the task's own loop variables left unfolded
                            // (`item / k`) says where one write lands, not which lines
                            // the task keeps writing.
                            && !a
                                .view
                                .as_ref()
                                .is_some_and(|v| v.symbols().iter().any(|s| t.instance.contains(s)))
                    })
                    .map(|(k, _)| k)
                    .collect()
            };
            for (ti, ta) in region.tasks.iter().enumerate() {
                let wa = writes(ta);
                // Entries of a `static` table each instance picks at run time.
                let it = ta.task.iteration.as_ref();
                if it.is_some() || spawned_in_loop(ir, &ta.task) {
                    for &k in &wa {
                        let a = &ta.accesses[k];
                        if reported.contains(&a.root) {
                            continue;
                        }
                        if let Some(answer) = entries_share(ir, (a, it), (a, it), line) {
                            reported.insert(a.root);
                            let only = Sharing {
                                answer: &answer,
                                why: None,
                                run_time: true,
                                help: None,
                            };
                            out.push(finding(cx, ir, derived, line, (ta, a), None, &only));
                        }
                    }
                }
                // Elements owned by residue (`cat % n == part`): neighbours belong to
                // different instances.
                if let Some(it) = ta.task.iteration.as_ref() {
                    for a in &ta.accesses {
                        if !repeated(a) || reported.contains(&a.root) {
                            continue;
                        }
                        if let Some((answer, why)) = interleaved(ir, ta, a, it, line) {
                            reported.insert(a.root);
                            let only = Sharing {
                                answer: &answer,
                                why: Some(why),
                                run_time: false,
                                help: Some(format!(
                                    "give each iteration a contiguous range of the values it owns, with bounds rounded to whole {line}-byte lines of `{}`, instead of every `n`-th one",
                                    root_name(ir, a.root)
                                )),
                            };
                            out.push(finding(cx, ir, derived, line, (ta, a), None, &only));
                        }
                    }
                }
                if let Some(it) = ta.task.iteration.as_ref().filter(|it| {
                    !region.kind.iterates() || slots_per_thread(it).is_some()
                }) {
                    for &k in &wa {
                        let a = &ta.accesses[k];
                        if reported.contains(&a.root) {
                            continue;
                        }
                        if let Some(answer) = iterations_share(ir, a, it, line) {
                            reported.insert(a.root);
                            let why = region.kind.iterates()
                                .then(|| slots_per_thread(it))
                                .flatten();
                            let only = Sharing {
                                answer: &answer,
                                why,
                                run_time: false,
                                help: None,
                            };
                            out.push(finding(cx, ir, derived, line, (ta, a), None, &only));
                        }
                    }
                }
                for tb in &region.tasks[ti + 1..] {
                    for &k in &wa {
                        for &m in &writes(tb) {
                            let (a, b) = (&ta.accesses[k], &tb.accesses[m]);
                            if a.root != b.root || reported.contains(&a.root) {
                                continue;
                            }
                            let its = (ta.task.iteration.as_ref(), tb.task.iteration.as_ref());
                            let entries = entries_share(ir, (a, its.0), (b, its.1), line);
                            let run_time = entries.is_some();
                            let answer =
                                entries.or_else(|| tasks_share(ir, (ta, a), (tb, b), line));
                            if let Some(answer) = answer {
                                reported.insert(a.root);
                                let pair = Sharing {
                                    answer: &answer,
                                    why: None,
                                    run_time,
                                    help: None,
                                };
                                out.push(finding(
                                    cx,
                                    ir,
                                    derived,
                                    line,
                                    (ta, a),
                                    Some((tb, b)),
                                    &pair,
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
}

/// An iteration count up to this many items is taken as about one item per worker
/// thread: machines rarely run more workers, and beyond it each thread's run of
/// contiguous items grows.
const PER_THREAD_ITEMS: i64 = 64;

/// Why the items of a data-parallel iteration run on different threads, when they do.
///
/// Rayon splits a parallel iterator into contiguous runs, one per worker, so
/// neighbouring items of a long iteration run on one thread and only the lines at the
/// ends of the runs are written by two threads: the boundary sharing that is not worth
/// reporting. Neighbours run on different threads when there are about as many items as
/// threads: a count derived from the thread count (`rayon::current_num_threads()`), or
/// a constant count of at most [`PER_THREAD_ITEMS`].
fn slots_per_thread(it: &Iteration) -> Option<String> {
    let count = &it.hi - &it.lo;
    if count.mentions(THREAD_COUNT) {
        return Some(format!(
            "the iteration has `{count}` items, one per worker thread, so neighbouring items are written by different threads"
        ));
    }
    let n = count.as_const()?;
    (2..=PER_THREAD_ITEMS).contains(&n).then(|| {
        format!(
            "the iteration has only {n} items, about one per worker thread, so neighbouring items are written by different threads"
        )
    })
}

/// Elements that each fill their own cache line: `CachePadded`, or a struct whose
/// `#[repr(align(N))]` (hence its size) is at least the line.
fn is_padded(ir: &FnIr, root: RootId, line: u32) -> bool {
    let Some(r) = ir.roots.get(root.0 as usize) else {
        return false;
    };
    r.elem_type.as_deref().is_some_and(models::is_padded_type) || r.elem_bytes >= line
}

/// Bytes from the first to the last byte one task instance writes, when known.
fn footprint(v: &View) -> Option<i64> {
    let mut reach: i64 = 0;
    for d in &v.dims {
        let len = d.len.as_const()?;
        if len <= 0 {
            return Some(0);
        }
        reach = reach.checked_add(d.stride.as_const()?.checked_abs()?.checked_mul(len - 1)?)?;
    }
    reach.checked_add(1)?.checked_mul(i64::from(v.elem_bytes))
}

/// A task writing less than a line per instance shares lines with its neighbours on
/// every write; larger ones meet only at their boundary lines, which is not reported.
fn small(v: &View, line: u32) -> bool {
    footprint(v).is_some_and(|b| b < i64::from(line))
}

fn iterations_share(ir: &FnIr, a: &TaskAccess, it: &Iteration, line: u32) -> Option<Answer> {
    let v = a.view.as_ref()?;
    if !small(v, line) || !v.mentions(&it.symbol) {
        // An instance that does not move with the iteration writes the same bytes:
        // that is a race, not false sharing.
        return None;
    }
    let asm = assumptions_for(ir, &[], &[&v.subst(&it.symbol, &Expr::int(0))]);
    let answer =
        iterations_share_cache_line(v, &it.symbol, (it.lo.clone(), it.hi.clone()), line, &asm);
    answer.may_overlap().then_some(answer)
}

/// A write of a replicated task placed by a value the task computes at run time
/// (`first[cat]` with `cat` read from a table) under a condition that gives the value to
/// the instance by its residue (`cat % n == part`): each instance owns every `n`-th
/// value, so neighbouring values, in one line, belong to different instances and every
/// line is written by several of them. Owning contiguous ranges meets only at the range
/// borders and is not reported.
fn interleaved(
    ir: &FnIr,
    t: &TaskFacts,
    a: &TaskAccess,
    it: &Iteration,
    line: u32,
) -> Option<(Answer, String)> {
    let va = a.view.as_ref()?;
    if !small(va, line) {
        return None;
    }
    let task = Expr::sym(&it.symbol);
    let residue = a.guards.iter().find_map(|g| {
        if g.cmp != Cmp::Eq {
            return None;
        }
        let other = if g.lhs == task {
            &g.rhs
        } else if g.rhs == task {
            &g.lhs
        } else {
            return None;
        };
        let (value, modulus) = as_remainder(other)?;
        let by_value = value
            .symbols()
            .iter()
            .any(|s| t.instance.contains(s) && va.mentions(s));
        by_value.then_some((value, modulus))
    })?;
    let second = second_instance(ir, t, it, a)?;
    let mut ranges = vec![it.clone()];
    ranges.extend(second.ranges.iter().cloned());
    let mut asm = assumptions_for(ir, &ranges, &[va, &second.view]);
    asm.push(task.clone(), Cmp::Ne, Expr::sym(&primed(&it.symbol)));
    for g in a.guards.iter().chain(&second.guards) {
        asm.push(g.lhs.clone(), g.cmp, g.rhs.clone());
    }
    // Writes that meet are a race (`alias_race`), not false sharing.
    if overlap(va, &second.view, &asm).may_overlap() {
        return None;
    }
    let answer = share_cache_line(va, &second.view, line, &asm);
    let (value, modulus) = residue;
    let (value, modulus) = (plain(&value), plain(&modulus));
    let why = format!(
        "each iteration takes the values `{value}` for which `{value} % {modulus}` is its own index, so neighbouring values, on one line, belong to different iterations"
    );
    answer.may_overlap().then_some((answer, why))
}

/// `e` as the code names it: symbols without the suffix that keeps them apart.
fn plain(e: &Expr) -> String {
    e.map_symbols(&|s| (symbol_name(s) != s).then(|| Expr::sym(symbol_name(s))))
        .to_string()
}

/// `(x, n)` when `e` is `x % n`.
fn as_remainder(e: &Expr) -> Option<(Expr, Expr)> {
    let (monomial, coefficient) = e.single_term()?;
    match (monomial, coefficient) {
        ([(Atom::Op(OpKind::Rem, x, n), 1)], 1) => Some(((**x).clone(), (**n).clone())),
        _ => None,
    }
}

fn tasks_share(
    ir: &FnIr,
    (ta, a): (&TaskFacts, &TaskAccess),
    (tb, b): (&TaskFacts, &TaskAccess),
    line: u32,
) -> Option<Answer> {
    let (va, vb) = (a.view.as_ref()?, b.view.as_ref()?);
    if !(small(va, line) || small(vb, line)) {
        return None;
    }
    let mut ranges: Vec<Iteration> = ta.task.iteration.iter().cloned().collect();
    let mut vb = vb.clone();
    if let Some(it) = &tb.task.iteration {
        ranges.push(prime(&mut vb, it));
    }
    let asm = assumptions_for(ir, &ranges, &[va, &vb]);
    // Writes that meet are a race (`alias_race`), not false sharing.
    if overlap(va, &vb, &asm).may_overlap() {
        return None;
    }
    let answer = share_cache_line(va, &vb, line, &asm);
    answer.may_overlap().then_some(answer)
}

/// Renames `it`'s symbol in `v` to its primed name (the other writer's instance) and
/// gives the renamed symbol's range.
fn prime(v: &mut View, it: &Iteration) -> Iteration {
    let name = primed(&it.symbol);
    *v = v.subst(&it.symbol, &Expr::sym(&name));
    renamed(it, name)
}

/// Whether `task` is spawned inside a loop of the code that spawns it, so that several
/// instances of it run at once even when the loop's count is not known.
fn spawned_in_loop(ir: &FnIr, task: &Task) -> bool {
    ir.bodies.iter().any(|body| {
        body.blocks.iter().any(|block| {
            body.in_own_loop(block)
                && block.stmts.iter().any(|s| match &s.op {
                    Op::Spawn { task: t, .. } => t.body == task.body,
                    Op::Parallel(r) => {
                        r.kind == ParallelKind::ThreadSpawn
                            && r.tasks.iter().any(|t| t.body == task.body)
                    }
                    _ => false,
                })
        })
    })
}

/// Atomic writes of entries of a `static` table that each writer picks at run time (a
/// lock chosen by address): two writers may pick two different entries of one line.
/// The second writer's indices (and iteration) are renamed, so that it picks its own.
fn entries_share(
    ir: &FnIr,
    (a, ita): (&TaskAccess, Option<&Iteration>),
    (b, itb): (&TaskAccess, Option<&Iteration>),
    line: u32,
) -> Option<Answer> {
    if !(a.atomic && b.atomic) || a.root != b.root {
        return None;
    }
    let (va, vb) = (a.view.as_ref()?, b.view.as_ref()?);
    let run_time = |v: &View| -> Vec<String> {
        v.symbols()
            .into_iter()
            .filter(|s| models::is_run_time_index(s))
            .collect()
    };
    let (ra, rb) = (run_time(va), run_time(vb));
    // One entry each, at least one of them chosen at run time.
    if !va.dims.is_empty() || !vb.dims.is_empty() || (ra.is_empty() && rb.is_empty()) {
        return None;
    }
    let range = |s: &str| ir.run_time_indices.iter().find(|it| it.symbol == s);
    let mut ranges: Vec<Iteration> = ra.iter().filter_map(|s| range(s)).cloned().collect();
    ranges.extend(ita.cloned());
    let mut vb = vb.clone();
    for it in rb.iter().filter_map(|s| range(s)).chain(itb) {
        ranges.push(prime(&mut vb, it));
    }
    let mut asm = assumptions_for(ir, &ranges, &[va, &vb]);
    // Two different entries: the same one is contention for the lock, not sharing.
    asm.push(va.offset.clone(), Cmp::Lt, vb.offset.clone());
    let answer = share_cache_line(va, &vb, line, &asm);
    answer.may_overlap().then_some(answer)
}

/// The type of the struct field `a` writes, when `a` writes a field of a struct object:
/// the field is named by the binding (`stats.valid`) the access was derived from.
fn struct_field_type(
    cx: &LintContext<'_>,
    ir: &FnIr,
    derived: &Derivations,
    a: &TaskAccess,
) -> Option<String> {
    let root = ir.roots.get(a.root.0 as usize)?;
    if root.elem_bytes != 1 {
        return None;
    }
    let item = cx.ir.struct_named(root.elem_type.as_deref()?)?;
    let mut cur = a.value;
    let mut seen = BTreeSet::new();
    while seen.insert(cur) {
        let field = ir
            .values
            .get(cur.0 as usize)
            .and_then(|v| v.name.as_deref())
            .and_then(|n| n.rsplit_once('.'))
            .and_then(|(_, f)| item.fields.iter().find(|fi| fi.name == f));
        if let Some(fi) = field {
            return Some(fi.ty_name.clone());
        }
        // A byte range a callee writes (`self.tail.fetch_add(..)` inside `push`): the
        // field at its offset.
        let offset = ir
            .values
            .get(cur.0 as usize)
            .and_then(|v| v.view.as_ref())
            .filter(|v| v.root == a.root)
            .and_then(|v| v.offset.as_const());
        if let Some(offset) = offset.filter(|_| cur == a.value && item.fields.len() > 1) {
            let places: Vec<_> = item.field_places().collect();
            match places
                .iter()
                .find(|&&(_, at, bytes)| (at..at + bytes).contains(&offset))
            {
                Some((fi, _, _)) => return Some(fi.ty_name.clone()),
                // A field of unknown size before it: its place is not known.
                None if places.len() < item.fields.len() => return None,
                None => {}
            }
        }
        cur = derived.get(&cur)?.0;
    }
    None
}

/// The oracle's answer for a shared line, with why the writers are different threads
/// when that is not plain from the region.
struct Sharing<'a> {
    answer: &'a Answer,
    why: Option<String>,
    /// A help of its own, where padding is not the fix.
    help: Option<String>,
    /// The writers pick their entries of a table at run time.
    run_time: bool,
}

fn finding(
    cx: &LintContext<'_>,
    ir: &FnIr,
    derived: &Derivations,
    line: u32,
    (ta, a): (&TaskFacts, &TaskAccess),
    other: Option<(&TaskFacts, &TaskAccess)>,
    sharing: &Sharing<'_>,
) -> LintFinding {
    let answer = sharing.answer;
    let root = root_name(ir, a.root);
    let name_a = access_name(cx, ir, derived, a);
    let elem = ir.roots.get(a.root.0 as usize);
    let elem_type = elem.and_then(|r| r.elem_type.clone());
    let message = match other {
        _ if sharing.run_time => format!(
            "threads repeatedly write distinct entries of `{root}`, picked at run time, that share a {line}-byte cache line"
        ),
        None => format!(
            "parallel iterations repeatedly write distinct elements of `{root}` that share a {line}-byte cache line"
        ),
        Some(_) => format!(
            "parallel tasks repeatedly write distinct parts of `{root}` that share a {line}-byte cache line"
        ),
    };
    let primary = match other {
        _ if sharing.run_time => {
            format!("each thread writes an entry of `{root}` here, on a line other threads write")
        }
        None => format!("each iteration writes `{name_a}` here, on a line its neighbours write"),
        Some(_) => format!("{} writes `{name_a}` here", task_label(ta)),
    };
    let mut diagnostic = Diagnostic::new(Severity::Warning, message, Label::new(a.span, primary))
        .with_code(format!("tensor_lint::{}", FALSE_SHARING.name));
    let mut inner_spans = Vec::new();
    for access in std::iter::once(a).chain(other.map(|(_, b)| b)) {
        if let Some(inner) = access.inner.filter(|s| !inner_spans.contains(s)) {
            inner_spans.push(inner);
            diagnostic = diagnostic.with_label(inner, "the write happens here, inside the call");
        }
    }
    if let Some((tb, b)) = other {
        let what = if sharing.run_time {
            format!("an entry of `{root}`")
        } else {
            format!("`{}`", access_name(cx, ir, derived, b))
        };
        diagnostic = diagnostic.with_label(
            b.span,
            format!("{} writes {what} here, on the same line", task_label(tb)),
        );
    }
    if let Some(w) = &answer.witness {
        let bytes = elem.map_or(1, |r| i64::from(r.elem_bytes.max(1)));
        let line_no = w.element.saturating_mul(bytes) / i64::from(line);
        let who = match other {
            _ if sharing.run_time => {
                "two threads that pick different entries (the index is computed at run time)"
                    .to_string()
            }
            None => {
                let it = ta.task.iteration.as_ref().map(|i| i.symbol.clone());
                let sym = it.unwrap_or_default();
                let value = |s: &str| {
                    w.symbols
                        .iter()
                        .rev()
                        .find(|(k, _)| k == s)
                        .map(|(_, v)| *v)
                };
                let base = symbol_name(&sym);
                let (i, j) = match (value(&sym), value(&primed(&sym))) {
                    (Some(x), Some(y)) => (x.min(y).to_string(), x.max(y).to_string()),
                    (x, y) => (
                        x.map_or_else(|| "?".to_string(), |v| v.to_string()),
                        y.map_or_else(|| "?".to_string(), |v| v.to_string()),
                    ),
                };
                if base == "it" {
                    format!("iterations {i} and {j}")
                } else {
                    format!("iterations `{base} = {i}` and `{base} = {j}`")
                }
            }
            Some((tb, _)) => format!("{} and {}", task_label(ta), task_label(tb)),
        };
        diagnostic = diagnostic.with_note(format!(
            "{who} write different bytes of line {line_no} of `{root}` (bytes {}..{})",
            line_no * i64::from(line),
            (line_no + 1) * i64::from(line)
        ));
    }
    if let Some(why) = &sharing.why {
        diagnostic = diagnostic.with_note(why.clone());
    }
    diagnostic = diagnostic.with_note(
        "every write takes the line away from the other cores, so the loop runs no faster on more threads",
    );
    let entry_type = elem_type.clone().unwrap_or_else(|| "T".to_string());
    let help = match struct_field_type(cx, ir, derived, a) {
        _ if sharing.help.is_some() => sharing.help.clone().unwrap_or_default(),
        _ if sharing.run_time => format!(
            "give each entry a line of its own (`crossbeam_utils::CachePadded<{entry_type}>` entries, or `#[repr(align({line}))]` on the entry type), so that threads picking different entries write different lines"
        ),
        Some(field_ty) => format!(
            "pad each field that its own thread writes to a line of its own (`crossbeam_utils::CachePadded<{field_ty}>` fields), or count in a local and store the field once after the loop"
        ),
        None if elem_type
            .as_deref()
            .is_some_and(|t| cx.ir.struct_named(t).is_some()) =>
        {
            let t = elem_type.as_deref().unwrap_or_default();
            format!(
                "give `{t}` a line of its own (`#[repr(align({line}))]` on `{t}`, or `crossbeam_utils::CachePadded<{t}>` elements), or accumulate in locals and store once after the loop"
            )
        }
        None => {
            let padded = elem_type.map_or_else(
                || "`crossbeam_utils::CachePadded::new(..)` around each element".to_string(),
                |t| format!("`crossbeam_utils::CachePadded<{t}>`"),
            );
            format!(
                "pad each element to its own line ({padded} or a `#[repr(align({line}))]` wrapper), or accumulate in a local and store once after the loop"
            )
        }
    };
    diagnostic = diagnostic.with_help(help);
    LintFinding {
        lint: &FALSE_SHARING,
        proven: true,
        diagnostic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_per_thread_needs_a_thread_sized_count() {
        let it = |hi: Expr| Iteration {
            symbol: "it".into(),
            lo: Expr::int(0),
            hi,
            value: None,
        };
        assert!(slots_per_thread(&it(Expr::sym(THREAD_COUNT))).is_some());
        assert!(slots_per_thread(&it(Expr::int(8))).is_some());
        assert!(slots_per_thread(&it(Expr::int(1000))).is_none());
        assert!(slots_per_thread(&it(Expr::sym("n"))).is_none());
    }

    #[test]
    fn footprint_counts_bytes_from_first_to_last_element() {
        let v = View::strided(RootId(0), 4, 0, &[4], &[1]);
        assert_eq!(footprint(&v), Some(16));
        assert!(small(&v, 64));
        let wide = View::strided(RootId(0), 4, 0, &[4096], &[1]);
        assert!(!small(&wide, 64));
    }
}
