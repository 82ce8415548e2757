//! Which compilations are analysed, the compiler options the analysis needs, and the
//! hook that runs it once type checking is done.

use std::path::{Path, PathBuf};

use rustc_driver::Compilation;
use rustc_interface::interface;
use rustc_middle::ty::TyCtxt;
use rustc_session::config::{OutFileName, OutputType};
use rustc_span::Symbol;

use tensor_lint_lints::crate_findings::{self, CrateFindings};

use crate::OPTIONS_ENV;

/// Whether these arguments compile a crate, rather than ask the compiler about itself
/// (cargo's `-vV` and `--print` queries).
pub(crate) fn compiles(args: &[String]) -> bool {
    let query = args
        .iter()
        .any(|a| a == "-vV" || a == "-V" || a == "--version" || a.starts_with("--print"));
    !query && args.iter().any(|a| a == "--crate-name")
}

/// Whether this compilation is one tensor-lint analyses: a crate of the checked
/// workspace (cargo sets `CARGO_PRIMARY_PACKAGE` for those), not its build script.
pub(crate) fn analyses(args: &[String]) -> bool {
    if std::env::var_os("CARGO_PRIMARY_PACKAGE").is_none() || !compiles(args) {
        return false;
    }
    let crate_name = args
        .iter()
        .position(|a| a == "--crate-name")
        .and_then(|k| args.get(k + 1));
    crate_name.is_some_and(|name| name != "build_script_build")
}

/// What the command line tells the analysis (through [`OPTIONS_ENV`]).
#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub cache_line_bytes: u32,
    /// Dump the IR: of every function (`Some("")`) or of those of one name.
    pub dump_ir: Option<String>,
    /// The rows of the user's configuration (`[[models]]` in `tensor-lint.toml`).
    pub models: Vec<tensor_lint_analyzer::models::ApiModel>,
    /// `tensor_lint` is registered as a tool, its attributes read as the annotations: a
    /// loose file outside any package has no `tensor-lint` crate to name.
    pub tool_annotations: bool,
    /// The value of [`OPTIONS_ENV`] as read, which cargo is told the crate depends on.
    raw: Option<String>,
}

impl Options {
    pub(crate) fn from_env() -> Options {
        let raw = std::env::var(OPTIONS_ENV).ok();
        let parsed: Option<serde_json::Value> =
            raw.as_deref().and_then(|r| serde_json::from_str(r).ok());
        let cache_line_bytes = parsed
            .as_ref()
            .and_then(|v| v.get("cache_line_bytes")?.as_u64())
            .and_then(|n| u32::try_from(n).ok())
            .filter(|n| n.is_power_of_two())
            .unwrap_or(64);
        let dump_ir = parsed
            .as_ref()
            .and_then(|v| v.get("dump_ir")?.as_str().map(str::to_string));
        let models = parsed
            .as_ref()
            .and_then(|v| v.get("models"))
            .and_then(|m| serde_json::from_value(m.clone()).ok())
            .unwrap_or_default();
        let tool_annotations = parsed
            .as_ref()
            .and_then(|v| v.get("tool_annotations")?.as_bool())
            .unwrap_or(false);
        Options {
            cache_line_bytes,
            dump_ir,
            models,
            tool_annotations,
            raw,
        }
    }
}

/// rustc as it is, for the compilations not analysed.
pub(crate) struct Plain;

impl rustc_driver::Callbacks for Plain {}

/// rustc with the analysis after type checking.
pub(crate) struct Analysis {
    options: Options,
}

impl Analysis {
    pub(crate) fn new(options: Options) -> Analysis {
        Analysis { options }
    }
}

impl rustc_driver::Callbacks for Analysis {
    #[allow(rustc::bad_opt_access)]
    fn config(&mut self, config: &mut interface::Config) {
        let raw = self.options.raw.clone();
        config.track_state = Some(Box::new(move |sess| {
            // Cargo re-runs the crate when the options change, and, since the findings
            // file is an output of this binary, when the binary does.
            sess.env_depinfo.borrow_mut().insert((
                Symbol::intern(OPTIONS_ENV),
                raw.as_deref().map(Symbol::intern),
            ));
            if let Some(exe) = std::env::current_exe()
                .ok()
                .and_then(|p| p.to_str().map(Symbol::intern))
            {
                sess.file_depinfo.borrow_mut().insert(exe);
            }
        }));
        // MIR as the source says it: no optimisation (no inlining, no copy propagation
        // turning moves into copies), and none of the checks that only add panics.
        config.opts.unstable_opts.mir_opt_level = Some(0);
        config.opts.unstable_opts.inline_mir = Some(false);
        config.opts.unstable_opts.mir_enable_passes = vec![
            ("CheckAlignment".to_owned(), false),
            ("CheckNull".to_owned(), false),
            ("CheckEnums".to_owned(), false),
        ];
    }

    fn after_analysis<'tcx>(
        &mut self,
        _compiler: &interface::Compiler,
        tcx: TyCtxt<'tcx>,
    ) -> Compilation {
        if tcx.dcx().has_errors().is_some() {
            return Compilation::Continue;
        }
        let Some(path) = findings_path(tcx) else {
            return Compilation::Continue;
        };
        let found = crate::analyze::analyze_crate(tcx, &self.options);
        if let Err(error) = found.write(&path) {
            tcx.dcx().warn(format!(
                "tensor-lint could not write its findings to `{}`: {error}",
                path.display()
            ));
        }
        Compilation::Continue
    }
}

/// Where the findings of this crate go: beside its metadata, where the command line
/// finds them from cargo's report of the artifact.
fn findings_path(tcx: TyCtxt<'_>) -> Option<PathBuf> {
    match tcx.output_filenames(()).path(OutputType::Metadata) {
        OutFileName::Real(path) => Some(crate_findings::path_beside(Path::new(&path))),
        OutFileName::Stdout => None,
    }
}

/// An empty result, with the crate's name, for a crate nothing could be read of.
pub(crate) fn empty_findings(crate_name: &str) -> CrateFindings {
    CrateFindings {
        format: crate_findings::FORMAT,
        crate_name: crate_name.to_string(),
        ..CrateFindings::default()
    }
}
