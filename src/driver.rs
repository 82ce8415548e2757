//! One run: find what to check, load and analyze it, turn facts into findings, filter
//! them by level and suppression, render.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use tensor_lint_analyzer::models::Models;
use tensor_lint_analyzer::pipeline::{self, CrateRoot, InternalError};
use tensor_lint_analyzer::program::{analyze_crate, AnalysisOptions, CrateIr};
use tensor_lint_analyzer::source::{FileId, SourceError, SourceMap};
use tensor_lint_analyzer::suppress::{self, AllowRegion};
use tensor_lint_analyzer::syntax::{self, CrateSources};
use tensor_lint_lints::context::{
    function_being_checked, injected_failure, LintContext, LintFinding, INJECT_FAILURE_ENV,
};
use tensor_lint_lints::diagnostic::{Diagnostic, Label, Level, Severity};
use tensor_lint_lints::registry;

use crate::config::{suggest_lint, Config};
use crate::error::ToolError;
use crate::render::{self, MessageFormat, RenderOptions};
use crate::report::{Finding, Report};
use crate::workspace::{self, Inputs, Unit};
use crate::{baseline, fix};

/// A `-W/-A/-D` flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelFlag {
    Lint(&'static str, Level),
    /// `-D warnings`, `-A warnings`, `-W warnings`: applies to every finding shown as a
    /// warning after the lint levels are settled.
    Warnings(Level),
}

#[derive(Clone, Debug)]
pub struct Invocation {
    pub inputs: Inputs,
    pub levels: Vec<LevelFlag>,
    pub format: MessageFormat,
    pub color: bool,
    pub dump_ir: Option<String>,
    pub fix: bool,
    /// Report only findings not recorded in this baseline.
    pub baseline: Option<PathBuf>,
    /// Record every finding in this baseline instead of failing on them.
    pub write_baseline: Option<PathBuf>,
    /// Print where the time went.
    pub timings: bool,
    pub front_end: FrontEnd,
}

/// How the code is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontEnd {
    /// From its syntax, without compiling it.
    Syntax,
    /// As the compiler reads it: `cargo check` with tensor-lint's driver.
    Compiler,
}

pub fn run(invocation: &Invocation) -> Result<ExitCode, ToolError> {
    if let Some(target) = &invocation.dump_ir {
        if invocation.front_end == FrontEnd::Compiler {
            let (file, function) = match target.find(".rs:") {
                Some(at) => (&target[..at + 3], Some(&target[at + 4..])),
                None => (target.as_str(), None),
            };
            let out =
                crate::compiler::dump_ir(Path::new(file), function.filter(|f| !f.is_empty()))?;
            let _ = std::io::stdout().write_all(out.as_bytes());
            return Ok(ExitCode::SUCCESS);
        }
        return dump_ir(target);
    }
    let wall = Instant::now();
    let mut timings = Timings::default();
    let units = match invocation.front_end {
        FrontEnd::Syntax => workspace::units(&invocation.inputs)?,
        FrontEnd::Compiler => Vec::new(),
    };
    timings.discover = wall.elapsed();
    let check = |timings: &mut Timings| -> Result<(SourceMap, Vec<Finding>), ToolError> {
        match invocation.front_end {
            FrontEnd::Syntax => Ok(check_units(&units, &invocation.levels, timings)),
            FrontEnd::Compiler => {
                let checked = crate::compiler::check(&invocation.inputs, &invocation.levels)?;
                timings.analysed = checked.analysed;
                timings.compile = Some(checked.compile);
                timings.lower += checked.lower;
                timings.lints += checked.lints;
                for (path, count) in &checked.oracle {
                    *timings.oracle.entry(path).or_insert(0) += count;
                }
                Ok((checked.sources, checked.findings))
            }
        }
    };
    let (mut sources, mut findings) = check(&mut timings)?;
    if invocation.fix {
        let outcomes = fix::apply(&Report {
            analysed: None,
            sources: &sources,
            findings: findings.clone(),
        });
        if report_fixes(&outcomes) {
            // Check again: what is shown is what remains after the fixes.
            timings = Timings {
                discover: timings.discover,
                ..Timings::default()
            };
            (sources, findings) = check(&mut timings)?;
        }
    }
    let mut report = Report {
        analysed: Some(timings.analysed),
        sources: &sources,
        findings,
    };
    if let Some(path) = &invocation.write_baseline {
        let count = baseline::write(&report, path)?;
        eprintln!(
            "wrote {count} finding{} to the baseline `{}`",
            if count == 1 { "" } else { "s" },
            path.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = &invocation.baseline {
        baseline::apply(&mut report, path)?;
    }
    let options = RenderOptions {
        color: invocation.color,
    };
    let started = Instant::now();
    let result = match invocation.format {
        MessageFormat::Human | MessageFormat::Short => render::render(
            invocation.format,
            &report,
            &options,
            &mut std::io::stderr().lock(),
        ),
        _ => render::render(
            invocation.format,
            &report,
            &options,
            &mut std::io::stdout().lock(),
        ),
    };
    match result {
        Ok(()) => {}
        // A closed pipe (`| head`) is not an error of ours.
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(err) => return Err(ToolError::io("cannot write the report".into(), err)),
    }
    if invocation.timings {
        timings.render = started.elapsed();
        timings.wall = wall.elapsed();
        eprint!("{}", timings.render());
    }
    Ok(if report.has_errors() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--dump-ir FILE.rs[:FUNCTION]`: the IR of a loose file (or of one function in it).
fn dump_ir(target: &str) -> Result<ExitCode, ToolError> {
    let (file, function) = match target.find(".rs:") {
        Some(at) => (&target[..at + 3], Some(&target[at + 4..])),
        None => (target, None),
    };
    let path = PathBuf::from(file);
    if !path.is_file() {
        return Err(ToolError::usage(
            format!("`{file}` does not exist or is not a file"),
            None,
        ));
    }
    let cwd = std::env::current_dir()
        .map_err(|e| ToolError::io("cannot read the current directory".into(), e))?;
    let config = Config::load_workspace(&cwd)?;
    let mut sources = SourceMap::new();
    let display = |p: &Path| p.display().to_string();
    let (krate, errors) = syntax::load_crate(
        "dump",
        &path,
        syntax::Edition::default(),
        &loose_cfg(),
        &mut sources,
        &display,
        &|_| false,
    );
    let ir = analyze_crate(&krate, &sources, &analysis_options(&config, &loose_cfg()));
    let mut out =
        tensor_lint_analyzer::ir::dump::dump_ir(&ir, &sources, function.filter(|f| !f.is_empty()));
    for error in errors.iter().chain(&ir.errors) {
        let at = sources
            .get(error.span.file)
            .line_col(error.span.lo as usize);
        out.push_str(&format!(
            "error at {}:{}:{}: {}\n",
            sources.get(error.span.file).display,
            at.line,
            at.column,
            error.message
        ));
    }
    if out.is_empty() {
        return Err(ToolError::usage(
            match function {
                Some(name) => format!("no function `{name}` in `{file}`"),
                None => format!("`{file}` has no functions"),
            },
            None,
        ));
    }
    let _ = std::io::stdout().write_all(out.as_bytes());
    Ok(ExitCode::SUCCESS)
}

/// One unit's result, built on a worker thread with a source map of its own.
struct UnitResult {
    sources: SourceMap,
    findings: Vec<Finding>,
    timings: Timings,
}

/// Where the time went (`--timings`): per phase, the wall time of each target summed over
/// the targets, and which path of the alias oracle decided each query.
#[derive(Clone, Debug, Default)]
pub struct Timings {
    pub discover: Duration,
    pub parse: Duration,
    pub lower: Duration,
    pub lints: Duration,
    pub render: Duration,
    pub wall: Duration,
    /// Files and lines of the run, each file once.
    pub analysed: crate::coverage::Analysed,
    /// Oracle queries by the path that decided them.
    pub oracle: std::collections::BTreeMap<&'static str, u64>,
    /// With the compiler front end, the wall time of `cargo check`, which compiles the
    /// code and runs the lowering and the lints inside it.
    pub compile: Option<Duration>,
}

impl Timings {
    fn add(&mut self, other: &Timings) {
        self.parse += other.parse;
        self.lower += other.lower;
        self.lints += other.lints;
        for (path, count) in &other.oracle {
            *self.oracle.entry(path).or_insert(0) += count;
        }
    }

    /// Takes this thread's oracle counters (the lints ran on it).
    fn add_oracle_stats(&mut self) {
        for (path, count) in tensor_lint_analyzer::oracle::path_stats() {
            if count > 0 {
                *self.oracle.entry(path.as_str()).or_insert(0) += count;
            }
        }
        tensor_lint_analyzer::oracle::reset_path_stats();
    }

    /// The report printed after the findings.
    pub fn render(&self) -> String {
        let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
        let (mut out, first) = match self.compile {
            Some(compile) => (
                String::from(
                    "timings (lower and lints run inside cargo check, summed over crates):\n",
                ),
                ("cargo check", compile),
            ),
            None => (
                String::from("timings (parse, lower and lints summed over targets):\n"),
                ("parse", self.parse),
            ),
        };
        for (phase, time) in [
            ("discover", self.discover),
            first,
            ("lower", self.lower),
            ("lints + oracle", self.lints),
            ("render", self.render),
            ("total (wall)", self.wall),
        ] {
            out.push_str(&format!("  {phase:<15} {:>10}\n", ms(time)));
        }
        let seconds = self.wall.as_secs_f64().max(1e-9);
        out.push_str(&format!(
            "  {} file{}, {} lines, {:.0} lines per second\n",
            self.analysed.files,
            if self.analysed.files == 1 { "" } else { "s" },
            self.analysed.lines,
            self.analysed.lines as f64 / seconds
        ));
        let total: u64 = self.oracle.values().sum();
        out.push_str(&format!("oracle: {total} queries"));
        if total > 0 {
            let parts: Vec<String> = self
                .oracle
                .iter()
                .map(|(path, count)| {
                    format!(
                        "{path} {count} ({:.0}%)",
                        *count as f64 * 100.0 / total as f64
                    )
                })
                .collect();
            out.push_str(&format!(" decided by {}", parts.join(", ")));
        }
        out.push('\n');
        out
    }
}

/// Every unit checked, in parallel, merged into one source map in unit order: the
/// output does not depend on which worker finished first.
fn check_units(
    units: &[Unit],
    flags: &[LevelFlag],
    timings: &mut Timings,
) -> (SourceMap, Vec<Finding>) {
    // Units run side by side, and each spreads its files over the cores left to it.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per_unit = (cores / units.len().clamp(1, cores)).max(1);
    let results =
        tensor_lint_analyzer::threads::parallel_map(units, cores, "tensor-lint-unit", |unit| {
            check_unit_isolated(unit, flags, per_unit)
        });
    // A file mounted by two units (a `mod` shared by lib and bin, or a loose file that
    // another loose file declares as its module) is reported once, by the unit that
    // mounts it as a module rather than as its root, and among those by the first:
    // a module file read as a crate root of its own finds its children in the wrong
    // folder. Loose units come sorted by path, so the argument order does not matter.
    let canonical_files: Vec<Vec<PathBuf>> = results
        .iter()
        .map(|r| {
            r.sources
                .files()
                .map(|f| std::fs::canonicalize(&f.path).unwrap_or_else(|_| f.path.clone()))
                .collect()
        })
        .collect();
    let mut line_counts: HashMap<&Path, usize> = HashMap::new();
    for (files, result) in canonical_files.iter().zip(&results) {
        for (path, file) in files.iter().zip(result.sources.files()) {
            line_counts
                .entry(path.as_path())
                .or_insert(file.line_count());
        }
    }
    // Every file counted once, however many targets mount it.
    timings.analysed = crate::coverage::Analysed {
        files: line_counts.len(),
        lines: line_counts.values().sum(),
    };
    let notes = unreached_notes(units, &canonical_files);
    let mut owner: HashMap<&Path, (bool, usize)> = HashMap::new();
    for (unit, files) in canonical_files.iter().enumerate() {
        for (k, file) in files.iter().enumerate() {
            let rank = (k == 0, unit);
            let best = owner.entry(file.as_path()).or_insert(rank);
            *best = (*best).min(rank);
        }
    }
    let mut sources = SourceMap::new();
    let mut findings = Vec::new();
    for (unit, result) in results.into_iter().enumerate() {
        timings.add(&result.timings);
        let base = sources.len() as u32;
        let owned: Vec<bool> = canonical_files[unit]
            .iter()
            .map(|file| owner.get(file.as_path()).is_some_and(|&(_, u)| u == unit))
            .collect();
        for file in result.sources.into_files() {
            sources.adopt(file);
        }
        for mut finding in result.findings {
            let file = finding.diagnostic.primary.span.file;
            if owned.get(file.0 as usize).copied().unwrap_or(true) {
                finding.diagnostic.map_files(|f| FileId(f.0 + base));
                findings.push(finding);
            }
        }
        if let Some(note) = notes.get(&unit) {
            let mut diagnostic = note.clone();
            diagnostic.map_files(|f| FileId(f.0 + base));
            findings.push(Finding {
                diagnostic,
                origin: units[unit].origin.clone(),
            });
        }
    }
    sort_findings(&sources, &mut findings);
    (sources, findings)
}

/// Puts findings in the order they are shown, without duplicates: by the file's name as
/// shown, not its number (the order files were mounted in, of `mod` declarations or
/// loose files, does not change the output), then place and message.
pub(crate) fn sort_findings(sources: &SourceMap, findings: &mut Vec<Finding>) {
    fn shown<'a>(sources: &'a SourceMap, f: &'a Finding) -> (Option<&'a str>, u32, u32, &'a str) {
        let span = f.diagnostic.primary.span;
        let name = sources.try_get(span.file).map(|file| file.display.as_str());
        (name, span.lo, span.hi, f.diagnostic.message.as_str())
    }
    findings.sort_by(|a, b| shown(sources, a).cmp(&shown(sources, b)));
    findings.dedup_by(|a, b| a.diagnostic == b.diagnostic);
}

/// The note of each cargo package whose `src/` holds files no checked target mounts, by
/// the index of the package's first unit (its diagnostic points at that unit's root).
fn unreached_notes(units: &[Unit], mounted: &[Vec<PathBuf>]) -> HashMap<usize, Diagnostic> {
    let mut packages: Vec<(&str, Vec<usize>)> = Vec::new();
    for (k, unit) in units.iter().enumerate() {
        let manifest = unit.origin.manifest_path.as_str();
        if !manifest.ends_with("Cargo.toml") {
            continue; // loose files have no package
        }
        match packages.iter_mut().find(|(m, _)| *m == manifest) {
            Some((_, members)) => members.push(k),
            None => packages.push((manifest, vec![k])),
        }
    }
    let mut notes = HashMap::new();
    for (manifest, members) in packages {
        let Some(src) = Path::new(manifest).parent().map(|d| d.join("src")) else {
            continue;
        };
        let reached: std::collections::BTreeSet<PathBuf> = members
            .iter()
            .flat_map(|&k| mounted.get(k).into_iter().flatten().cloned())
            .collect();
        let first = &units[members[0]];
        let missing = crate::coverage::unreached(&src, &reached, &|p| first.config.is_excluded(p));
        let shown = |p: &Path| display_path(&first.display_base, p);
        if let Some(note) = crate::coverage::unreached_note(FileId(0), &missing, &shown) {
            notes.insert(members[0], note);
        }
    }
    notes
}

thread_local! {
    /// Set while this thread checks a unit: a panic here becomes a diagnostic.
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a panic on this thread now is caught and reported as an internal-error
/// diagnostic (worker threads, named `tensor-lint-…`, always are).
pub fn panic_is_reported() -> bool {
    CATCHING.with(|c| c.get())
        || std::thread::current()
            .name()
            .is_some_and(|name| name.starts_with("tensor-lint-"))
}

/// Checks one unit; an internal error (a bug of ours) becomes a diagnostic naming the
/// crate, and the run goes on.
fn check_unit_isolated(unit: &Unit, flags: &[LevelFlag], threads: usize) -> UnitResult {
    let mut sources = SourceMap::new();
    let mut timings = Timings::default();
    let was_caught = CATCHING.with(|c| c.replace(true));
    tensor_lint_lints::context::done_checking();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        check_unit(unit, flags, threads, &mut sources, &mut timings)
    }));
    CATCHING.with(|c| c.set(was_caught));
    let payload = match outcome {
        Ok(findings) => {
            return UnitResult {
                sources,
                findings,
                timings,
            }
        }
        Err(payload) => payload,
    };
    let detail = InternalError::message_of(payload.as_ref());
    // A worker names the file it was on, a lint pass the function it was checking;
    // otherwise the crate's root stands for it.
    let in_lint = function_being_checked()
        .and_then(|span| Some((sources.try_get(span.file)?.path.clone(), span)));
    let worker_path = payload
        .downcast_ref::<InternalError>()
        .and_then(|e| e.path.clone());
    let (path, range, label, names_file) = match (worker_path, in_lint) {
        (Some(path), _) => (path, (0, 0), "while analysing this file", true),
        (None, Some((path, span))) => (
            path,
            (span.lo as usize, span.hi as usize),
            "while linting this function",
            true,
        ),
        (None, None) => (
            unit.root_file.clone(),
            (0, 0),
            "in the crate rooted here",
            false,
        ),
    };
    let message = format!(
        "internal error of tensor-lint while checking `{}`",
        if names_file {
            display_path(&unit.display_base, &path)
        } else {
            unit.crate_name.clone()
        }
    );
    let mut sources = SourceMap::new();
    let display = display_path(&unit.display_base, &path);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    // The file may have changed since it was read: keep the span inside it.
    let (lo, hi) = (range.0.min(text.len()), range.1.min(text.len()));
    let (lo, hi) = if text.is_char_boundary(lo) && text.is_char_boundary(hi) {
        (lo, hi)
    } else {
        (0, 0)
    };
    let file = sources.add(path, display, text);
    let diagnostic = Diagnostic::new(
        Severity::Error,
        message,
        Label::new(tensor_lint_analyzer::source::Span::new(file, lo, hi), label),
    )
    .with_note(format!("the analyzer failed: {detail}"))
    .with_help("this is a bug in tensor-lint; please report it with this crate's source");
    let findings = vec![Finding {
        diagnostic,
        origin: unit.origin.clone(),
    }];
    UnitResult {
        sources,
        findings,
        timings,
    }
}

/// Tells what `--fix` did, as `cargo fix` does; whether any file changed.
fn report_fixes(outcomes: &[fix::FileOutcome]) -> bool {
    let mut any = false;
    for outcome in outcomes {
        match outcome {
            fix::FileOutcome::Fixed { display, edits, .. } => {
                any = true;
                eprintln!(
                    "       Fixed {display} ({edits} fix{})",
                    if *edits == 1 { "" } else { "es" }
                );
            }
            fix::FileOutcome::Refused { display, reason } => {
                eprintln!("warning: not fixing {display}: {reason}");
            }
        }
    }
    any
}

/// Loads, analyzes and lints one crate on `threads` threads, returning its findings
/// with levels applied and suppressions honoured.
fn check_unit(
    unit: &Unit,
    flags: &[LevelFlag],
    threads: usize,
    sources: &mut SourceMap,
    timings: &mut Timings,
) -> Vec<Finding> {
    let display_base = unit.display_base.clone();
    let display = move |path: &Path| display_path(&display_base, path);
    let config = &unit.config;
    let excluded = |path: &Path| config.is_excluded(path);
    let root = CrateRoot {
        name: &unit.crate_name,
        root: &unit.root_file,
        edition: unit.edition,
        display: &display,
        excluded: &excluded,
    };
    let fail_on = injected_failure().filter(|v| !v.starts_with("fn:"));
    let analyzed = pipeline::analyze_files(
        &root,
        &analysis_options(config, &unit.cfg),
        threads,
        &|file, ast| {
            if fail_on.is_some_and(|name| file.display.ends_with(name)) {
                panic!("failure injected by {INJECT_FAILURE_ENV}");
            }
            suppress::collect(file, ast)
        },
    );
    *sources = analyzed.sources;
    timings.parse += analyzed.parse_time;
    timings.lower += analyzed.lower_time;
    let (regions, suppress_errors): (Vec<_>, Vec<_>) = analyzed.per_file.into_iter().unzip();
    let analysis = Analysis {
        ir: &analyzed.ir,
        load_errors: &analyzed.load_errors,
        regions: regions.concat(),
        suppress_errors: suppress_errors.concat(),
    };
    lint_analysis(&analysis, config, flags, sources, timings)
        .into_iter()
        .map(|diagnostic| Finding {
            diagnostic,
            origin: unit.origin.clone(),
        })
        .collect()
}

/// What the analyzer made of a crate, before the lints.
struct Analysis<'a> {
    ir: &'a CrateIr,
    load_errors: &'a [SourceError],
    regions: Vec<AllowRegion>,
    suppress_errors: Vec<SourceError>,
}

/// Everything after the analysis: the lint passes, suppressions, levels.
fn lint_analysis(
    analysis: &Analysis,
    config: &Config,
    flags: &[LevelFlag],
    sources: &SourceMap,
    timings: &mut Timings,
) -> Vec<Diagnostic> {
    let started = Instant::now();
    tensor_lint_analyzer::oracle::reset_path_stats();
    let cx = LintContext {
        ir: analysis.ir,
        sources,
        cache_line_bytes: config.cache_line_bytes,
    };
    let lint_findings = registry::check_crate(&cx);
    timings.lints += started.elapsed();
    timings.add_oracle_stats();
    let problems: Vec<&SourceError> = analysis
        .load_errors
        .iter()
        .chain(&analysis.suppress_errors)
        .chain(&analysis.ir.errors)
        .collect();
    settle(lint_findings, &problems, &analysis.regions, config, flags)
}

/// What a run shows of one crate's results: its input problems, the unknown lints its
/// allows name, and its lint findings with suppressions honoured and levels applied.
pub(crate) fn settle(
    lint_findings: Vec<LintFinding>,
    problems: &[&SourceError],
    regions: &[AllowRegion],
    config: &Config,
    flags: &[LevelFlag],
) -> Vec<Diagnostic> {
    let mut diagnostics: Vec<Diagnostic> = problems
        .iter()
        .map(|p| input_error(p))
        .filter_map(|d| match d.severity {
            Severity::Warning => apply_warnings_flag(d, flags),
            _ => Some(d),
        })
        .collect();
    diagnostics.extend(
        unknown_allow_names(regions)
            .into_iter()
            .filter_map(|d| apply_warnings_flag(d, flags)),
    );
    for finding in lint_findings {
        if is_suppressed(&finding, regions) {
            continue;
        }
        if let Some(diagnostic) = apply_level(finding, &config.levels, flags) {
            diagnostics.push(diagnostic);
        }
    }
    diagnostics
}

/// The whole pipeline on one file held in memory, with the default configuration:
/// parse, lower, lint. For fuzzing and embedding; `cargo tensor-lint FILE.rs` is the
/// same on a file from disk.
pub fn check_text(display: &str, text: String) -> (SourceMap, Vec<Diagnostic>) {
    let mut sources = SourceMap::new();
    let file = sources.add(PathBuf::from(display), display.to_string(), text);
    let (krate, errors) = match syntax::parse_file(file, &sources.get(file).text) {
        Ok(ast) => (
            CrateSources {
                name: "text".into(),
                files: vec![syntax::ParsedFile {
                    file,
                    module_path: Vec::new(),
                    ast,
                }],
            },
            Vec::new(),
        ),
        Err(error) => (CrateSources::default(), vec![error]),
    };
    let config = Config::new(PathBuf::new());
    let (regions, suppress_errors) = suppressions(&krate, &sources);
    let ir = analyze_crate(&krate, &sources, &analysis_options(&config, &loose_cfg()));
    let analysis = Analysis {
        ir: &ir,
        load_errors: &errors,
        regions,
        suppress_errors,
    };
    let diagnostics = lint_analysis(&analysis, &config, &[], &sources, &mut Timings::default());
    (sources, diagnostics)
}

/// What is known of how a file on its own is compiled: no test code, any feature.
fn loose_cfg() -> syntax::cfg::CfgSet {
    syntax::cfg::CfgSet {
        features: None,
        test: Some(false),
    }
}

fn analysis_options(config: &Config, cfg: &syntax::cfg::CfgSet) -> AnalysisOptions {
    AnalysisOptions {
        cfg: cfg.clone(),
        cache_line_bytes: config.cache_line_bytes,
        models: Models::new(&config.models),
    }
}

fn suppressions(krate: &CrateSources, sources: &SourceMap) -> (Vec<AllowRegion>, Vec<SourceError>) {
    let mut regions = Vec::new();
    let mut errors = Vec::new();
    for parsed in &krate.files {
        let (r, e) = suppress::collect(sources.get(parsed.file), &parsed.ast);
        regions.extend(r);
        errors.extend(e);
    }
    (regions, errors)
}

fn unknown_allow_names(regions: &[AllowRegion]) -> Vec<Diagnostic> {
    regions
        .iter()
        .flat_map(|r| &r.names)
        .filter(|name| registry::find(&name.name).is_none())
        .map(|name| {
            Diagnostic::new(
                Severity::Warning,
                format!("unknown lint `{}`", name.name),
                Label::new(name.span, "no lint of this name"),
            )
            .with_help(suggest_lint(&name.name))
        })
        .collect()
}

fn is_suppressed(finding: &LintFinding, regions: &[AllowRegion]) -> bool {
    let primary = finding.diagnostic.primary.span;
    regions.iter().any(|region| {
        region.region.file == primary.file
            && region.region.lo <= primary.lo
            && primary.lo < region.region.hi.max(region.region.lo + 1)
            && region
                .names
                .iter()
                .any(|n| registry::find(&n.name).is_some_and(|l| std::ptr::eq(l, finding.lint)))
    })
}

/// Applies configuration and command-line levels to a finding; `None` when allowed.
///
/// A lint's level is, in order of precedence: the last `-W/-A/-D LINT` flag, the
/// configuration, its default (one level lower for merely possible findings of lints
/// that distinguish them). `-D/-W/-A warnings` then applies to what is a warning.
pub fn apply_level(
    finding: LintFinding,
    configured: &std::collections::BTreeMap<&'static str, Level>,
    flags: &[LevelFlag],
) -> Option<Diagnostic> {
    let lint = finding.lint;
    let from_flag = flags.iter().rev().find_map(|flag| match flag {
        LevelFlag::Lint(name, level) if *name == lint.name => Some(*level),
        _ => None,
    });
    let explicit = from_flag.or_else(|| configured.get(lint.name).copied());
    let (mut level, mut source) = match explicit {
        Some(level) if from_flag.is_some() => (
            level,
            format!(
                "`-{} {}` given on the command line",
                flag_letter(level),
                lint.name
            ),
        ),
        Some(level) => (
            level,
            format!(
                "`{} = \"{}\"` set in the configuration",
                lint.name,
                level.as_str()
            ),
        ),
        None if lint.possible_is_warn && !finding.proven && lint.default_level == Level::Deny => (
            Level::Warn,
            format!(
                "`{}` warns by default when what it reports is possible but not proven; `// tensor-lint: allow({})` on the line before silences this finding",
                lint.code(),
                lint.name
            ),
        ),
        None => (
            lint.default_level,
            format!(
                "`{}` {} by default; `// tensor-lint: allow({})` on the line before silences this finding",
                lint.code(),
                match lint.default_level {
                    Level::Deny => "is an error",
                    _ => "warns",
                },
                lint.name
            ),
        ),
    };
    if level == Level::Warn {
        if let Some(LevelFlag::Warnings(w)) = flags
            .iter()
            .rev()
            .find(|f| matches!(f, LevelFlag::Warnings(_)))
        {
            if *w != Level::Warn {
                source = format!(
                    "`-{} {}` implied by `-{} warnings`",
                    flag_letter(*w),
                    lint.name,
                    flag_letter(*w)
                );
            }
            level = *w;
        }
    }
    let severity = level.severity()?;
    let mut diagnostic = finding.diagnostic;
    diagnostic.severity = severity;
    diagnostic.code = Some(lint.code());
    diagnostic.notes.push(source);
    Some(diagnostic)
}

/// `-D/-A/-W warnings` for warnings that are not lint findings (an unknown lint named in
/// an allow), as rustc treats its `unknown_lints`.
fn apply_warnings_flag(mut diagnostic: Diagnostic, flags: &[LevelFlag]) -> Option<Diagnostic> {
    let last = flags.iter().rev().find_map(|f| match f {
        LevelFlag::Warnings(level) => Some(*level),
        LevelFlag::Lint(..) => None,
    });
    match last {
        Some(Level::Allow) => None,
        Some(Level::Deny) => {
            diagnostic.severity = Severity::Error;
            diagnostic
                .notes
                .push("`-D warnings` turns this warning into an error".into());
            Some(diagnostic)
        }
        _ => Some(diagnostic),
    }
}

fn flag_letter(level: Level) -> char {
    match level {
        Level::Allow => 'A',
        Level::Warn => 'W',
        Level::Deny => 'D',
    }
}

/// A problem with the input itself, never suppressed: an error when the input is surely
/// wrong, a warning when rustc may accept what this tool cannot read.
fn input_error(error: &SourceError) -> Diagnostic {
    let severity = if error.unsure {
        Severity::Warning
    } else {
        Severity::Error
    };
    let diagnostic = Diagnostic::new(
        severity,
        error.message.clone(),
        Label::new(error.span, error.label.clone()),
    );
    if error.unsure {
        diagnostic.with_note(
            "this code was not checked; it is a warning because rustc may accept what tensor-lint cannot read",
        )
    } else {
        diagnostic
    }
}

fn display_path(base: &Path, path: &Path) -> String {
    let shown = path.strip_prefix(base).unwrap_or(path);
    let text = shown.display().to_string();
    if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use tensor_lint_analyzer::source::{FileId, Span};
    use tensor_lint_analyzer::suppress::AllowedName;

    use super::*;

    fn finding(lint: &'static str, proven: bool, lo: usize) -> LintFinding {
        LintFinding {
            lint: registry::find(lint).expect("registered lint"),
            proven,
            diagnostic: Diagnostic::new(
                Severity::Warning,
                "m",
                Label::new(Span::new(FileId(0), lo, lo + 1), "here"),
            ),
        }
    }

    fn level_of(
        f: LintFinding,
        configured: &[(&'static str, Level)],
        flags: &[LevelFlag],
    ) -> Option<Severity> {
        let configured: BTreeMap<_, _> = configured.iter().copied().collect();
        apply_level(f, &configured, flags).map(|d| d.severity)
    }

    #[test]
    fn defaults_follow_the_registry_and_possible_races_are_warnings() {
        assert_eq!(
            level_of(finding("leak", true, 0), &[], &[]),
            Some(Severity::Warning)
        );
        assert_eq!(
            level_of(finding("double_free", true, 0), &[], &[]),
            Some(Severity::Error)
        );
        assert_eq!(
            level_of(finding("alias_race", true, 0), &[], &[]),
            Some(Severity::Error)
        );
        assert_eq!(
            level_of(finding("alias_race", false, 0), &[], &[]),
            Some(Severity::Warning)
        );
    }

    #[test]
    fn flags_beat_configuration_and_the_last_flag_wins() {
        let configured = [("leak", Level::Allow)];
        assert_eq!(level_of(finding("leak", true, 0), &configured, &[]), None);
        let flags = [
            LevelFlag::Lint("leak", Level::Deny),
            LevelFlag::Lint("leak", Level::Warn),
        ];
        assert_eq!(
            level_of(finding("leak", true, 0), &configured, &flags),
            Some(Severity::Warning)
        );
    }

    #[test]
    fn deny_warnings_turns_every_warning_into_an_error_and_says_why() {
        let flags = [LevelFlag::Warnings(Level::Deny)];
        let configured = BTreeMap::new();
        let d = apply_level(finding("leak", true, 0), &configured, &flags).expect("shown");
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(d.code.as_deref(), Some("tensor_lint::leak"));
        assert_eq!(
            d.notes.last().map(String::as_str),
            Some("`-D leak` implied by `-D warnings`")
        );
        // allowed lints stay allowed
        let allowed = [
            LevelFlag::Lint("leak", Level::Allow),
            LevelFlag::Warnings(Level::Deny),
        ];
        assert_eq!(level_of(finding("leak", true, 0), &[], &allowed), None);
        assert_eq!(
            level_of(
                finding("leak", true, 0),
                &[],
                &[LevelFlag::Warnings(Level::Allow)]
            ),
            None
        );
    }

    #[test]
    fn suppression_matches_the_lint_and_the_region() {
        let region = AllowRegion {
            region: Span::new(FileId(0), 10, 20),
            names: vec![AllowedName {
                name: "tensor_lint::leak".into(),
                span: Span::new(FileId(0), 0, 1),
            }],
        };
        let regions = [region];
        assert!(is_suppressed(&finding("leak", true, 12), &regions));
        assert!(!is_suppressed(&finding("leak", true, 25), &regions));
        assert!(!is_suppressed(&finding("double_free", true, 12), &regions));
    }

    #[test]
    fn check_text_runs_the_whole_pipeline_in_memory() {
        let leaky = "use std::alloc::{alloc, Layout};\npub fn f(n: usize) -> f32 {\n    let p = unsafe { alloc(Layout::array::<f32>(n).unwrap()) } as *mut f32;\n    if n == 0 { return 0.0; }\n    let v = unsafe { *p };\n    std::mem::forget(v);\n    v\n}\n";
        let (_, diagnostics) = check_text("k.rs", leaky.to_string());
        assert!(
            diagnostics
                .iter()
                .any(|d| d.code.as_deref() == Some("tensor_lint::leak")),
            "{diagnostics:?}"
        );
        let (_, broken) = check_text("k.rs", "fn f( {".to_string());
        assert_eq!(broken.len(), 1);
        assert_eq!(broken[0].code, None);
    }
}
