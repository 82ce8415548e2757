//! The front end's entry points: [`analyze_crate`] builds the IR and dataflow facts of
//! every function of one crate, and [`dump_ir`] prints them for people (`cargo
//! tensor-lint --dump-ir FILE.rs[:FUNCTION]`).
//!
//! Functions are lowered twice: once without summaries to find the call graph, then
//! bottom-up over its strongly connected components with the summaries of their
//! callees, iterating inside recursive components until the summaries are stable.

use std::fmt::Write as _;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use crate::dataflow::{AllocState, FnFacts};
use crate::index::{FnAst, ItemIndex, StructItem};
use crate::ir::{
    BodyKind, Callee, EscapeKind, FnId, FnIr, Op, ReleaseKind, ReleasedBy, ReturnKind, RootOrigin,
    SliceSpec, Task, Terminator, ValueId, ValueKind, ViewOp,
};
use crate::lower::{lower_fn, LowerCtx};
use crate::models::ApiModel;
use crate::oracle::View;
use crate::source::{SourceError, SourceMap, Span};
use crate::summary::{bottom_up_components, FnSummary, ReturnSummary};
use crate::syntax::CrateSources;

/// Rounds of summary iteration inside one recursive component before its summaries
/// are taken as they are (they only grow, so later rounds rarely change anything).
const MAX_SCC_ROUNDS: usize = 4;

/// What the analysis is told from outside.
#[derive(Clone, Debug)]
pub struct AnalysisOptions {
    pub cache_line_bytes: u32,
    /// Extra API models from `tensor-lint.toml`.
    pub models: Vec<ApiModel>,
}

impl Default for AnalysisOptions {
    fn default() -> Self {
        AnalysisOptions {
            cache_line_bytes: 64,
            models: Vec::new(),
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
        asts: &asts,
    };
    analyze_index(&krate.name, &index, options, &mut lowerer, 1)
}

/// Summaries by function index, shared with the threads that lower; `None` while not
/// yet computed. Written only between lowering batches.
pub(crate) type SharedSummaries = Arc<RwLock<Vec<Option<FnSummary>>>>;

/// Lowers the functions it is asked for, wherever their syntax trees live.
pub(crate) trait LowerFns {
    /// Lowers each of `fns` with the summaries as they are now; results in the order
    /// of `fns`.
    fn lower(&mut self, fns: &[usize], summaries: &SharedSummaries) -> Vec<Option<FnIr>>;

    /// Whether lowering has failed (a worker panicked): the schedule stops, and the
    /// caller raises the failure.
    fn failed(&self) -> bool {
        false
    }
}

/// Lowers on the calling thread, which parsed every file.
struct HereLowerer<'x, 'a> {
    index: &'x ItemIndex,
    models: &'x [ApiModel],
    asts: &'x [FnAst<'a>],
}

impl LowerFns for HereLowerer<'_, '_> {
    fn lower(&mut self, fns: &[usize], summaries: &SharedSummaries) -> Vec<Option<FnIr>> {
        let summaries = read(summaries);
        let ctx = LowerCtx {
            index: self.index,
            models: self.models,
            summaries: &summaries,
        };
        fns.iter()
            .map(|&f| lower_fn(&ctx, f, *self.asts.get(f)?))
            .collect()
    }
}

pub(crate) fn read(summaries: &SharedSummaries) -> RwLockReadGuard<'_, Vec<Option<FnSummary>>> {
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
    let n = index.fns.len();
    let summaries: SharedSummaries = Arc::new(RwLock::new(vec![None; n]));
    let all: Vec<usize> = (0..n).collect();
    let mut fns: Vec<Option<FnIr>> = lowerer.lower(&all, &summaries);
    fns.resize_with(n, || None);

    // Pass 1 gave the call graph.
    let edges: Vec<Vec<usize>> = fns
        .iter()
        .map(|ir| {
            ir.as_ref().map_or_else(Vec::new, |f| {
                f.callees.iter().map(|c| c.0 as usize).collect()
            })
        })
        .collect();

    // The first pass lowered every call with the callee's annotations alone; a function
    // outside a cycle needs lowering again only if some callee's computed summary says
    // more than that.
    let summary_adds_to_annotations = |c: usize, summaries: &[Option<FnSummary>]| {
        let annotated = index
            .fn_item(c)
            .map(|item| FnSummary::from_annotations(&item.annotations));
        match (&summaries[c], annotated) {
            (Some(computed), Some(annotated)) => *computed != annotated,
            (Some(_), None) => true,
            (None, _) => false,
        }
    };
    let comps = bottom_up_components(n, &edges);
    for level in levels(n, &edges, &comps) {
        if lowerer.failed() {
            break;
        }
        let (cycles, single): (Vec<&Vec<usize>>, Vec<&Vec<usize>>) = level
            .iter()
            .map(|&c| &comps[c])
            .partition(|comp| comp.len() > 1 || comp.iter().any(|&f| edges[f].contains(&f)));
        // Recursive components are iterated member by member, each on its own: one
        // step lowers the next member of every component of the level at once, with
        // the singletons in the first step.
        let mut runs: Vec<CycleRun> = cycles.iter().map(|comp| CycleRun::new(comp)).collect();
        let mut first = true;
        loop {
            let mut batch: Vec<usize> = Vec::new();
            if first {
                let known = read(&summaries);
                batch.extend(single.iter().map(|comp| comp[0]).filter(|&f| {
                    edges[f]
                        .iter()
                        .any(|&c| summary_adds_to_annotations(c, &known))
                }));
            }
            batch.extend(runs.iter().filter_map(CycleRun::current));
            if batch.is_empty() && !first {
                break;
            }
            for (f, ir) in batch.iter().zip(lowerer.lower(&batch, &summaries)) {
                fns[*f] = ir;
            }
            let mut known = write(&summaries);
            if first {
                for comp in &single {
                    known[comp[0]] = fns[comp[0]].as_ref().map(FnSummary::of);
                }
                first = false;
            }
            for run in &mut runs {
                if let Some(f) = run.current() {
                    let summary = fns[f].as_ref().map(FnSummary::of);
                    let changed = summary != known[f];
                    known[f] = summary;
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
    let facts = crate::pipeline::parallel_map(&fns, threads, "tensor-lint-facts", FnFacts::compute);
    let summaries = std::mem::take(&mut *write(&summaries))
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect();
    CrateIr {
        name: name.to_string(),
        fns,
        facts,
        summaries,
        structs: index.structs.clone(),
        cache_line_bytes: options.cache_line_bytes,
        errors: index.errors.clone(),
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

/// Readable IR dump of every function, or only those whose name (or `Type::method`
/// path) matches `function`.
pub fn dump_ir(ir: &CrateIr, sources: &SourceMap, function: Option<&str>) -> String {
    let mut out = String::new();
    if function.is_none() {
        for s in &ir.structs {
            dump_struct(&mut out, s);
        }
    }
    for (f, facts) in ir.fns.iter().zip(&ir.facts) {
        if let Some(want) = function {
            let matches =
                f.name == want || f.path == want || f.path.ends_with(&format!("::{want}"));
            if !matches {
                continue;
            }
        }
        let summary = ir.summaries.get(f.id.0 as usize);
        dump_fn(&mut out, ir, f, facts, summary, sources);
    }
    out
}

fn dump_struct(out: &mut String, s: &StructItem) {
    let mut path = s.module.clone();
    path.push(s.name.clone());
    let align = s
        .repr_align
        .map_or_else(String::new, |a| format!(" align({a})"));
    let size = s
        .size
        .map_or_else(|| "size ?".to_string(), |b| format!("{b} bytes"));
    let fields: Vec<String> = s
        .fields
        .iter()
        .map(|f| match f.bytes {
            Some(b) => format!("{}: {} ({b} bytes)", f.name, f.ty_name),
            None => format!("{}: {}", f.name, f.ty_name),
        })
        .collect();
    let _ = writeln!(
        out,
        "struct {}{align}, {size} {{ {} }}",
        path.join("::"),
        fields.join(", ")
    );
}

fn loc(sources: &SourceMap, span: Span) -> String {
    if sources.files().nth(span.file.0 as usize).is_none() {
        return "?".into();
    }
    let lc = sources.get(span.file).line_col(span.lo as usize);
    format!("{}:{}", lc.line, lc.column)
}

fn view_text(v: &View) -> String {
    let dims: Vec<String> = v
        .dims
        .iter()
        .map(|d| format!("{}:{}", d.len, d.stride))
        .collect();
    format!("r{}+{}[{}]", v.root.0, v.offset, dims.join(", "))
}

fn dump_fn(
    out: &mut String,
    ir: &CrateIr,
    f: &FnIr,
    facts: &FnFacts,
    summary: Option<&FnSummary>,
    sources: &SourceMap,
) {
    let _ = writeln!(out, "fn {} @ {}", f.path, loc(sources, f.span));
    let a = &f.annotations;
    let mut ann = Vec::new();
    if a.kernel {
        ann.push("kernel".to_string());
    }
    for s in &a.assumptions {
        ann.push(format!("assume({} {} {})", s.lhs, s.cmp.as_str(), s.rhs));
    }
    if a.alloc {
        ann.push("alloc".into());
    }
    ann.extend(a.frees.iter().map(|i| format!("free(arg {i})")));
    ann.extend(a.view_of.iter().map(|i| format!("view(of arg {i})")));
    ann.extend(a.inplace.iter().map(|i| format!("inplace(arg {i})")));
    if !ann.is_empty() {
        let _ = writeln!(out, "  annotations: {}", ann.join(", "));
    }
    if f.truncated {
        let _ = writeln!(out, "  truncated: parts nested too deeply are unknown");
    }
    if !f.roots.is_empty() {
        let _ = writeln!(out, "  roots:");
    }
    for r in &f.roots {
        let origin = match &r.origin {
            RootOrigin::Alloc => format!("alloc @ {}", loc(sources, r.span)),
            RootOrigin::Param(i) => format!("param {i}"),
            RootOrigin::Static => "static".into(),
            RootOrigin::Unknown => "unknown".into(),
        };
        let shape = r.shape.as_ref().map_or_else(
            || "?".to_string(),
            |s| {
                format!(
                    "[{}]",
                    s.iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            },
        );
        let released = match &r.released_by {
            ReleasedBy::Drop => "drop".to_string(),
            ReleasedBy::Dealloc => "dealloc".into(),
            ReleasedBy::BoxFromRaw => "Box::from_raw".into(),
            ReleasedBy::Function(name) => name.clone(),
            ReleasedBy::NotOwned => "not owned".into(),
        };
        let grad = if r.requires_grad {
            ", requires grad"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "    r{} `{}`: {origin}, {}-byte elements, shape {shape}, released by {released}{grad}",
            r.id.0, r.name, r.elem_bytes
        );
    }
    if let Some(s) = summary {
        let text = summary_text(s);
        if !text.is_empty() {
            let _ = writeln!(out, "  summary: {text}");
        }
    }
    for (b, body) in f.bodies.iter().enumerate() {
        let params: Vec<String> = body.params.iter().map(|&p| value_text(f, p)).collect();
        match &body.kind {
            BodyKind::Function => {
                let _ = writeln!(out, "  body{b} (fn {}):", params.join(", "));
            }
            BodyKind::Closure { parent, captures } => {
                let caps: Vec<String> = captures.iter().map(|&c| f.value_name(c)).collect();
                let _ = writeln!(
                    out,
                    "  body{b} (closure in body{} |{}| captures [{}]):",
                    parent.0,
                    params.join(", "),
                    caps.join(", ")
                );
            }
        }
        let preds = body.predecessors();
        for (k, block) in body.blocks.iter().enumerate() {
            // Dead blocks (nothing jumps there, nothing in them) are noise.
            if k != 0 && preds[k].is_empty() && block.stmts.is_empty() {
                continue;
            }
            let depth = if block.loop_depth > 0 {
                format!(" (loop depth {})", block.loop_depth)
            } else {
                String::new()
            };
            let _ = writeln!(out, "    bb{k}{depth}:");
            for stmt in &block.stmts {
                let _ = writeln!(
                    out,
                    "      {}  @ {}",
                    op_text(ir, f, &stmt.op),
                    loc(sources, stmt.span)
                );
            }
            let _ = writeln!(
                out,
                "      {}  @ {}",
                term_text(f, &block.term),
                loc(sources, block.term_span)
            );
        }
    }
    dump_facts(out, f, facts);
}

fn summary_text(s: &FnSummary) -> String {
    let set = |name: &str, v: &std::collections::BTreeSet<usize>| {
        (!v.is_empty()).then(|| format!("{name} {:?}", v.iter().collect::<Vec<_>>()))
    };
    let mut parts: Vec<String> = [
        set("reads", &s.reads),
        set("writes", &s.writes),
        set("inplace", &s.inplace),
        set("frees", &s.frees),
        set("escapes", &s.escapes),
    ]
    .into_iter()
    .flatten()
    .collect();
    match &s.returns {
        ReturnSummary::Nothing => {}
        ReturnSummary::ViewOf(i) => parts.push(format!("returns view of arg {i}")),
        ReturnSummary::Alloc(_) => parts.push("returns new memory".into()),
    }
    parts.join(", ")
}

fn dump_facts(out: &mut String, f: &FnIr, facts: &FnFacts) {
    let mut lines = Vec::new();
    for (k, v) in f.values.iter().enumerate() {
        let roots = facts.points_to.roots(ValueId(k as u32));
        if roots.len() > 1 && v.name.is_some() {
            let rs: Vec<String> = roots.iter().map(|r| format!("r{}", r.0)).collect();
            lines.push(format!(
                "    {} may point to {}",
                f.value_name(ValueId(k as u32)),
                rs.join(", ")
            ));
        }
    }
    let owned: Vec<usize> = f
        .roots
        .iter()
        .enumerate()
        .filter(|(_, r)| r.origin == RootOrigin::Alloc)
        .map(|(i, _)| i)
        .collect();
    if let (Some(body), Some(states)) = (f.bodies.first(), facts.alloc.first()) {
        for (k, block) in body.blocks.iter().enumerate() {
            let Terminator::Return { kind, .. } = block.term else {
                continue;
            };
            let end = states.at_end(
                f,
                crate::ir::BodyId(0),
                crate::ir::BlockId(k as u32),
                &facts.points_to,
            );
            if end.iter().all(|s| *s == AllocState::default()) {
                continue;
            }
            let parts: Vec<String> = owned
                .iter()
                .filter_map(|&r| end.get(r).map(|s| format!("r{r}: {}", s.describe())))
                .collect();
            if !parts.is_empty() {
                lines.push(format!(
                    "    at {} in bb{k}: {}",
                    return_kind(kind),
                    parts.join(", ")
                ));
            }
        }
    }
    if let (Some(live), Some(body)) = (facts.liveness.first(), f.bodies.first()) {
        let preds = body.predecessors();
        for (k, set) in live.live_in.iter().enumerate() {
            let names: Vec<String> = set
                .iter()
                .filter(|v| {
                    f.values
                        .get(v.0 as usize)
                        .is_some_and(|x| x.kind.is_memory() && x.name.is_some())
                })
                .map(|v| f.value_name(v))
                .collect();
            let reached = k == 0 || preds.get(k).is_some_and(|p| !p.is_empty());
            if !names.is_empty() && reached {
                lines.push(format!("    live into bb{k}: {}", names.join(", ")));
            }
        }
    }
    if !lines.is_empty() {
        let _ = writeln!(out, "  facts:");
        for l in lines {
            let _ = writeln!(out, "{l}");
        }
    }
}

fn return_kind(k: ReturnKind) -> &'static str {
    match k {
        ReturnKind::End => "return",
        ReturnKind::Early => "early return",
        ReturnKind::Try => "`?` return",
    }
}

/// `name%3: view r0+0[n:1]`.
fn value_text(f: &FnIr, v: ValueId) -> String {
    let Some(val) = f.values.get(v.0 as usize) else {
        return format!("%{}", v.0);
    };
    let kind = match &val.kind {
        ValueKind::Unknown => "unknown".to_string(),
        ValueKind::Scalar => match &val.int {
            Some(i) => format!("scalar = {i}"),
            None => "scalar".into(),
        },
        ValueKind::Root(r) => format!("owns r{}", r.0),
        ValueKind::View(r) => format!("view of r{}", r.0),
        ValueKind::RawPtr(Some(r)) => format!("ptr into r{}", r.0),
        ValueKind::RawPtr(None) => "ptr of unknown provenance".into(),
        ValueKind::Closure(b) => format!("closure body{}", b.0),
        ValueKind::ScopeHandle => "scope handle".into(),
    };
    match &val.view {
        Some(view) => format!("{}: {kind} {}", f.value_name(v), view_text(view)),
        None => format!("{}: {kind}", f.value_name(v)),
    }
}

fn region_text(r: &Option<View>) -> String {
    r.as_ref()
        .map_or_else(String::new, |v| format!(" at {}", view_text(v)))
}

fn slice_text(specs: &[SliceSpec]) -> String {
    let parts: Vec<String> = specs
        .iter()
        .map(|s| match s {
            SliceSpec::Range { start, end, step } => {
                let a = start.as_ref().map_or_else(String::new, |e| e.to_string());
                let b = end.as_ref().map_or_else(String::new, |e| e.to_string());
                if step.as_const() == Some(1) {
                    format!("{a}..{b}")
                } else {
                    format!("{a}..{b};{step}")
                }
            }
            SliceSpec::Index(i) => i.to_string(),
            SliceSpec::NewAxis => "NewAxis".into(),
        })
        .collect();
    format!("s![{}]", parts.join(", "))
}

fn view_op_text(how: &ViewOp) -> String {
    let list = |xs: &[crate::oracle::Expr]| {
        xs.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match how {
        ViewOp::Whole => "whole".into(),
        ViewOp::Slice(specs) => slice_text(specs),
        ViewOp::Transpose => "transpose".into(),
        ViewOp::Permute(order) => format!("permute {order:?}"),
        ViewOp::Broadcast(shape) => format!("broadcast [{}]", list(shape)),
        ViewOp::Reshape(shape) => format!("reshape [{}]", list(shape)),
        ViewOp::Diag => "diag".into(),
        ViewOp::Split { axis, at, second } => {
            format!(
                "split axis {axis} at {at} ({})",
                if *second { "second" } else { "first" }
            )
        }
        ViewOp::Iter {
            axis,
            chunk: None,
            index,
        } => format!("item {index} of axis {axis}"),
        ViewOp::Iter {
            axis,
            chunk: Some(c),
            index,
        } => format!("chunk {index} of size {c} along axis {axis}"),
        ViewOp::Offset(d) => format!("offset {d}"),
        ViewOp::FromRaw {
            shape,
            strides: None,
        } => format!("from raw [{}]", list(shape)),
        ViewOp::FromRaw {
            shape,
            strides: Some(s),
        } => format!("from raw [{}] strides [{}]", list(shape), list(s)),
        ViewOp::Opaque(name) => format!("opaque `{name}`"),
    }
}

fn task_text(t: &Task) -> String {
    match &t.iteration {
        Some(it) => format!("body{} for {} in {}..{}", t.body.0, it.symbol, it.lo, it.hi),
        None => format!("body{}", t.body.0),
    }
}

fn op_text(ir: &CrateIr, f: &FnIr, op: &Op) -> String {
    let n = |v: &ValueId| f.value_name(*v);
    match op {
        Op::Alloc { dst, root, size } => {
            let size = size
                .as_ref()
                .map_or_else(|| "?".to_string(), |s| s.to_string());
            format!("{} = alloc r{} size {size}", value_text(f, *dst), root.0)
        }
        Op::Release { value, how } => {
            let how = match how {
                ReleaseKind::Drop => "drop".to_string(),
                ReleaseKind::Dealloc => "dealloc".into(),
                ReleaseKind::BoxFromRaw => "Box::from_raw".into(),
                ReleaseKind::Function(name) => format!("`{name}`"),
                ReleaseKind::ScopeEnd => "scope end".into(),
            };
            format!("release {} by {how}", n(value))
        }
        Op::View { dst, src, how } => format!(
            "{} = view {} {}",
            value_text(f, *dst),
            n(src),
            view_op_text(how)
        ),
        Op::Read { value, region } => format!("read {}{}", n(value), region_text(region)),
        Op::Write { value, region } => format!("write {}{}", n(value), region_text(region)),
        Op::InPlace { dst, srcs, method } => {
            let s: Vec<String> = srcs.iter().map(n).collect();
            format!("inplace `{method}` {} from [{}]", n(dst), s.join(", "))
        }
        Op::Escape { value, how } => {
            let how = match how {
                EscapeKind::Returned => "returned".to_string(),
                EscapeKind::Stored => "stored".into(),
                EscapeKind::PassedOn(name) => format!("passed to `{name}`"),
                EscapeKind::Leaked(name) => format!("leaked by `{name}`"),
            };
            format!("escape {} {how}", n(value))
        }
        Op::Parallel(region) => {
            let tasks: Vec<String> = region.tasks.iter().map(task_text).collect();
            format!("parallel {:?} [{}]", region.kind, tasks.join("; "))
                .replace("parallel ParIter", "parallel par-iter")
        }
        Op::Spawn { scope, task } => format!("spawn {} on {}", task_text(task), n(scope)),
        Op::Call { dst, callee, args } => {
            let callee = match callee {
                Callee::Local(id) => match ir.function(*id) {
                    Some(callee) => format!("fn {}", callee.path),
                    None => format!("fn#{}", id.0),
                },
                Callee::Closure(b) => format!("closure body{}", b.0),
                Callee::Unknown(name) => format!("`{name}`"),
            };
            let a: Vec<String> = args.iter().map(n).collect();
            match dst {
                Some(d) => format!("{} = call {callee}({})", n(d), a.join(", ")),
                None => format!("call {callee}({})", a.join(", ")),
            }
        }
        Op::Assign { dst, src } => format!("{} = {}", n(dst), n(src)),
        Op::RequiresGrad { value, on } => format!("requires_grad {} = {on}", n(value)),
        Op::Use { value } => format!("use {}", n(value)),
        Op::AssumeNull { value } => format!("assume {} is null", n(value)),
    }
}

fn term_text(f: &FnIr, t: &Terminator) -> String {
    match t {
        Terminator::Goto(b) => format!("goto bb{}", b.0),
        Terminator::Branch { cond, targets } => {
            let ts: Vec<String> = targets.iter().map(|b| format!("bb{}", b.0)).collect();
            match cond {
                Some(c) => format!("branch {} -> [{}]", f.value_name(*c), ts.join(", ")),
                None => format!("branch [{}]", ts.join(", ")),
            }
        }
        Terminator::Return { value, kind } => match value {
            Some(v) => format!("{} {}", return_kind(*kind), f.value_name(*v)),
            None => return_kind(*kind).to_string(),
        },
        Terminator::Unreachable => "unreachable".into(),
    }
}

/// Analyzes one source text as a crate, for the tests of every module.
#[cfg(test)]
pub(crate) fn analyze_text(text: &str) -> (CrateIr, SourceMap) {
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
    let ir = analyze_crate(&krate, &sources, &AnalysisOptions::default());
    (ir, sources)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dump_filter_matches_name_and_type_path() {
        let (ir, sources) =
            analyze_text("struct P; impl P { fn get(&self) {} } fn get() {} fn other() {}");
        let all = dump_ir(&ir, &sources, None);
        assert_eq!(all.lines().filter(|l| l.starts_with("fn ")).count(), 3);
        let method = dump_ir(&ir, &sources, Some("P::get"));
        assert_eq!(method.lines().filter(|l| l.starts_with("fn ")).count(), 1);
        assert!(dump_ir(&ir, &sources, Some("nothing")).is_empty());
    }

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
    fn default_options_use_64_byte_cache_lines() {
        assert_eq!(AnalysisOptions::default().cache_line_bytes, 64);
        assert!(AnalysisOptions::default().models.is_empty());
    }
}
