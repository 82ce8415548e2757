//! Parallel regions as facts: the tasks of every `rayon::join`, scope, spawn and
//! parallel iteration of a function, with the memory each task instance reads and
//! writes as strided views, and what the alias oracle may assume when two accesses are
//! compared. Computed once per function; the race and false-sharing lints read it.

use std::collections::BTreeSet;

use super::derivations::{is_unchecked, Derivations};
use crate::ir::{
    Assumption, BodyId, BodyKind, Callee, FnIr, Iteration, Op, ParallelKind, RootOrigin, Task,
    Terminator, ValueId, ValueKind,
};
use crate::models;
use crate::oracle::{Assumptions, Cmp, Dim, Expr, RootId, View};
use crate::source::Span;

/// One task of a region with its accesses.
#[derive(Clone, Debug)]
pub struct TaskFacts {
    /// 1-based, as diagnostics number tasks; 0 for the scope body.
    pub number: usize,
    pub task: Task,
    pub accesses: Vec<TaskAccess>,
    /// Symbols that take another value in each instance of a replicated task besides
    /// its iteration's: the variables of the loops inside it and the integers it
    /// computes at run time (see [`instance_symbols`]).
    pub instance: BTreeSet<String>,
}

/// A parallel region of a function with the tasks whose accesses run concurrently.
#[derive(Clone, Debug)]
pub struct RegionFacts {
    pub kind: ParallelKind,
    /// The region itself is inside a loop: every task runs repeatedly.
    pub in_loop: bool,
    pub tasks: Vec<TaskFacts>,
}

/// The parallel regions of a function, each with the accesses of its concurrent tasks.
#[derive(Clone, Debug, Default)]
pub struct ParallelFacts {
    pub regions: Vec<RegionFacts>,
}

impl ParallelFacts {
    /// The regions of `ir`. The closure a `scope` runs is listed with the region's span;
    /// only what it does once a task has been spawned runs alongside the spawned tasks,
    /// so its accesses before the first spawn are left out.
    pub fn compute(ir: &FnIr, derived: &Derivations) -> ParallelFacts {
        ParallelFacts {
            regions: regions(ir, derived),
        }
    }
}

fn regions(ir: &FnIr, derived: &Derivations) -> Vec<RegionFacts> {
    let mut out = Vec::new();
    for body in &ir.bodies {
        // Threads spawned one after another run together until they are joined: the
        // spawns of a body with no `join` between them form one region.
        let joins: Vec<usize> = body
            .blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .filter(|s| match &s.op {
                Op::Call {
                    callee: Callee::Unknown(name),
                    ..
                } => models::is_thread_join(name),
                _ => false,
            })
            .map(|s| s.span.range().start)
            .collect();
        let mut spawned_threads: Option<(RegionFacts, usize)> = None;
        for block in &body.blocks {
            for stmt in &block.stmts {
                let Op::Parallel(region) = &stmt.op else {
                    continue;
                };
                if region.kind == ParallelKind::ThreadSpawn {
                    let at = stmt.span.range().start;
                    let joined = |since: usize| joins.iter().any(|&j| since < j && j < at);
                    let running = match spawned_threads.take() {
                        Some((group, last)) if last < at && !joined(last) => Some(group),
                        Some((group, _)) => {
                            out.push(group);
                            None
                        }
                        None => None,
                    };
                    let mut group = running.unwrap_or(RegionFacts {
                        kind: ParallelKind::ThreadSpawn,
                        in_loop: false,
                        tasks: Vec::new(),
                    });
                    // Repeated when every spawn of the group is (one alone: as before).
                    let repeated = body.in_own_loop(block);
                    group.in_loop = if group.tasks.is_empty() {
                        repeated
                    } else {
                        group.in_loop && repeated
                    };
                    for task in &region.tasks {
                        group.tasks.push(TaskFacts {
                            number: group.tasks.len() + 1,
                            task: task.clone(),
                            accesses: task_accesses(ir, derived, task),
                            instance: instance_symbols(ir, task),
                        });
                    }
                    spawned_threads = Some((group, stmt.span.range().end));
                    continue;
                }
                let mut tasks = Vec::new();
                let mut spawned = 0;
                for task in &region.tasks {
                    if region.kind == ParallelKind::Scope && task.span == stmt.span {
                        let accesses = after_first_spawn(ir, derived, task);
                        if !accesses.is_empty() {
                            tasks.push(TaskFacts {
                                number: 0,
                                task: task.clone(),
                                accesses,
                                instance: instance_symbols(ir, task),
                            });
                        }
                        continue;
                    }
                    spawned += 1;
                    tasks.push(TaskFacts {
                        number: spawned,
                        task: task.clone(),
                        accesses: task_accesses(ir, derived, task),
                        instance: instance_symbols(ir, task),
                    });
                }
                out.push(RegionFacts {
                    kind: region.kind,
                    in_loop: body.in_own_loop(block),
                    tasks,
                });
            }
        }
        out.extend(spawned_threads.map(|(group, _)| group));
    }
    out
}

/// The accesses of a scope body's own statements that can run after its first spawn:
/// those reachable from it that come after it in the source. A loop of spawns reaches
/// its own start again, but the code before the spawn in a later iteration works on
/// that iteration's part, which an earlier task is not given; leaving it out keeps
/// "prepare the part, then spawn its task" quiet.
fn after_first_spawn(ir: &FnIr, derived: &Derivations, scope: &Task) -> Vec<TaskAccess> {
    let Some(body) = ir.bodies.get(scope.body.0 as usize) else {
        return Vec::new();
    };
    let first = body.blocks.iter().enumerate().find_map(|(b, blk)| {
        blk.stmts
            .iter()
            .position(|s| matches!(s.op, Op::Spawn { .. }))
            .map(|k| (b, k))
    });
    let Some((start, k)) = first else {
        return Vec::new();
    };
    let spawn_end = body.blocks[start].stmts[k].span.range().end;
    let mut spans: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut seen = vec![false; body.blocks.len()];
    let mut work: Vec<usize> = Vec::new();
    let mut visit = |b: usize, from: usize, work: &mut Vec<usize>| {
        let Some(blk) = body.blocks.get(b) else {
            return;
        };
        for s in &blk.stmts[from.min(blk.stmts.len())..] {
            if s.span.range().start >= spawn_end {
                spans.insert((s.span.range().start, s.span.range().end));
            }
        }
        work.extend(blk.term.successors().iter().map(|s| s.0 as usize));
    };
    visit(start, k + 1, &mut work);
    while let Some(b) = work.pop() {
        if seen.get(b).copied().unwrap_or(true) {
            continue;
        }
        seen[b] = true;
        visit(b, 0, &mut work);
    }
    task_accesses(ir, derived, scope)
        .into_iter()
        .filter(|a| spans.contains(&(a.span.range().start, a.span.range().end)))
        .collect()
}

/// The integers `task` computes at run time (in `bodies`, its own code and the closures
/// and nested regions it runs), and, spawned on each round of a loop, that round's
/// values of the integers the loop changes: another value in each instance.
fn run_values_of(ir: &FnIr, task: &Task, bodies: &[BodyId]) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = ir
        .run_values
        .iter()
        .filter(|(b, _)| bodies.contains(b))
        .map(|(_, s)| s.clone())
        .collect();
    if task.iteration.is_some() {
        out.extend(ir.loop_carried.iter().cloned());
    }
    out
}

/// What varies between two instances of `task` besides its iteration variable: the
/// integers of [`run_values_of`] and the variables of the loops inside it.
pub fn instance_symbols(ir: &FnIr, task: &Task) -> BTreeSet<String> {
    let mut bodies = Vec::new();
    reached_bodies(ir, task.body, &mut bodies);
    let mut out = run_values_of(ir, task, &bodies);
    out.extend(
        ir.loop_ranges
            .iter()
            .filter(|(b, _)| bodies.contains(b))
            .map(|(_, it)| it.symbol.clone()),
    );
    out
}

/// The name a replicated task's second instance is known by in a query.
pub fn primed(symbol: &str) -> String {
    format!("{symbol}'")
}

/// What the oracle may assume for a query about `views`: the kernel's `assume(...)`,
/// the ranges of iteration and outer loop variables, and non-negative sizes.
pub fn assumptions_for(ir: &FnIr, ranges: &[Iteration], views: &[&View]) -> Assumptions {
    let mut asm = Assumptions::new();
    for a in &ir.annotations.assumptions {
        asm.push(a.lhs.clone(), a.cmp, a.rhs.clone());
    }
    let mut symbols: BTreeSet<String> = views.iter().flat_map(|v| v.symbols()).collect();
    let mut ranged = BTreeSet::new();
    let all_ranges = ranges.iter().chain(ir.loop_ranges.iter().map(|(_, it)| it));
    for it in all_ranges {
        if symbols.contains(&it.symbol) && ranged.insert(it.symbol.clone()) {
            asm.push(Expr::sym(&it.symbol), Cmp::Ge, it.lo.clone());
            asm.push(Expr::sym(&it.symbol), Cmp::Lt, it.hi.clone());
            symbols.extend(it.lo.symbols());
            symbols.extend(it.hi.symbols());
        }
    }
    // Sizes, lengths and indices are `usize` in the code these views come from.
    for s in symbols.difference(&ranged) {
        asm.push(Expr::sym(s), Cmp::Ge, Expr::int(0));
    }
    // A size the code divides by is not zero where the division runs.
    let divisors: BTreeSet<Expr> = views
        .iter()
        .flat_map(|v| {
            std::iter::once(&v.offset).chain(v.dims.iter().flat_map(|d| [&d.len, &d.stride]))
        })
        .flat_map(Expr::divisors)
        .collect();
    for d in divisors {
        asm.push(d, Cmp::Ge, Expr::int(1));
    }
    asm
}

/// A variable of a replicated task as both instances name it in a query, and whether
/// the two are taken to differ.
#[derive(Clone, Debug)]
pub struct Own {
    pub var: String,
    pub first: Expr,
    pub second: Expr,
    /// The values differ between instances: a value the task computes at run time and
    /// indexes with (the code gives each instance its own), or a loop over a range it
    /// computes at run time (`for row in start..end` with the bounds read from a table).
    pub assumed: bool,
}

/// The second instance of a replicated task in a query (see [`second_instance`]).
#[derive(Clone, Debug)]
pub struct SecondInstance {
    /// The access's view with everything that varies between instances renamed.
    pub view: View,
    /// The ranges of the renamed iteration and loop variables.
    pub ranges: Vec<Iteration>,
    /// The task's own variables, as both instances name them.
    pub own: Vec<Own>,
    /// The conditions around the access, renamed.
    pub guards: Vec<Assumption>,
    /// The values read from shared memory that both instances read alike (see
    /// [`tied_instance`]); empty for [`second_instance`].
    pub tied: Vec<String>,
}

/// The second instance of replicated task `t` (iteration `it`) making access `b`:
/// what varies between instances (the iteration, loop variables inside the task,
/// values it computes at run time) is renamed to its primed name.
pub fn second_instance(
    ir: &FnIr,
    t: &TaskFacts,
    it: &Iteration,
    b: &TaskAccess,
) -> Option<SecondInstance> {
    instance_keeping(ir, t, it, b, &BTreeSet::new())
}

/// [`second_instance`] at the moment both instances read the same element of memory
/// they share: the values read there ([`tied_values`]) are not renamed. `None` when
/// access `b` is placed by no such value.
pub fn tied_instance(
    ir: &FnIr,
    t: &TaskFacts,
    it: &Iteration,
    b: &TaskAccess,
) -> Option<SecondInstance> {
    let tied = tied_values(ir, t, it, b);
    if tied.is_empty() {
        return None;
    }
    instance_keeping(ir, t, it, b, &tied)
}

/// The values read at run time that place access `b` (`p.add(a)` with `a` read from
/// `index[j]`) and that both instances of task `t` read alike: the element is in memory
/// the caller passed in or a `static` table, at an index made of nothing the instance
/// owns but the variables of loops whose ranges are the same in every instance (`for
/// &a in shared_index` walked whole by each). Both instances reach every element of such
/// a loop, so both read each value.
fn tied_values(ir: &FnIr, t: &TaskFacts, it: &Iteration, b: &TaskAccess) -> BTreeSet<String> {
    let varies = |s: &str| s == it.symbol || t.instance.contains(s);
    let shared_loop = |s: &str| {
        ir.loop_ranges.iter().any(|(_, l)| {
            l.symbol == s && {
                let start = ir.loop_starts.iter().find(|(x, _)| x == s).map(|(_, e)| e);
                l.lo.symbols()
                    .iter()
                    .chain(&l.hi.symbols())
                    .chain(&start.map(Expr::symbols).unwrap_or_default())
                    .all(|x| !varies(x))
            }
        })
    };
    let Some(vb) = b.view.as_ref() else {
        return BTreeSet::new();
    };
    if !unconditional(ir, &t.task) {
        return BTreeSet::new();
    }
    let mut tied = BTreeSet::new();
    for s in vb.symbols().into_iter().filter(|s| t.instance.contains(s)) {
        let read = ir.element_values.iter().find(|(v, at)| {
            *v == s
                && ir
                    .roots
                    .get(at.root.0 as usize)
                    .is_some_and(|r| matches!(r.origin, RootOrigin::Param(_) | RootOrigin::Global))
                && at.symbols().iter().all(|x| !varies(x) || shared_loop(x))
        });
        if let Some((_, at)) = read {
            // The loop variables it is read at are the same in both instances too.
            tied.extend(at.symbols().into_iter().filter(|x| varies(x)));
            tied.insert(s);
        }
    }
    // A write guarded by other values of the instance's own (`if cat >= start && cat <
    // end` with the bounds read per instance) is placed by the partition they make,
    // which is not known here: the instances are told apart as the code intends.
    if guarded_by_own(t, &b.guards, &tied) {
        tied.clear();
    }
    tied
}

/// Whether the code of `task` takes every path through each loop it runs: the only
/// branches in it are loop conditions (a target leaves the loop). Any other test may
/// pick the elements each instance handles, in ways the guards do not all say.
fn unconditional(ir: &FnIr, task: &Task) -> bool {
    let mut bodies = Vec::new();
    reached_bodies(ir, task.body, &mut bodies);
    bodies.iter().all(|&b| {
        let body = ir.body(b);
        body.blocks.iter().all(|blk| match &blk.term {
            Terminator::Branch { targets, .. } => targets.iter().any(|t| {
                body.blocks
                    .get(t.0 as usize)
                    .is_some_and(|x| x.loop_depth < blk.loop_depth)
            }),
            _ => true,
        })
    })
}

/// Whether one of `guards` depends on a value that varies between instances of task
/// `t` other than those in `tied`.
pub fn guarded_by_own(t: &TaskFacts, guards: &[Assumption], tied: &BTreeSet<String>) -> bool {
    guards.iter().any(|g| {
        g.lhs
            .symbols()
            .iter()
            .chain(&g.rhs.symbols())
            .any(|s| t.instance.contains(s) && !tied.contains(s))
    })
}

fn instance_keeping(
    ir: &FnIr,
    t: &TaskFacts,
    it: &Iteration,
    b: &TaskAccess,
    tied: &BTreeSet<String>,
) -> Option<SecondInstance> {
    let vb = b.view.as_ref()?;
    let renames: std::collections::BTreeMap<String, Expr> = t
        .instance
        .iter()
        .filter(|s| !tied.contains(*s))
        .chain(std::iter::once(&it.symbol))
        .map(|s| (s.clone(), Expr::sym(&primed(s))))
        .collect();
    let lookup = |s: &str| renames.get(s).cloned();
    let rename = |e: &Expr| e.map_symbols(&lookup);
    let mentioned = vb.symbols();
    let view = vb.map_symbols(&lookup);
    let mut ranges = vec![renamed(it, primed(&it.symbol))];
    let mut own = Vec::new();
    let is_loop = |s: &str| ir.loop_ranges.iter().any(|(_, o)| o.symbol == s);
    for (_, l) in &ir.loop_ranges {
        if !t.instance.contains(&l.symbol)
            || !mentioned.contains(&l.symbol)
            || tied.contains(&l.symbol)
        {
            continue;
        }
        ranges.push(Iteration {
            symbol: primed(&l.symbol),
            lo: rename(&l.lo),
            hi: rename(&l.hi),
            value: None,
        });
        let start = ir
            .loop_starts
            .iter()
            .find(|(s, _)| *s == l.symbol)
            .map_or_else(|| Expr::int(0), |(_, e)| e.clone());
        // A range computed at run time by the instance itself, or one placed by the
        // iteration (`t * per..t * per + per`): each instance's own values.
        let run_time = start
            .symbols()
            .iter()
            .any(|s| t.instance.contains(s) && !is_loop(s));
        let placed = start.mentions(&it.symbol) || l.hi.mentions(&it.symbol);
        if run_time || placed {
            let value = &start + &Expr::sym(&l.symbol);
            own.push(Own {
                var: l.symbol.clone(),
                second: rename(&value),
                first: value,
                assumed: run_time,
            });
        }
    }
    // A value read at run time that the access is placed by (`first[cat]`): each
    // instance its own, as the code intends.
    for s in mentioned
        .iter()
        .filter(|s| t.instance.contains(*s) && !is_loop(s) && !tied.contains(*s))
    {
        own.push(Own {
            var: s.clone(),
            first: Expr::sym(s),
            second: Expr::sym(&primed(s)),
            assumed: true,
        });
    }
    let guards = b
        .guards
        .iter()
        .map(|g| Assumption {
            lhs: rename(&g.lhs),
            cmp: g.cmp,
            rhs: rename(&g.rhs),
        })
        .collect();
    Some(SecondInstance {
        view,
        ranges,
        own,
        guards,
        tied: tied
            .iter()
            .filter(|s| ir.element_values.iter().any(|(v, _)| v == *s))
            .cloned()
            .collect(),
    })
}

/// The iteration of a replicated task with its symbol renamed.
pub fn renamed(it: &Iteration, symbol: String) -> Iteration {
    Iteration {
        symbol,
        lo: it.lo.clone(),
        hi: it.hi.clone(),
        value: it.value,
    }
}

/// Whether a `MayAlias` answer is a certainty: the only symbols left free are
/// iteration and loop variables, so the witness names iterations that do run.
pub fn existential_only(views: &[&View], existential: &BTreeSet<String>) -> bool {
    views
        .iter()
        .flat_map(|v| v.symbols())
        .all(|s| existential.contains(&s))
}

/// Whether a task reads or writes the memory it accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
    /// A `&mut` made from a raw pointer: every element it covers is claimed.
    Claim,
}

/// One read or write a parallel task performs, with the elements it reaches.
#[derive(Clone, Debug)]
pub struct TaskAccess {
    pub kind: AccessKind,
    /// The value read or written.
    pub value: ValueId,
    pub root: RootId,
    /// The elements reached over the whole task instance: the access region, with the
    /// variables of serial loops inside the task folded into extra trailing dimensions
    /// (see [`TaskAccess::folded`]). `None` when the geometry is not known or a loop
    /// variable could not be folded.
    pub view: Option<View>,
    /// How many leading dimensions of `view` are the accessed value's own.
    pub own_dims: usize,
    /// The loop variables folded into the trailing dimensions, with their first value.
    pub folded: Vec<(String, Expr)>,
    /// Reached through a raw pointer, a view rebuilt from one (`from_raw_parts`,
    /// `from_shape_ptr`) or a tensor handle: memory the borrow checker does not see.
    pub unchecked: bool,
    /// Repeated inside the task: in a loop of the task's own code.
    pub in_loop: bool,
    /// An operation of an atomic (`fetch_add`, `store`, `compare_exchange`): never a
    /// race, but a write to its cache line all the same.
    pub atomic: bool,
    /// Where a callee performs the access it is summarised by, when it does.
    pub inner: Option<Span>,
    /// What the conditions of the `if`s around the access say (see [`FnIr::guards`]).
    pub guards: Vec<Assumption>,
    pub span: Span,
}

/// Bodies reached from `body` through closure calls and nested parallel regions
/// (spawns are tasks of their own and are not followed).
fn reached_bodies(ir: &FnIr, body: BodyId, out: &mut Vec<BodyId>) {
    if out.contains(&body) || ir.bodies.get(body.0 as usize).is_none() {
        return;
    }
    out.push(body);
    for block in &ir.body(body).blocks {
        for stmt in &block.stmts {
            match &stmt.op {
                Op::Call {
                    callee: Callee::Closure(b),
                    ..
                } => reached_bodies(ir, *b, out),
                Op::Parallel(region) => {
                    for t in &region.tasks {
                        reached_bodies(ir, t.body, out);
                    }
                }
                _ => {}
            }
        }
    }
}

/// Roots whose elements synchronise their own accesses (atomics, locks).
fn is_synchronised(ir: &FnIr, root: RootId) -> bool {
    ir.roots
        .get(root.0 as usize)
        .and_then(|r| r.elem_type.as_deref())
        .is_some_and(models::is_synchronised_type)
}

/// Folds the loop variables of `loops` that `view` mentions into trailing dimensions:
/// `offset + c*k` for `lo <= k < hi` is the dimension `(hi - lo, c)` from `offset + c*lo`.
pub(crate) fn fold_loops(view: View, loops: &[&Iteration]) -> Option<(View, Vec<(String, Expr)>)> {
    let mut view = view;
    let mut folded = Vec::new();
    for l in loops {
        if !view.mentions(&l.symbol) {
            continue;
        }
        let bounded = loops
            .iter()
            .any(|o| o.lo.mentions(&l.symbol) || o.hi.mentions(&l.symbol));
        let in_dims = view
            .dims
            .iter()
            .any(|d| d.len.mentions(&l.symbol) || d.stride.mentions(&l.symbol));
        if bounded || in_dims {
            return None;
        }
        let coef = view.offset.affine_coefficient(&l.symbol)?;
        view.offset = view.offset.subst(&l.symbol, &l.lo);
        view.dims.push(Dim {
            len: &l.hi - &l.lo,
            stride: coef,
        });
        folded.push((l.symbol.clone(), l.lo.clone()));
    }
    Some((view, folded))
}

/// Whether `view` mentions loop variables only in its offset, none of them bounding
/// another loop: then they can stay symbols, each within its loop's range.
fn unfoldable(view: &View, loops: &[&Iteration]) -> bool {
    loops.iter().all(|l| {
        !view.mentions(&l.symbol)
            || (!view
                .dims
                .iter()
                .any(|d| d.len.mentions(&l.symbol) || d.stride.mentions(&l.symbol))
                && !loops
                    .iter()
                    .any(|o| o.lo.mentions(&l.symbol) || o.hi.mentions(&l.symbol)))
    })
}

/// The reads and writes of one task instance, including those of the closures it calls
/// and the parallel regions nested in it. Crate-local callees are already part of the
/// task's ops through their summaries. Accesses to atomics and locked data are left
/// out: they synchronise.
fn task_accesses(ir: &FnIr, derived: &Derivations, task: &Task) -> Vec<TaskAccess> {
    let mut bodies = Vec::new();
    reached_bodies(ir, task.body, &mut bodies);
    // Serial loops and nested parallel iterations inside the task vary within one task
    // instance; their variables are folded into the access regions.
    let mut loops: Vec<&Iteration> = ir
        .loop_ranges
        .iter()
        .filter(|(b, _)| bodies.contains(b))
        .map(|(_, it)| it)
        .collect();
    let nested: Vec<&Iteration> = bodies
        .iter()
        .flat_map(|b| ir.body(*b).blocks.iter())
        .flat_map(|blk| blk.stmts.iter())
        .filter_map(|s| match &s.op {
            Op::Parallel(r) => Some(r.tasks.iter().filter_map(|t| t.iteration.as_ref())),
            _ => None,
        })
        .flatten()
        .collect();
    loops.extend(nested);
    let run_values = run_values_of(ir, task, &bodies);
    let mut out = Vec::new();
    for &b in &bodies {
        let nested_in_loop = b != task.body && body_called_in_loop(ir, &bodies, b);
        for block in &ir.body(b).blocks {
            let in_loop = nested_in_loop || ir.body(b).in_own_loop(block);
            for stmt in &block.stmts {
                let mut push = |kind: AccessKind,
                                value: ValueId,
                                region: Option<&View>,
                                atomic: bool,
                                inner: Option<Span>| {
                    let Some(v) = ir.values.get(value.0 as usize) else {
                        return;
                    };
                    let Some(root) = v.kind.root() else { return };
                    if !atomic && is_synchronised(ir, root) {
                        return;
                    }
                    // A pointer's own view is the element it points at; an access
                    // through it without a region (a callee's summary, an opaque use)
                    // may reach anywhere from there.
                    let region = match (&v.kind, region) {
                        (_, Some(r)) => Some(r.clone()),
                        (ValueKind::RawPtr(_), None) => None,
                        (_, None) => v.view.clone(),
                    };
                    let own_dims = region.as_ref().map_or(0, View::ndim);
                    // A place at an integer the task computes at run time (`for i in
                    // start..end` with `start` read from a table, `out[key]` with `key`
                    // read) keeps its loop variables: the race check relates them
                    // between instances.
                    let at_run_value = region
                        .as_ref()
                        .is_some_and(|r| r.symbols().iter().any(|s| run_values.contains(s)));
                    // So does a place that is no affine map of them (`item / k`): the
                    // query bounds each variable by its loop instead.
                    let folded = match region {
                        Some(r) if at_run_value => Some((r, Vec::new())),
                        Some(r) => fold_loops(r.clone(), &loops)
                            .or_else(|| unfoldable(&r, &loops).then(|| (r, Vec::new()))),
                        None => None,
                    };
                    let (view, folded) = match folded {
                        Some((v, f)) => (Some(v), f),
                        None => (None, Vec::new()),
                    };
                    let in_loop = in_loop || !folded.is_empty();
                    out.push(TaskAccess {
                        kind,
                        value,
                        root,
                        view,
                        own_dims,
                        folded,
                        unchecked: is_unchecked(ir, derived, value),
                        in_loop,
                        atomic,
                        inner,
                        guards: ir
                            .guards
                            .iter()
                            .find(|(s, _)| *s == stmt.span)
                            .map(|(_, g)| g.clone())
                            .unwrap_or_default(),
                        span: stmt.span,
                    });
                };
                match &stmt.op {
                    Op::Read { value, region } => {
                        push(AccessKind::Read, *value, region.as_ref(), false, None)
                    }
                    Op::Claim { value, region } => {
                        push(AccessKind::Claim, *value, region.as_ref(), false, None)
                    }
                    Op::Write { value, region } => {
                        push(AccessKind::Write, *value, region.as_ref(), false, None)
                    }
                    Op::Atomic {
                        value,
                        write,
                        inner,
                    } => {
                        let kind = if *write {
                            AccessKind::Write
                        } else {
                            AccessKind::Read
                        };
                        push(kind, *value, None, true, *inner);
                    }
                    Op::InPlace { dst, srcs, method } if !models::is_atomic_method(method) => {
                        for s in srcs {
                            push(AccessKind::Read, *s, None, false, None);
                        }
                        push(AccessKind::Write, *dst, None, false, None);
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// Whether nested body `b` runs repeatedly within one task instance: a closure defined
/// in (or a parallel region launched from) a loop of an enclosing body of the task.
fn body_called_in_loop(ir: &FnIr, bodies: &[BodyId], b: BodyId) -> bool {
    let mut cur = b;
    while let BodyKind::Closure { parent, .. } = &ir.body(cur).kind {
        if !bodies.contains(parent) {
            return false;
        }
        let outer = ir.body(*parent);
        let launched_in_loop = outer.blocks.iter().any(|blk| {
            outer.in_own_loop(blk)
                && blk.stmts.iter().any(|s| match &s.op {
                    Op::Call {
                        callee: Callee::Closure(c),
                        ..
                    } => *c == cur,
                    Op::Parallel(r) => r.tasks.iter().any(|t| t.body == cur),
                    _ => false,
                })
        });
        if launched_in_loop {
            return true;
        }
        cur = *parent;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: i64, cols: i64) -> View {
        View::contiguous(RootId(0), 4, vec![Expr::int(rows), Expr::int(cols)])
    }

    fn range(symbol: &str, lo: i64, hi: Expr) -> Iteration {
        Iteration {
            symbol: symbol.into(),
            lo: Expr::int(lo),
            hi,
            value: None,
        }
    }

    #[test]
    fn loop_variable_in_the_offset_folds_into_a_trailing_dimension() {
        let w = Expr::sym("w");
        let mut v = View {
            offset: Expr::int(0),
            dims: Vec::new(),
            ..m(4, 4)
        };
        v.offset = &(&Expr::sym("t") * &w) + &Expr::sym("k");
        let k = range("k", 0, w.clone());
        let (folded, names) = fold_loops(v, &[&k]).expect("affine in k");
        assert_eq!(folded.dims.len(), 1);
        assert_eq!(folded.dims[0].len, w);
        assert_eq!(folded.dims[0].stride.as_const(), Some(1));
        assert!(!folded.mentions("k"));
        assert_eq!(names, vec![("k".to_string(), Expr::int(0))]);
    }

    #[test]
    fn loop_bounded_by_another_loop_variable_is_not_folded() {
        let mut v = View {
            offset: Expr::int(0),
            dims: Vec::new(),
            ..m(4, 4)
        };
        v.offset = Expr::sym("j");
        let j = range("j", 0, Expr::sym("i"));
        let i = range("i", 0, Expr::int(4));
        assert!(fold_loops(v, &[&j, &i]).is_none());
    }
}
