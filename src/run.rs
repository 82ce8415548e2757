//! One run, in a straight line: `cargo check` of what was asked with tensor-lint's
//! compiler driver ([`crate::compiler`]), which lowers, analyses and lints each crate;
//! then `--fix`, baselines and rendering.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use tensor_lint_analyzer::source::SourceMap;

use crate::error::ToolError;
use crate::levels::LevelFlag;
use crate::render::{self, MessageFormat, RenderOptions};
use crate::report::{Finding, Report};
use crate::workspace::Inputs;
use crate::{baseline, fix};

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
}

pub fn run(invocation: &Invocation) -> Result<ExitCode, ToolError> {
    if let Some(target) = &invocation.dump_ir {
        return dump_ir(target);
    }
    let wall = Instant::now();
    let check = |timings: &mut Timings| -> Result<(SourceMap, Vec<Finding>), ToolError> {
        let checked = crate::compiler::check(&invocation.inputs, &invocation.levels)?;
        timings.analysed = checked.analysed;
        timings.compile = checked.compile;
        timings.lower += checked.lower;
        timings.lints += checked.lints;
        for (path, count) in &checked.oracle {
            *timings.oracle.entry(path).or_insert(0) += count;
        }
        Ok((checked.sources, checked.findings))
    };
    let mut timings = Timings::default();
    let (mut sources, mut findings) = check(&mut timings)?;
    if invocation.fix {
        let outcomes = fix::apply(&Report {
            analysed: None,
            sources: &sources,
            findings: findings.clone(),
        });
        if report_fixes(&outcomes) {
            // Check again: what is shown is what remains after the fixes.
            timings = Timings::default();
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
    let out = crate::compiler::dump_ir(Path::new(file), function.filter(|f| !f.is_empty()))?;
    let _ = std::io::stdout().write_all(out.as_bytes());
    Ok(ExitCode::SUCCESS)
}

/// Where the time went (`--timings`): `cargo check` (which compiles the code and runs the
/// lowering and the lints inside it), the lowering and the lints summed over the crates,
/// and which path of the alias oracle decided each query.
#[derive(Clone, Debug, Default)]
pub struct Timings {
    pub compile: Duration,
    pub lower: Duration,
    pub lints: Duration,
    pub render: Duration,
    pub wall: Duration,
    /// Files and lines of the run, each file once.
    pub analysed: crate::coverage::Analysed,
    /// Oracle queries by the path that decided them.
    pub oracle: std::collections::BTreeMap<&'static str, u64>,
}

impl Timings {
    /// The report printed after the findings.
    pub fn render(&self) -> String {
        let ms = |d: Duration| format!("{:.1} ms", d.as_secs_f64() * 1000.0);
        let mut out =
            String::from("timings (lower and lints run inside cargo check, summed over crates):\n");
        for (phase, time) in [
            ("cargo check", self.compile),
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
