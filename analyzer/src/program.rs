//! The schedule of one crate's analysis: [`analyze_functions`] has the driver lower
//! every function (callees first, each with the summaries known), lowers again only
//! those whose callees' summaries changed after they were lowered, bottom-up over the
//! call graph's strongly connected components (iterating inside recursive ones until
//! the summaries are stable), and computes the dataflow facts of the result
//! ([`crate::ir::dump`] prints them for people).

use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::dataflow::FnFacts;
use crate::ir::structs::StructItem;
use crate::ir::{FnId, FnIr};
use crate::models::Models;
use crate::source::SourceError;
use crate::summary::{bottom_up_components, FnSummary};

/// Rounds of summary iteration inside one recursive component before its summaries
/// are taken as they are (they only grow, so later rounds rarely change anything).
const MAX_SCC_ROUNDS: usize = 4;

/// What the analysis is told from outside.
#[derive(Clone, Debug)]
pub struct AnalysisOptions {
    pub cache_line_bytes: u32,
    /// Extra API models from `tensor-lint.toml`.
    pub models: Models,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            cache_line_bytes: 64,
            models: Models::default(),
        }
    }
}

/// The IR and facts of one crate.
#[derive(Debug)]
pub struct CrateIr {
    pub name: String,
    fns: Vec<FnIr>,
    facts: Vec<FnFacts>,
    summaries: Vec<FnSummary>,
    /// The crate's structs with field types and `#[repr(align)]`.
    pub structs: Vec<StructItem>,
    /// Pointers into locals used after the locals are gone (compiler front end).
    pub dangling: Vec<crate::ir::DanglingPointer>,
    /// Values read out of nodes that drop them again (compiler front end).
    pub node_reads: Vec<crate::ir::ReadOutOfNode>,
    /// Pointers foreign getters lend, made owners of (compiler front end).
    pub lent_owned: Vec<crate::ir::LentPointerOwned>,
    /// Nodes retired while another field may still reach them (compiler front end).
    pub retired_reachable: Vec<crate::ir::RetiredReachable>,
    /// Slots counted before they are written (compiler front end).
    pub counted_slots: Vec<crate::ir::CountedBeforeWritten>,
    pub cache_line_bytes: u32,
    /// Problems with the input (malformed annotations).
    pub errors: Vec<SourceError>,
}

impl CrateIr {
    pub fn functions(&self) -> impl Iterator<Item = &FnIr> {
        self.fns.iter()
    }

    pub fn function(&self, id: FnId) -> Option<&FnIr> {
        self.fns.get(id.0 as usize)
    }

    pub fn facts(&self, id: FnId) -> Option<&FnFacts> {
        self.facts.get(id.0 as usize)
    }

    pub fn summary(&self, id: FnId) -> Option<&FnSummary> {
        self.summaries.get(id.0 as usize)
    }

    pub fn struct_named(&self, name: &str) -> Option<&StructItem> {
        self.structs.iter().find(|s| s.name == name)
    }
}

/// Summaries by function index, shared with the threads that lower; `None` while not
/// yet computed. Written only between lowering batches.
pub type SharedSummaries = Arc<RwLock<Vec<Option<FnSummary>>>>;

/// Lowers the functions it is asked for, from whatever front end holds them.
pub trait LowerFns {
    /// Lowers each of `fns` with the summaries as they are now; results in the order
    /// of `fns`.
    fn lower(&mut self, fns: &[usize], summaries: &SharedSummaries) -> Vec<Option<FnIr>>;

    /// Whether lowering has failed (a worker panicked): the schedule stops, and the
    /// caller raises the failure.
    fn failed(&self) -> bool {
        false
    }

    /// An order of the `n` functions with callees before their callers as far as the
    /// front end can tell before lowering, to lower them one by one; `None` to lower
    /// them all at once first.
    fn callees_first(&mut self, _n: usize) -> Option<Vec<usize>> {
        None
    }
}

pub fn read(summaries: &SharedSummaries) -> RwLockReadGuard<'_, Vec<Option<FnSummary>>> {
    summaries.read().unwrap_or_else(|e| e.into_inner())
}

fn write(summaries: &SharedSummaries) -> RwLockWriteGuard<'_, Vec<Option<FnSummary>>> {
    summaries.write().unwrap_or_else(|e| e.into_inner())
}

/// The bottom-up schedule over any front end: `annotated[f]` is the summary function
/// `f`'s annotations alone give (`None` for a function the front end cannot lower), and
/// `lowerer` lowers functions by index with the summaries known so far. The result has
/// no structs and no input errors; the front end adds its own.
pub fn analyze_functions(
    name: &str,
    annotated: &[Option<FnSummary>],
    options: &AnalysisOptions,
    lowerer: &mut dyn LowerFns,
    threads: usize,
) -> CrateIr {
    let n = annotated.len();
    let summaries: SharedSummaries = Arc::new(RwLock::new(vec![None; n]));
    let mut clock = Clock::new(n);
    // Pass 1 lowers every function once, giving the call graph: callees first when the
    // front end can tell the order, each with the summaries of those lowered before it;
    // otherwise all at once, with the annotations alone.
    let mut fns: Vec<Option<FnIr>> = vec![None; n];
    match lowerer.callees_first(n) {
        Some(order) => {
            for f in order.into_iter().filter(|&f| f < n) {
                if lowerer.failed() {
                    break;
                }
                lower_batch(&[f], &mut fns, lowerer, &mut clock, annotated, &summaries);
            }
        }
        None => {
            let all: Vec<usize> = (0..n).collect();
            lower_batch(&all, &mut fns, lowerer, &mut clock, annotated, &summaries);
        }
    }

    let edges: Vec<Vec<usize>> = fns
        .iter()
        .map(|ir| {
            ir.as_ref().map_or_else(Vec::new, |f| {
                f.callees.iter().map(|c| c.0 as usize).collect()
            })
        })
        .collect();

    // A function needs lowering again only if the summary of some callee changed after
    // it was lowered. Components are taken bottom-up, level by level: a component's
    // callees outside it are on lower levels and final by then.
    let comps = bottom_up_components(n, &edges);
    for level in levels(n, &edges, &comps) {
        if lowerer.failed() {
            break;
        }
        let (cycles, single): (Vec<&Vec<usize>>, Vec<&Vec<usize>>) = level
            .iter()
            .map(|&c| &comps[c])
            .partition(|comp| comp.len() > 1 || comp.iter().any(|&f| edges[f].contains(&f)));
        // Recursive components with a stale member are iterated member by member, each
        // on its own: one step lowers the next member of every component of the level
        // at once, with the stale singletons in the first step.
        let mut runs: Vec<CycleRun> = cycles
            .iter()
            .filter(|comp| comp.iter().any(|&f| clock.stale(f, &edges[f])))
            .map(|comp| CycleRun::new(comp))
            .collect();
        let mut first = true;
        loop {
            let mut batch: Vec<usize> = Vec::new();
            if first {
                batch.extend(
                    single
                        .iter()
                        .map(|comp| comp[0])
                        .filter(|&f| clock.stale(f, &edges[f])),
                );
            }
            batch.extend(runs.iter().filter_map(CycleRun::current));
            if batch.is_empty() {
                break;
            }
            first = false;
            let changed = lower_batch(&batch, &mut fns, lowerer, &mut clock, annotated, &summaries);
            for (&f, changed) in batch.iter().zip(changed) {
                if let Some(run) = runs.iter_mut().find(|run| run.current() == Some(f)) {
                    run.advance(changed);
                }
            }
        }
    }
    let fns: Vec<FnIr> = if lowerer.failed() {
        Vec::new()
    } else {
        fns.into_iter().flatten().collect()
    };
    let facts = crate::threads::parallel_map(&fns, threads, "tensor-lint-facts", FnFacts::compute);
    let summaries = std::mem::take(&mut *write(&summaries))
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect();
    CrateIr {
        name: name.to_string(),
        fns,
        facts,
        summaries,
        structs: Vec::new(),
        dangling: Vec::new(),
        node_reads: Vec::new(),
        lent_owned: Vec::new(),
        retired_reachable: Vec::new(),
        counted_slots: Vec::new(),
        cache_line_bytes: options.cache_line_bytes,
        errors: Vec::new(),
    }
}

/// Lowers `batch` with the summaries known now, records the results in `fns` and
/// their summaries; for each function, whether what its callers see changed.
fn lower_batch(
    batch: &[usize],
    fns: &mut [Option<FnIr>],
    lowerer: &mut dyn LowerFns,
    clock: &mut Clock,
    annotated: &[Option<FnSummary>],
    summaries: &SharedSummaries,
) -> Vec<bool> {
    for (&f, ir) in batch.iter().zip(lowerer.lower(batch, summaries)) {
        fns[f] = ir;
    }
    clock.lowered(batch);
    batch
        .iter()
        .map(|&f| clock.summarise(f, fns[f].as_ref(), annotated, summaries))
        .collect()
}

/// When each function was last lowered and when the summary its callers see (its
/// computed one, or its annotations' before it has one) last changed, on one counter.
struct Clock {
    now: u64,
    lowered_at: Vec<u64>,
    changed_at: Vec<u64>,
}

impl Clock {
    fn new(n: usize) -> Clock {
        Clock {
            now: 0,
            lowered_at: vec![0; n],
            changed_at: vec![0; n],
        }
    }

    fn lowered(&mut self, fns: &[usize]) {
        self.now += 1;
        for &f in fns {
            self.lowered_at[f] = self.now;
        }
    }

    /// Records the summary of `f` as lowered into `ir`; whether what its callers see
    /// changed.
    fn summarise(
        &mut self,
        f: usize,
        ir: Option<&FnIr>,
        annotated: &[Option<FnSummary>],
        summaries: &SharedSummaries,
    ) -> bool {
        let summary = ir.map(FnSummary::of);
        let mut known = write(summaries);
        let before = known[f].as_ref().or(annotated[f].as_ref());
        let changed = summary.as_ref().or(annotated[f].as_ref()) != before;
        known[f] = summary;
        if changed {
            self.now += 1;
            self.changed_at[f] = self.now;
        }
        changed
    }

    /// Whether `f` was lowered before the summary of one of its callees changed.
    fn stale(&self, f: usize, callees: &[usize]) -> bool {
        callees
            .iter()
            .any(|&c| self.changed_at[c] > self.lowered_at[f])
    }
}

/// A recursive component being iterated: its members are lowered in order, round after
/// round, until a round changes no summary or [`MAX_SCC_ROUNDS`] rounds are done.
struct CycleRun<'c> {
    comp: &'c [usize],
    next: usize,
    round: usize,
    changed: bool,
    done: bool,
}

impl<'c> CycleRun<'c> {
    fn new(comp: &'c [usize]) -> CycleRun<'c> {
        CycleRun {
            comp,
            next: 0,
            round: 0,
            changed: false,
            done: comp.is_empty(),
        }
    }

    /// The member to lower next, if the component is not done.
    fn current(&self) -> Option<usize> {
        (!self.done).then(|| self.comp[self.next])
    }

    /// The current member was lowered; `changed` says whether its summary changed.
    fn advance(&mut self, changed: bool) {
        self.changed |= changed;
        self.next += 1;
        if self.next == self.comp.len() {
            self.next = 0;
            self.round += 1;
            if !self.changed || self.round == MAX_SCC_ROUNDS {
                self.done = true;
            }
            self.changed = false;
        }
    }
}

/// The components (indices into `comps`, which is bottom-up) grouped by level: a
/// component's level is one more than the highest level of the components it calls.
fn levels(n: usize, edges: &[Vec<usize>], comps: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let mut comp_of = vec![0; n];
    for (c, comp) in comps.iter().enumerate() {
        for &f in comp {
            comp_of[f] = c;
        }
    }
    let mut level_of = vec![0usize; comps.len()];
    let mut levels: Vec<Vec<usize>> = Vec::new();
    for (c, comp) in comps.iter().enumerate() {
        // Bottom-up order puts every callee's component before its callers'.
        let level = comp
            .iter()
            .flat_map(|&f| &edges[f])
            .map(|&g| comp_of[g])
            .filter(|&d| d != c)
            .map(|d| level_of[d] + 1)
            .max()
            .unwrap_or(0);
        level_of[c] = level;
        if levels.len() <= level {
            levels.resize_with(level + 1, Vec::new);
        }
        levels[level].push(c);
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Annotations;

    /// Lowers the chain `top -> mid -> leaf` (functions 0, 1, 2) without a front end, in
    /// the order it is given (`None`: all at once), counting lowerings. `leaf` frees its
    /// argument; a caller frees it when the summary of its callee known at the time says
    /// the callee does, as a lowering that applies summaries at calls would.
    struct Chain {
        order: Option<Vec<usize>>,
        lowered: usize,
    }

    impl LowerFns for Chain {
        fn lower(&mut self, fns: &[usize], summaries: &SharedSummaries) -> Vec<Option<FnIr>> {
            self.lowered += fns.len();
            let known = read(summaries);
            fns.iter()
                .map(|&f| {
                    let callee_frees = known
                        .get(f + 1)
                        .and_then(Option::as_ref)
                        .is_some_and(|s| s.frees.contains(&0));
                    let frees = if f == 2 || callee_frees {
                        vec![0]
                    } else {
                        Vec::new()
                    };
                    let callees = if f < 2 {
                        vec![FnId(f as u32 + 1)]
                    } else {
                        Vec::new()
                    };
                    Some(FnIr {
                        annotations: Annotations {
                            frees,
                            ..Annotations::default()
                        },
                        callees,
                        ..FnIr::bare(FnId(f as u32), ["top", "mid", "leaf"][f])
                    })
                })
                .collect()
        }

        fn callees_first(&mut self, _n: usize) -> Option<Vec<usize>> {
            self.order.clone()
        }
    }

    /// The summaries of the chain lowered in `order`, and how many lowerings it took.
    fn chain_in_order(order: Option<Vec<usize>>) -> (Vec<FnSummary>, usize) {
        let mut lowerer = Chain { order, lowered: 0 };
        let annotated = vec![Some(FnSummary::default()); 3];
        let options = AnalysisOptions::default();
        let ir = analyze_functions("t", &annotated, &options, &mut lowerer, 1);
        (ir.summaries, lowerer.lowered)
    }

    #[test]
    fn callees_lowered_first_are_not_lowered_again_and_a_wrong_order_is_corrected() {
        let (all_at_once, _) = chain_in_order(None);
        assert!(all_at_once[0].frees.contains(&0), "{all_at_once:?}");
        // Callees first: each function once, with the same summaries.
        let (right, lowered) = chain_in_order(Some(vec![2, 1, 0]));
        assert_eq!(right, all_at_once);
        assert_eq!(lowered, 3);
        // Callers first: each caller is lowered again once its callee's summary is
        // known, to the same result.
        let (wrong, lowered) = chain_in_order(Some(vec![0, 1, 2]));
        assert_eq!(wrong, all_at_once);
        assert_eq!(lowered, 5);
    }

    #[test]
    fn default_options_use_64_byte_cache_lines() {
        assert_eq!(AnalysisOptions::default().cache_line_bytes, 64);
        assert!(!AnalysisOptions::default().models.has_user_rows());
    }
}
