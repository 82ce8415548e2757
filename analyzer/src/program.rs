//! The front end's entry point: [`analyze_crate`] builds the IR and dataflow facts of
//! every function of one crate ([`crate::ir::dump`] prints them for people).
//!
//! Functions are lowered twice: once without summaries to find the call graph, then
//! bottom-up over its strongly connected components with the summaries of their
//! callees, iterating inside recursive components until the summaries are stable.

use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::dataflow::FnFacts;
use crate::index::{FnAst, ItemIndex, StructItem};
use crate::ir::{FnId, FnIr};
use crate::lower::{lower_fn, LowerCtx};
use crate::models::Models;
use crate::source::{SourceError, SourceMap};
use crate::summary::{bottom_up_components, FnSummary};
use crate::syntax::CrateSources;

/// Rounds of summary iteration inside one recursive component before its summaries
/// are taken as they are (they only grow, so later rounds rarely change anything).
const MAX_SCC_ROUNDS: usize = 4;

/// What the analysis is told from outside.
#[derive(Clone, Debug)]
pub struct AnalysisOptions {
    pub cache_line_bytes: u32,
    /// Extra API models from `tensor-lint.toml`.
    pub models: Models,
    /// The features and test flag the code is compiled with, as far as known.
    pub cfg: crate::syntax::cfg::CfgSet,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            cache_line_bytes: 64,
            models: Models::default(),
            cfg: Default::default(),
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

/// Build the IR and facts of one crate on this thread. Never panics on any input;
/// problems with the input (a malformed `#[tensor_lint::kernel(assume(...))]`, an
/// annotation naming no parameter) are returned as [`SourceError`]s in the result.
/// [`crate::pipeline`] does the same with the crate's files spread over threads.
pub fn analyze_crate(
    krate: &CrateSources,
    // Spans in the syntax trees are all the IR needs; the map is part of the driver's
    // contract for facts that will need file text.
    _sources: &SourceMap,
    options: &AnalysisOptions,
) -> CrateIr {
    let (index, asts) = ItemIndex::build(krate);
    let mut lowerer = HereLowerer {
        index: &index,
        models: &options.models,
        cfg: &options.cfg,
        asts: &asts,
    };
    analyze_index(&krate.name, &index, options, &mut lowerer, 1)
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

/// Lowers on the calling thread, which parsed every file.
struct HereLowerer<'x, 'a> {
    index: &'x ItemIndex,
    models: &'x Models,
    cfg: &'x crate::syntax::cfg::CfgSet,
    asts: &'x [FnAst<'a>],
}

impl LowerFns for HereLowerer<'_, '_> {
    fn lower(&mut self, fns: &[usize], summaries: &SharedSummaries) -> Vec<Option<FnIr>> {
        let summaries = read(summaries);
        let ctx = LowerCtx {
            index: self.index,
            models: self.models,
            cfg: self.cfg,
            summaries: &summaries,
        };
        fns.iter()
            .map(|&f| lower_fn(&ctx, f, *self.asts.get(f)?))
            .collect()
    }
}

pub fn read(summaries: &SharedSummaries) -> RwLockReadGuard<'_, Vec<Option<FnSummary>>> {
    summaries.read().unwrap_or_else(|e| e.into_inner())
}

fn write(summaries: &SharedSummaries) -> RwLockWriteGuard<'_, Vec<Option<FnSummary>>> {
    summaries.write().unwrap_or_else(|e| e.into_inner())
}

/// The crate's analysis once its index is built: every function lowered without
/// summaries to find the call graph, then the call graph's strongly connected
/// components bottom-up, level by level. A component's callees outside it are on lower
/// levels and final, so the components of one level are lowered together, in one batch
/// that `lowerer` may spread over threads; inside a recursive component the functions
/// are lowered one after another until their summaries are stable. The result does not
/// depend on how `lowerer` spreads its batches.
pub(crate) fn analyze_index(
    name: &str,
    index: &ItemIndex,
    options: &AnalysisOptions,
    lowerer: &mut dyn LowerFns,
    threads: usize,
) -> CrateIr {
    let annotated: Vec<Option<FnSummary>> = (0..index.fns.len())
        .map(|c| {
            index
                .fn_item(c)
                .map(|item| FnSummary::from_annotations(&item.annotations))
        })
        .collect();
    let mut ir = analyze_functions(name, &annotated, options, lowerer, threads);
    ir.structs = index.structs.clone();
    ir.errors = index.errors.clone();
    ir
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

/// One source text parsed as a crate named `t`, for the tests of every module.
#[cfg(test)]
pub(crate) fn crate_of_text(text: &str) -> (CrateSources, SourceMap) {
    let mut sources = SourceMap::new();
    let file = sources.add("t.rs".into(), "t.rs".into(), text.into());
    let ast = crate::syntax::parse_file(file, text).expect("test source parses");
    let krate = CrateSources {
        name: "t".into(),
        files: vec![crate::syntax::ParsedFile {
            file,
            module_path: Vec::new(),
            ast,
        }],
    };
    (krate, sources)
}

/// Analyzes one source text as a crate, for the tests of every module.
#[cfg(test)]
pub(crate) fn analyze_text(text: &str) -> (CrateIr, SourceMap) {
    let (krate, sources) = crate_of_text(text);
    let ir = analyze_crate(&krate, &sources, &AnalysisOptions::default());
    (ir, sources)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Expr;

    #[test]
    fn annotation_errors_are_returned_not_panicked() {
        let (ir, _) = analyze_text("#[tensor_lint::free(q)] fn f(p: *mut u8) {}");
        assert_eq!(ir.errors.len(), 1);
        assert_eq!(ir.functions().count(), 1);
    }

    #[test]
    fn recursive_functions_get_summaries_from_each_other() {
        let (ir, _) = analyze_text(
            "fn a(n: usize, v: &mut [f32]) { if n > 0 { b(n - 1, v) } }
             fn b(n: usize, v: &mut [f32]) { v[0] = 0.0; if n > 0 { a(n - 1, v) } }",
        );
        for f in ir.functions() {
            let s = ir.summary(f.id).expect("summarized");
            assert!(s.writes.contains(&1), "{} {:?}", f.name, s);
        }
    }

    #[test]
    fn callees_say_which_elements_they_write_through_a_pointer() {
        let (ir, _) = analyze_text(
            "unsafe fn mark(bits: *mut u8, i: usize) { *bits.add(i >> 3) |= 1; }
             unsafe fn row(c: *mut f32, n: usize) { for j in 0..n { *c.add(j) = 0.0; } }
             unsafe fn anywhere(c: *mut f32, v: &[usize]) { *c.add(v[0]) = 0.0; }",
        );
        let summary = |name: &str| {
            let f = ir.functions().find(|f| f.name == name).expect("lowered");
            ir.summary(f.id).expect("summarized").clone()
        };
        let mark = summary("mark");
        assert_eq!(mark.write_regions.len(), 1, "{mark:?}");
        assert_eq!(mark.write_regions[0].offset, Expr::sym("i").div_floor(8));
        assert!(mark.write_regions[0].dims.is_empty());
        let row = summary("row");
        assert_eq!(row.write_regions.len(), 1, "{row:?}");
        assert_eq!(row.write_regions[0].dims[0].len, Expr::sym("n"));
        // A place read from memory is no place over the parameters: the write stays whole.
        let anywhere = summary("anywhere");
        assert!(
            anywhere.writes.contains(&0) && anywhere.write_regions.is_empty(),
            "{anywhere:?}"
        );
    }

    /// Lowers through the syntax front end in an order it is given, counting lowerings.
    struct Ordered<'x, 'a> {
        inner: HereLowerer<'x, 'a>,
        order: Vec<usize>,
        lowered: usize,
    }

    impl LowerFns for Ordered<'_, '_> {
        fn lower(&mut self, fns: &[usize], summaries: &SharedSummaries) -> Vec<Option<FnIr>> {
            self.lowered += fns.len();
            self.inner.lower(fns, summaries)
        }

        fn callees_first(&mut self, _n: usize) -> Option<Vec<usize>> {
            Some(self.order.clone())
        }
    }

    /// The summaries and lowerings count of the chain `top -> mid -> leaf` (functions
    /// 0, 1, 2, `leaf` writing its argument) lowered in `order`.
    fn chain_in_order(order: Option<Vec<usize>>) -> (Vec<FnSummary>, usize) {
        let text = "fn top(v: &mut [f32]) { mid(v) }
                    fn mid(v: &mut [f32]) { leaf(v) }
                    fn leaf(v: &mut [f32]) { v[0] = 1.0; }";
        let (krate, _) = crate_of_text(text);
        let (index, asts) = ItemIndex::build(&krate);
        let options = AnalysisOptions::default();
        let inner = HereLowerer {
            index: &index,
            models: &options.models,
            cfg: &options.cfg,
            asts: &asts,
        };
        let ir = match order {
            Some(order) => {
                let mut lowerer = Ordered {
                    inner,
                    order,
                    lowered: 0,
                };
                let ir = analyze_index("t", &index, &options, &mut lowerer, 1);
                return (ir.summaries, lowerer.lowered);
            }
            None => analyze_index("t", &index, &options, &mut { inner }, 1),
        };
        (ir.summaries, 0)
    }

    #[test]
    fn callees_lowered_first_are_not_lowered_again_and_a_wrong_order_is_corrected() {
        let (all_at_once, _) = chain_in_order(None);
        assert!(all_at_once[0].writes.contains(&0), "{all_at_once:?}");
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
