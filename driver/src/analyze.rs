//! One crate from MIR to findings: its functions in the bottom-up schedule of
//! [`tensor_lint_analyzer::program`], the facts, the lints, and what the command line
//! needs besides (files, allows, input problems).

use std::panic::{catch_unwind, AssertUnwindSafe};

use rustc_data_structures::fx::FxHashMap;
use rustc_hir::def::DefKind;
use rustc_hir::def_id::{LocalDefId, LOCAL_CRATE};
use rustc_middle::ty::TyCtxt;

use tensor_lint_analyzer::ir::{FnId, FnIr};
use tensor_lint_analyzer::program::{self, AnalysisOptions, LowerFns, SharedSummaries};
use tensor_lint_analyzer::summary::FnSummary;
use tensor_lint_lints::context::LintContext;
use tensor_lint_lints::crate_findings::{
    CrateFindings, DriverTimings, InternalError, StoredFinding, FORMAT,
};
use tensor_lint_lints::registry;

use crate::callbacks::Options;
use crate::files::Files;
use crate::lower::{CrateCx, FnLowerer};
use crate::models::Models;

/// Everything tensor-lint finds in the crate being compiled. A failure of the
/// analysis itself is an internal error in the result, never a panic out of rustc.
pub(crate) fn analyze_crate(tcx: TyCtxt<'_>, options: &Options) -> CrateFindings {
    let crate_name = tcx.crate_name(LOCAL_CRATE).to_string();
    let files = Files::new(tcx);
    let outcome = catch_unwind(AssertUnwindSafe(|| run(tcx, options, &files)));
    let mut found = match outcome {
        Ok(found) => found,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "the analysis panicked".into());
            CrateFindings {
                internal_error: Some(InternalError {
                    message,
                    span: tensor_lint_lints::context::function_being_checked(),
                }),
                ..crate::callbacks::empty_findings(&crate_name)
            }
        }
    };
    found.crate_name = crate_name;
    found.files = files.paths();
    found.lines = files.lines();
    found
}

fn run(tcx: TyCtxt<'_>, options: &Options, files: &Files) -> CrateFindings {
    let fns = crate_functions(tcx);
    let fn_ids: FxHashMap<LocalDefId, FnId> = fns
        .iter()
        .enumerate()
        .map(|(k, &def)| (def, FnId(k as u32)))
        .collect();
    let mut problems = Vec::new();
    let annotations: Vec<_> = fns
        .iter()
        .map(|&def| crate::annotations::of(tcx, def, files, &mut problems))
        .collect();
    let models = Models::new(tcx, options.models.clone());
    let release_flags = crate::release_flags::release_flags(tcx, &models);
    let cx = CrateCx {
        tcx,
        files,
        models: &models,
        fns: &fns,
        fn_ids: &fn_ids,
        annotations: &annotations,
        foreign: Default::default(),
        release_flags: &release_flags,
    };
    let annotated: Vec<Option<FnSummary>> = annotations
        .iter()
        .map(|a| Some(FnSummary::from_annotations(a)))
        .collect();
    let analysis = AnalysisOptions {
        cache_line_bytes: options.cache_line_bytes,
        ..AnalysisOptions::default()
    };
    let name = tcx.crate_name(LOCAL_CRATE).to_string();
    inject_failure(files);
    let started = std::time::Instant::now();
    let mut lowerer = MirLowerer { cx: &cx };
    // Lowering needs the compiler's context, on this thread; the facts of the lowered
    // functions are computed on as many threads as there are cores (at most four).
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let mut ir = program::analyze_functions(&name, &annotated, &analysis, &mut lowerer, threads);
    ir.structs = crate::structs::crate_structs(tcx, &models, files);
    ir.dangling = fns
        .iter()
        .flat_map(|&def| crate::dangling::dangling_pointers(tcx, files, def))
        .collect();
    ir.node_reads = crate::node_reads::reads_out_of_nodes(tcx, &models, files);
    ir.lent_owned = crate::lent_pointers::lent_pointers_owned(tcx, &models, files, &release_flags);
    ir.retired_reachable = crate::retired_nodes::retired_reachable(tcx, &models, files);
    ir.counted_slots = crate::counted_slots::counted_before_written(tcx, &models, files);
    let lint_cx = LintContext {
        ir: &ir,
        sources: &files.sources,
        cache_line_bytes: options.cache_line_bytes,
    };
    let lowered = started.elapsed();
    tensor_lint_analyzer::oracle::reset_path_stats();
    let linting = std::time::Instant::now();
    let findings = registry::check_crate(&lint_cx);
    tensor_lint_lints::context::done_checking();
    let timings = DriverTimings {
        lower_us: lowered.as_micros() as u64,
        lints_us: linting.elapsed().as_micros() as u64,
        oracle: tensor_lint_analyzer::oracle::path_stats()
            .into_iter()
            .filter(|&(_, count)| count > 0)
            .map(|(path, count)| (path.as_str().to_string(), count))
            .collect(),
    };
    let ir_dump = options.dump_ir.as_deref().map(|function| {
        let function = (!function.is_empty()).then_some(function);
        tensor_lint_analyzer::ir::dump::dump_ir(&ir, &files.sources, function)
    });
    let (allows, allow_errors) = crate::allows::collect(tcx, files);
    problems.extend(allow_errors);
    CrateFindings {
        format: FORMAT,
        functions: ir.functions().count(),
        truncated: ir.functions().filter(|f| f.truncated).count(),
        findings: findings.iter().map(StoredFinding::new).collect(),
        allows,
        problems,
        ir_dump,
        unresolved_models: models.unresolved.clone(),
        user_models_matched: models.user_rows_matched(),
        timings,
        ..CrateFindings::default()
    }
}

/// The functions and methods of the crate that have a body, in the order the compiler
/// lists them (source order).
fn crate_functions(tcx: TyCtxt<'_>) -> Vec<LocalDefId> {
    tcx.hir_body_owners()
        .filter(|&def| matches!(tcx.def_kind(def), DefKind::Fn | DefKind::AssocFn))
        .filter(|&def| tcx.is_mir_available(def.to_def_id()))
        .collect()
}

/// Lowers functions of the crate on the compiler's thread.
struct MirLowerer<'a, 'tcx> {
    cx: &'a CrateCx<'a, 'tcx>,
}

impl LowerFns for MirLowerer<'_, '_> {
    fn lower(&mut self, fns: &[usize], summaries: &SharedSummaries) -> Vec<Option<FnIr>> {
        let summaries = program::read(summaries);
        fns.iter()
            .map(|&f| FnLowerer::lower(self.cx, &summaries, FnId(f as u32)))
            .collect()
    }

    fn callees_first(&mut self, n: usize) -> Option<Vec<usize>> {
        let edges = call_graph(self.cx.tcx, n, self.cx.fn_ids);
        Some(postorder(n, &edges))
    }
}

/// The crate's functions each function calls, in its body or its closures' (a trait's
/// method: each impl of the crate with its own body, unresolved, as resolving every
/// call would cost more than the lowering it saves). Only an order to lower in: the
/// lowering finds the calls that count, and the schedule lowers again what came too
/// early.
fn call_graph(tcx: TyCtxt<'_>, n: usize, fn_ids: &FxHashMap<LocalDefId, FnId>) -> Vec<Vec<usize>> {
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    let local_impls = tcx.all_local_trait_impls(());
    for owner in crate::structs::crate_bodies(tcx) {
        let root = tcx.typeck_root_def_id(owner.to_def_id());
        let Some(&FnId(caller)) = root.as_local().and_then(|r| fn_ids.get(&r)) else {
            continue;
        };
        let mir = tcx.optimized_mir(owner.to_def_id());
        for call in crate::structs::direct_calls(mir) {
            let def = call.callee;
            // A trait's method: every impl of the crate that has its own (the order
            // needs no resolution; a call to an impl it does not run costs nothing).
            let callees: Vec<rustc_hir::def_id::DefId> = match tcx.trait_of_assoc(def) {
                Some(trait_id) => local_impls
                    .get(&trait_id)
                    .into_iter()
                    .flatten()
                    .filter_map(|imp| {
                        tcx.impl_item_implementor_ids(imp.to_def_id())
                            .get(&def)
                            .copied()
                    })
                    .chain(std::iter::once(def))
                    .collect(),
                None => vec![def],
            };
            for callee in callees {
                if let Some(&FnId(id)) = callee.as_local().and_then(|l| fn_ids.get(&l)) {
                    edges[caller as usize].push(id as usize);
                }
            }
        }
    }
    edges
}

/// The functions in an order where each comes after the functions it calls, but for
/// the calls that close a cycle.
fn postorder(n: usize, edges: &[Vec<usize>]) -> Vec<usize> {
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (f, ref mut next)) = stack.last_mut() {
            if let Some(&c) = edges[f].get(*next) {
                *next += 1;
                if c < n && !seen[c] {
                    seen[c] = true;
                    stack.push((c, 0));
                }
            } else {
                order.push(f);
                stack.pop();
            }
        }
    }
    order
}

/// In debug builds, fails on purpose on a file of the crate whose path ends with the
/// value of [`tensor_lint_lints::context::INJECT_FAILURE_ENV`], so that tests see an
/// internal error travel to its diagnostic.
fn inject_failure(files: &Files) {
    let Some(name) =
        tensor_lint_lints::context::injected_failure().filter(|v| !v.starts_with("fn:"))
    else {
        return;
    };
    for (k, path) in files.paths().iter().enumerate() {
        if path.ends_with(name) {
            let file = tensor_lint_analyzer::source::FileId(k as u32);
            tensor_lint_lints::context::checking(tensor_lint_analyzer::source::Span::new(
                file, 0, 0,
            ));
            panic!(
                "failure injected by {}",
                tensor_lint_lints::context::INJECT_FAILURE_ENV
            );
        }
    }
}
