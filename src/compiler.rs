//! The compiler front end: `cargo check` of the project with this binary as
//! `RUSTC_WORKSPACE_WRAPPER`, so that rustc runs tensor-lint's driver on every crate of
//! the workspace (dependencies are only compiled), under the pinned toolchain and into
//! a target folder of its own. The driver writes what it found beside each crate's
//! metadata; this module reads it back for the crates cargo reports, and turns the
//! compiler's own errors (code that does not build) into findings of their own.
//!
//! Loose files are each compiled as a library crate of their own, with the
//! dependencies of the package they sit in (none outside a package).

use std::collections::BTreeMap;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cargo_metadata::{Message, MetadataCommand};

use tensor_lint_analyzer::source::{FileId, SourceError, SourceMap, Span};
use tensor_lint_analyzer::suppress::AllowRegion;
use tensor_lint_lints::crate_findings::{self, CrateFindings};
use tensor_lint_lints::diagnostic::{Diagnostic, Label, Severity};

use crate::config::Config;
use crate::coverage::Analysed;
use crate::error::ToolError;
use crate::levels::{settle, LevelFlag};
use crate::report::{Finding, Origin};
use crate::workspace::{Features, Inputs};

/// Set for the `cargo check` this module runs: this binary, started by cargo as
/// `RUSTC_WORKSPACE_WRAPPER`, is then rustc with tensor-lint's driver.
pub const WRAPPER_ENV: &str = "TENSOR_LINT_WRAPPER";

/// Whether this process was started by cargo as the rustc wrapper.
pub fn invoked_as_wrapper(args: &[std::ffi::OsString]) -> bool {
    std::env::var_os(WRAPPER_ENV).is_some()
        && args
            .get(1)
            .map(Path::new)
            .and_then(Path::file_stem)
            .is_some_and(|stem| stem == "rustc")
}

/// What the compiler front end found.
pub struct Checked {
    pub sources: SourceMap,
    pub findings: Vec<Finding>,
    pub analysed: Analysed,
    /// The wall time of the `cargo check` runs, and what the driver measured inside
    /// them, summed over crates.
    pub compile: std::time::Duration,
    pub lower: std::time::Duration,
    pub lints: std::time::Duration,
    pub oracle: BTreeMap<&'static str, u64>,
}

/// Checks `inputs` with the compiler.
pub fn check(inputs: &Inputs, flags: &[LevelFlag]) -> Result<Checked, ToolError> {
    // `TENSOR_LINT_DUMP_IR=FUNCTION` (empty: every function) prints the IR of a whole
    // project's functions on stderr, for working on the lowering.
    let dump = std::env::var(DUMP_IR_ENV).ok();
    let (checked, dumps) = check_with(inputs, flags, dump.as_deref())?;
    for text in dumps {
        eprint!("{text}");
    }
    Ok(checked)
}

/// See [`check`].
pub const DUMP_IR_ENV: &str = "TENSOR_LINT_DUMP_IR";

/// Set, each model row whose crate a checked crate loads but that resolves to nothing
/// is printed on stderr (`unresolved model row: PATH`).
pub const CHECK_MODELS_ENV: &str = "TENSOR_LINT_CHECK_MODELS";

/// The IR of a loose file's functions (of those named `function`, when given), as the
/// compiler front end lowers them.
pub fn dump_ir(file: &Path, function: Option<&str>) -> Result<String, ToolError> {
    let inputs = Inputs::Files(vec![file.to_path_buf()]);
    let (checked, dumps) = check_with(&inputs, &[], Some(function.unwrap_or("")))?;
    let mut out = dumps.concat();
    for finding in checked
        .findings
        .iter()
        .filter(|f| f.diagnostic.code.is_none())
    {
        out.push_str(&format!("error: {}\n", finding.diagnostic.message));
    }
    Ok(out)
}

fn check_with(
    inputs: &Inputs,
    flags: &[LevelFlag],
    dump_ir: Option<&str>,
) -> Result<(Checked, Vec<String>), ToolError> {
    let sysroot = crate::toolchain::ensure_installed()?;
    let mut run = Run {
        sysroot,
        sources: SourceMap::new(),
        findings: Vec::new(),
        files: BTreeMap::new(),
        flags: flags.to_vec(),
        dump_ir: dump_ir.map(str::to_string),
        dumps: Vec::new(),
        models_matched: Default::default(),
        models_config: None,
        crates_analysed: 0,
        compile: std::time::Duration::ZERO,
        lower: std::time::Duration::ZERO,
        lints: std::time::Duration::ZERO,
        oracle: BTreeMap::new(),
    };
    match inputs {
        Inputs::Cargo {
            manifest_path,
            packages,
            workspace,
            all_targets,
            features,
        } => {
            let manifest = match manifest_path {
                Some(path) => path.clone(),
                None => crate::workspace::find_manifest()?,
            };
            let (project, manifest) = match Project::load(&manifest) {
                Err(ToolError::Cargo { message, detail })
                    if crate::partial::is_member_failure(&detail) =>
                {
                    match Project::load_partial(&manifest)? {
                        Some((project, stand_in, skipped)) => {
                            run.skipped_members(&project, &skipped);
                            (project, stand_in)
                        }
                        None => return Err(ToolError::Cargo { message, detail }),
                    }
                }
                other => (other?, manifest),
            };
            let members = project.metadata.workspace_packages();
            let mut args: Vec<String> = Vec::new();
            for p in packages {
                if !members.iter().any(|m| m.name.as_str() == p.as_str()) {
                    let known: Vec<_> = members.iter().map(|m| format!("`{}`", m.name)).collect();
                    return Err(ToolError::usage(
                        format!("package `{p}` is not a member of the workspace"),
                        Some(format!("the members are {}", known.join(", "))),
                    ));
                }
                args.extend(["--package".into(), p.clone()]);
            }
            if *workspace {
                args.push("--workspace".into());
            }
            if *all_targets {
                args.push("--all-targets".into());
            }
            args.extend(feature_args(features));
            run.cargo_check(&project, &manifest, &args, None)?;
        }
        Inputs::Files(files) => {
            // Crate roots first (`lib.rs`, `main.rs`, then the shallowest files), and a
            // file the compiler already read as a module of an earlier one is not
            // compiled again as a crate of its own: the output is the same whatever
            // the order the files are given in.
            let mut ordered: Vec<(u8, usize, PathBuf, &PathBuf)> = files
                .iter()
                .map(|file| {
                    let absolute =
                        std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
                    let root_name = matches!(
                        absolute.file_name().and_then(|n| n.to_str()),
                        Some("lib.rs" | "main.rs")
                    );
                    let depth = absolute.components().count();
                    (u8::from(!root_name), depth, absolute, file)
                })
                .collect();
            ordered.sort();
            ordered.dedup_by(|a, b| a.2 == b.2);
            for (_, _, absolute, file) in ordered {
                if run.files.contains_key(&absolute) {
                    continue;
                }
                run.loose_file(file)?;
            }
        }
    }
    run.unmatched_models();
    let analysed = Analysed {
        files: run.files.len(),
        lines: run.files.values().sum(),
    };
    let mut findings = run.findings;
    let sources = run.sources;
    crate::run::sort_findings(&sources, &mut findings);
    Ok((
        Checked {
            sources,
            findings,
            analysed,
            compile: run.compile,
            lower: run.lower,
            lints: run.lints,
            oracle: run.oracle,
        },
        run.dumps,
    ))
}

fn feature_args(features: &Features) -> Vec<String> {
    let mut args = Vec::new();
    if !features.named.is_empty() {
        args.extend(["--features".into(), features.named.join(",")]);
    }
    if features.all {
        args.push("--all-features".into());
    }
    if features.no_default {
        args.push("--no-default-features".into());
    }
    args
}

/// The workspace members left out of a check, and the root manifest that names them.
struct SkippedMembers {
    root_manifest: PathBuf,
    members: Vec<crate::partial::Skipped>,
}

/// A cargo workspace as `cargo metadata --no-deps` describes it.
struct Project {
    root: PathBuf,
    target_dir: PathBuf,
    metadata: cargo_metadata::Metadata,
    config: Config,
    /// For a stand-in of a workspace whose members do not all load: each stand-in
    /// member's folder and the real one it stands for.
    stand_ins: Vec<(String, String)>,
}

impl Project {
    fn load(manifest: &Path) -> Result<Project, ToolError> {
        if !manifest.is_file() {
            return Err(ToolError::usage(
                format!("manifest path `{}` does not exist", manifest.display()),
                None,
            ));
        }
        // Under tensor-lint's toolchain: the project may pin one that is not installed.
        let metadata = MetadataCommand::new()
            .manifest_path(manifest)
            .env("RUSTUP_TOOLCHAIN", crate::toolchain::channel())
            .no_deps()
            .exec()
            .map_err(|err| ToolError::Cargo {
                message: format!("`cargo metadata` failed for `{}`", manifest.display()),
                detail: match &err {
                    cargo_metadata::Error::CargoMetadata { stderr } => stderr.trim().to_string(),
                    other => other.to_string(),
                },
            })?;
        let root = metadata.workspace_root.clone().into_std_path_buf();
        let config = Config::load_workspace(&root)?;
        Ok(Project {
            target_dir: metadata.target_directory.clone().into_std_path_buf(),
            root,
            metadata,
            config,
            stand_ins: Vec::new(),
        })
    }

    /// The members of the workspace `manifest` belongs to that load, when some do not
    /// (see [`crate::partial`]), with those skipped and the root manifest naming them.
    fn load_partial(
        manifest: &Path,
    ) -> Result<Option<(Project, PathBuf, SkippedMembers)>, ToolError> {
        let manifest = std::path::absolute(manifest).unwrap_or_else(|_| manifest.to_path_buf());
        let Some(root_manifest) = manifest
            .ancestors()
            .skip(1)
            .map(|dir| dir.join("Cargo.toml"))
            .find(|m| {
                std::fs::read_to_string(m)
                    .ok()
                    .and_then(|text| text.parse::<toml::Table>().ok())
                    .is_some_and(|t| t.contains_key("workspace"))
            })
        else {
            return Ok(None);
        };
        let root = root_manifest
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let target_dir = std::env::var_os("CARGO_TARGET_DIR")
            .map(|dir| root.join(dir))
            .unwrap_or_else(|| root.join("target"));
        let into = target_dir.join("tensor-lint").join("partial-workspace");
        let Some(partial) = crate::partial::stand_in(&root_manifest, &into)? else {
            return Ok(None);
        };
        let mut project = Project::load(&partial.manifest)?;
        project.stand_ins = partial
            .real_manifests
            .iter()
            .filter_map(|(stand_in, real)| {
                Some((
                    stand_in.parent()?.display().to_string(),
                    real.parent()?.display().to_string(),
                ))
            })
            .collect();
        project.config = Config::load_workspace(&root)?;
        project.root = root;
        project.target_dir = target_dir;
        let skipped = SkippedMembers {
            root_manifest,
            members: partial.skipped,
        };
        Ok(Some((project, partial.manifest, skipped)))
    }

    fn real_origin(&self, origin: Origin) -> Origin {
        Origin {
            package_id: self.real(&origin.package_id),
            manifest_path: self.real(&origin.manifest_path),
            ..origin
        }
    }

    /// `text` (a package id or manifest path) with a stand-in member's folder replaced
    /// by the real one.
    fn real(&self, text: &str) -> String {
        for (stand_in, real) in &self.stand_ins {
            if let Some(rest) = text.strip_prefix(stand_in.as_str()) {
                return format!("{real}{rest}");
            }
            if let Some(at) = text.find(&format!("{stand_in}#")) {
                return format!("{}{real}{}", &text[..at], &text[at + stand_in.len()..]);
            }
        }
        text.to_string()
    }
}

/// One run of the front end over any number of `cargo check`s.
struct Run {
    sysroot: PathBuf,
    sources: SourceMap,
    findings: Vec<Finding>,
    /// Lines of every file analysed, each once.
    files: BTreeMap<PathBuf, usize>,
    flags: Vec<LevelFlag>,
    /// Asks the driver for the IR (see [`dump_ir`]), and what it gave.
    dump_ir: Option<String>,
    dumps: Vec<String>,
    /// The configuration's `[[models]]` rows a call of some analysed crate matched,
    /// and the configuration they come from (the first one a check used).
    models_matched: std::collections::BTreeSet<usize>,
    models_config: Option<Config>,
    crates_analysed: usize,
    /// Where the time went (`--timings`).
    compile: std::time::Duration,
    lower: std::time::Duration,
    lints: std::time::Duration,
    oracle: BTreeMap<&'static str, u64>,
}

/// How the findings of a loose file are shown: as the file is named, with its own
/// origin, rather than as the crate made for it.
struct Loose {
    origin: Origin,
    /// Outside any package, `#[tensor_lint::…]` cannot name the annotations' crate: the
    /// driver then takes `tensor_lint` for a tool and reads the annotations as its
    /// attributes (their arguments checked by the driver rather than the macros).
    tool_annotations: bool,
}

impl Run {
    /// `cargo check` of `manifest` with the driver, reading back what it found.
    fn cargo_check(
        &mut self,
        project: &Project,
        manifest: &Path,
        extra: &[String],
        loose: Option<&Loose>,
    ) -> Result<(), ToolError> {
        if self.models_config.is_none() {
            self.models_config = Some(project.config.clone());
        }
        let exe = std::env::current_exe()
            .map_err(|e| ToolError::io("cannot find the tensor-lint executable".into(), e))?;
        // Cargo runs in the project's folder (for its configuration): a manifest given
        // relative to where tensor-lint runs is made absolute first.
        let absolute;
        let manifest = if manifest.is_absolute() {
            manifest
        } else {
            absolute = std::env::current_dir()
                .map(|cwd| cwd.join(manifest))
                .unwrap_or_else(|_| manifest.to_path_buf());
            absolute.as_path()
        };
        let mut options = serde_json::json!({
            "cache_line_bytes": project.config.cache_line_bytes,
            "models": project.config.models,
        });
        if let Some(function) = &self.dump_ir {
            options["dump_ir"] = serde_json::Value::String(function.clone());
        }
        if loose.is_some_and(|l| l.tool_annotations) {
            options["tool_annotations"] = serde_json::Value::Bool(true);
        }
        let target_dir = project.target_dir.join("tensor-lint");
        let mut command = Command::new("cargo");
        command
            .arg("check")
            .arg("--manifest-path")
            .arg(manifest)
            .args(["--message-format=json", "--keep-going", "--quiet"])
            .args(extra)
            .env("RUSTUP_TOOLCHAIN", crate::toolchain::channel())
            .env("RUSTC_WORKSPACE_WRAPPER", &exe)
            .env(WRAPPER_ENV, "1")
            .env(crate_findings::OPTIONS_ENV, options.to_string())
            .env("CARGO_TARGET_DIR", &target_dir)
            .env("LD_LIBRARY_PATH", library_path(&self.sysroot))
            // The compiler's thread gets a deep stack (reserved, not used unless needed):
            // deeply nested code that is valid Rust must not crash it.
            .env(
                "RUST_MIN_STACK",
                std::env::var("RUST_MIN_STACK").unwrap_or_else(|_| (256usize << 20).to_string()),
            )
            .env_remove("CARGO")
            .env_remove("RUSTC")
            .env_remove("RUSTDOC")
            .env_remove("CARGO_BUILD_RUSTC")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Cargo reads its configuration (`.cargo/config.toml`) from where it runs: the
        // project's, or the folder of a loose file.
        let run_in = match loose {
            Some(l) => Path::new(&l.origin.src_path)
                .parent()
                .map(Path::to_path_buf),
            None => manifest.parent().map(Path::to_path_buf),
        };
        if let Some(dir) = run_in.filter(|d| !d.as_os_str().is_empty()) {
            command.current_dir(dir);
        }
        let started = std::time::Instant::now();
        let mut child = command
            .spawn()
            .map_err(|e| ToolError::io("cannot run `cargo check`".into(), e))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_reader = child.stderr.take().map(|mut err| {
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = std::io::Read::read_to_string(&mut err, &mut text);
                text
            })
        });
        let members: Vec<&cargo_metadata::Package> = project.metadata.workspace_packages();
        let mut artifacts: Vec<(cargo_metadata::Artifact, PathBuf)> = Vec::new();
        let mut compile_errors: Vec<(
            cargo_metadata::PackageId,
            cargo_metadata::Target,
            cargo_metadata::diagnostic::Diagnostic,
        )> = Vec::new();
        let mut finished = false;
        for message in Message::parse_stream(BufReader::new(stdout)) {
            let Ok(message) = message else { continue };
            match message {
                Message::CompilerArtifact(artifact) => {
                    if !members.iter().any(|p| p.id == artifact.package_id) {
                        continue;
                    }
                    let Some(rmeta) = artifact
                        .filenames
                        .iter()
                        .find(|f| f.extension() == Some("rmeta"))
                        .map(|f| f.clone().into_std_path_buf())
                    else {
                        continue;
                    };
                    artifacts.push((artifact, crate_findings::path_beside(&rmeta)));
                }
                Message::CompilerMessage(msg) => {
                    if msg.message.level == cargo_metadata::diagnostic::DiagnosticLevel::Error
                        && members.iter().any(|p| p.id == msg.package_id)
                    {
                        compile_errors.push((msg.package_id, msg.target, msg.message));
                    }
                }
                Message::BuildFinished(_) => finished = true,
                _ => {}
            }
        }
        let status = child
            .wait()
            .map_err(|e| ToolError::io("cannot wait for `cargo check`".into(), e))?;
        self.compile += started.elapsed();
        let stderr = stderr_reader
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        if !status.success() && artifacts.is_empty() && compile_errors.is_empty() {
            return Err(ToolError::Cargo {
                message: format!("`cargo check` failed for `{}`", manifest.display()),
                detail: if finished {
                    stderr.trim().to_string()
                } else {
                    format!("cargo stopped before it finished\n{}", stderr.trim())
                },
            });
        }
        let display_base = match loose {
            Some(_) => std::env::current_dir().unwrap_or_default(),
            None => project.root.clone(),
        };
        for (artifact, findings_path) in artifacts {
            let package = members.iter().find(|p| p.id == artifact.package_id);
            let origin = match loose {
                Some(l) => l.origin.clone(),
                None => project.real_origin(origin_of(package.copied(), &artifact.target)),
            };
            let config = match (loose, package) {
                (None, Some(p)) => project
                    .config
                    .for_package(Path::new(&project.real(p.manifest_path.as_str())))?,
                _ => project.config.clone(),
            };
            match CrateFindings::read(&findings_path) {
                Some(mut found) => {
                    if let Some(dump) = found.ir_dump.take() {
                        self.dumps.push(dump);
                    }
                    self.crates_analysed += 1;
                    self.lower += std::time::Duration::from_micros(found.timings.lower_us);
                    self.lints += std::time::Duration::from_micros(found.timings.lints_us);
                    for (path, count) in &found.timings.oracle {
                        let known = tensor_lint_analyzer::oracle::DecidedBy::ALL
                            .iter()
                            .map(|d| d.as_str())
                            .find(|name| name == path);
                        if let Some(name) = known {
                            *self.oracle.entry(name).or_insert(0) += count;
                        }
                    }
                    self.models_matched
                        .extend(found.user_models_matched.iter().copied());
                    if std::env::var_os(CHECK_MODELS_ENV).is_some() {
                        for row in &found.unresolved_models {
                            eprintln!("unresolved model row: {row}");
                        }
                    }
                    self.adopt(found, &origin, &config, &display_base)
                }
                None => self.findings.push(Finding {
                    diagnostic: missing_findings(&artifact.target.name, &mut self.sources),
                    origin,
                }),
            }
        }
        for (package_id, target, message) in compile_errors {
            let package = members.iter().find(|p| p.id == package_id).copied();
            let origin = match loose {
                Some(l) => l.origin.clone(),
                None => project.real_origin(origin_of(package, &target)),
            };
            let diagnostic = self.compile_error(&message, &project.root, &display_base);
            self.findings.push(Finding { diagnostic, origin });
        }
        Ok(())
    }

    /// A warning for each `[[models]]` row of the configuration that no call of the
    /// analysed crates matched: a path that names nothing (a typo, or an item the
    /// library moved) would otherwise change nothing without a word.
    fn unmatched_models(&mut self) {
        let Some(config) = self.models_config.take() else {
            return;
        };
        if self.crates_analysed == 0 {
            return;
        }
        for (k, model) in config.models.iter().enumerate() {
            if self.models_matched.contains(&k) {
                continue;
            }
            let Some((file, bytes)) = config.model_origins.get(k) else {
                continue;
            };
            let display_base = file.parent().unwrap_or(Path::new("")).to_path_buf();
            let id = self.file_id(file, &display_base);
            let (what, help) = match (&model.path, &model.method) {
                (Some(path), _) => (
                    format!("`{path}`"),
                    "write the function's path as the code names it (`module::function`, `Type::method`, or with the crate first); the row matches the functions whose path ends with it",
                ),
                _ => (
                    format!("method `{}`", model.method.as_deref().unwrap_or_default()),
                    "a row with `method` matches the methods of that name; give the function's `path` instead to match a free function",
                ),
            };
            let diagnostic = Diagnostic::new(
                Severity::Warning,
                format!("the model of {what} matches no function the checked code calls"),
                Label::new(
                    Span::new(id, bytes.start, bytes.end),
                    "this model changes nothing",
                ),
            )
            .with_help(help);
            self.findings.push(Finding {
                diagnostic,
                origin: Origin {
                    package_id: String::new(),
                    manifest_path: file.display().to_string(),
                    target_name: String::new(),
                    target_kind: Vec::new(),
                    crate_types: Vec::new(),
                    src_path: String::new(),
                    edition: String::new(),
                },
            });
        }
    }

    /// A warning for each workspace member that could not be loaded, at the entry of
    /// the root manifest that names it.
    fn skipped_members(&mut self, project: &Project, skipped: &SkippedMembers) {
        let file = self.file_id(&skipped.root_manifest, &project.root);
        for member in &skipped.members {
            let span = Span::new(file, member.span.start, member.span.end);
            let mut diagnostic = Diagnostic::new(
                Severity::Warning,
                format!("workspace member `{}` cannot be loaded", member.member),
                Label::new(span, "this member was not checked"),
            );
            for line in member
                .reason
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(12)
            {
                diagnostic.notes.push(line.trim_end().to_string());
            }
            diagnostic.helps.push(
                "fix its manifest, or leave it out with `exclude` in `[workspace]`; the other members were checked"
                    .into(),
            );
            let manifest_path = project.root.join(&member.member).join("Cargo.toml");
            self.findings.push(Finding {
                diagnostic,
                origin: Origin {
                    package_id: String::new(),
                    manifest_path: manifest_path.display().to_string(),
                    target_name: member.member.clone(),
                    target_kind: Vec::new(),
                    crate_types: Vec::new(),
                    src_path: String::new(),
                    edition: String::new(),
                },
            });
        }
    }

    /// Takes one crate's findings into the run: its files into the source map, its
    /// findings settled by the configuration and the command line.
    fn adopt(
        &mut self,
        found: CrateFindings,
        origin: &Origin,
        config: &Config,
        display_base: &Path,
    ) {
        let ids: Vec<FileId> = found
            .files
            .iter()
            .map(|path| self.file_id(path, display_base))
            .collect();
        let map = |f: FileId| ids.get(f.0 as usize).copied().unwrap_or(FileId(u32::MAX));
        let remap_span = |s: Span| Span {
            file: map(s.file),
            ..s
        };
        let problems: Vec<SourceError> = found
            .problems
            .iter()
            .map(|p| SourceError {
                span: remap_span(p.span),
                ..p.clone()
            })
            .collect();
        let regions: Vec<AllowRegion> = found
            .allows
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r.region = remap_span(r.region);
                for n in &mut r.names {
                    n.span = remap_span(n.span);
                }
                r
            })
            .collect();
        let lint_findings = found
            .findings
            .iter()
            .filter_map(|f| {
                let mut finding = f.to_finding()?;
                finding.diagnostic.map_files(map);
                Some(finding)
            })
            .filter(|f| {
                self.sources
                    .try_get(f.diagnostic.primary.span.file)
                    .is_some_and(|file| !config.is_excluded(&file.path))
            })
            .collect();
        let problem_refs: Vec<&SourceError> = problems.iter().collect();
        for diagnostic in settle(lint_findings, &problem_refs, &regions, config, &self.flags) {
            self.findings.push(Finding {
                diagnostic,
                origin: origin.clone(),
            });
        }
        if let Some(error) = found.internal_error {
            let span = error
                .span
                .map(remap_span)
                .or_else(|| ids.first().map(|&f| Span::new(f, 0, 0)))
                .unwrap_or(Span::new(FileId(0), 0, 0));
            // Named by the file it happened in when that is known, else by the crate.
            let what = error
                .span
                .map(remap_span)
                .and_then(|s| self.sources.try_get(s.file))
                .map_or_else(|| found.crate_name.clone(), |file| file.display.clone());
            let diagnostic = Diagnostic::new(
                Severity::Error,
                format!("internal error of tensor-lint while checking `{what}`"),
                Label::new(span, "while analysing this"),
            )
            .with_note(format!("the analyzer failed: {}", error.message))
            .with_help("this is a bug in tensor-lint; please report it with this crate's source");
            self.findings.push(Finding {
                diagnostic,
                origin: origin.clone(),
            });
        }
    }

    /// The id of `path` in the run's source map, reading it once.
    fn file_id(&mut self, path: &Path, display_base: &Path) -> FileId {
        if let Some(id) = self.sources.find_path(path) {
            return id;
        }
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let shown = path.strip_prefix(display_base).unwrap_or(path);
        let display = shown.display().to_string().replace('\\', "/");
        self.files
            .entry(path.to_path_buf())
            .or_insert_with(|| text.lines().count());
        self.sources.add(path.to_path_buf(), display, text)
    }

    /// An error of the compiler (the checked code does not build) as a finding of its
    /// own, at the place rustc points at.
    fn compile_error(
        &mut self,
        message: &cargo_metadata::diagnostic::Diagnostic,
        root: &Path,
        display_base: &Path,
    ) -> Diagnostic {
        // rustc's texts name files by absolute path where the findings name them from
        // the project's root.
        let base = format!("{}/", display_base.display());
        let text = |t: &str| t.replace(&base, "");
        let mut labels = Vec::new();
        for span in &message.spans {
            let path = if Path::new(&span.file_name).is_absolute() {
                PathBuf::from(&span.file_name)
            } else {
                root.join(&span.file_name)
            };
            let file = self.file_id(&path, display_base);
            let label = Label::new(
                Span::new(file, span.byte_start as usize, span.byte_end as usize),
                text(span.label.as_deref().unwrap_or_default()),
            );
            labels.push((span.is_primary, label));
        }
        let primary_at = labels.iter().position(|(primary, _)| *primary).unwrap_or(0);
        let primary = if labels.is_empty() {
            let file = self
                .sources
                .add(PathBuf::new(), String::new(), String::new());
            Label::new(Span::new(file, 0, 0), "")
        } else {
            labels.remove(primary_at).1
        };
        let mut diagnostic = Diagnostic::new(Severity::Error, text(&message.message), primary);
        diagnostic.secondary = labels.into_iter().map(|(_, label)| label).collect();
        for child in &message.children {
            let line = text(&child.message);
            match child.level {
                cargo_metadata::diagnostic::DiagnosticLevel::Help => diagnostic.helps.push(line),
                _ => diagnostic.notes.push(line),
            }
        }
        diagnostic
            .notes
            .push("the code does not compile, so tensor-lint could not check this crate".into());
        diagnostic
    }

    /// A loose file, compiled as a library of its own with the dependencies of the
    /// package it sits in.
    fn loose_file(&mut self, file: &Path) -> Result<(), ToolError> {
        if !file.is_file() {
            return Err(ToolError::usage(
                format!("`{}` does not exist or is not a file", file.display()),
                None,
            ));
        }
        let cwd = std::env::current_dir()
            .map_err(|e| ToolError::io("cannot read the current directory".into(), e))?;
        let absolute = std::fs::canonicalize(file).unwrap_or_else(|_| cwd.join(file));
        let crate_name = crate_name_of(&absolute);
        let enclosing = absolute.parent().and_then(|dir| {
            dir.ancestors()
                .map(|d| d.join("Cargo.toml"))
                .find(|m| m.is_file())
        });
        let host = match &enclosing {
            Some(manifest) => Some(Project::load(manifest)?),
            None => None,
        };
        let base_target = match &host {
            Some(p) => p.target_dir.clone(),
            None => std::env::temp_dir().join("tensor-lint-loose"),
        };
        let dir = base_target.join("tensor-lint").join("loose").join(format!(
            "{crate_name}-{:016x}",
            crate::report::stable_hash(&[&absolute.display().to_string()])
        ));
        std::fs::create_dir_all(&dir)
            .map_err(|e| ToolError::io(format!("cannot create `{}`", dir.display()), e))?;
        let manifest = dir.join("Cargo.toml");
        let (dependencies, edition, lockfile) = match &host {
            Some(project) => host_dependencies(project, enclosing.as_deref()),
            // Outside a package, the edition `rustc FILE.rs` reads.
            None => (String::new(), "2015".to_string(), None),
        };
        let text = format!(
            "[package]\nname = \"{crate_name}\"\nversion = \"0.0.0\"\nedition = \"{edition}\"\npublish = false\n\n[lib]\npath = {path}\n\n[dependencies]\n{dependencies}\n[workspace]\n",
            path = toml_string(&absolute.display().to_string()),
        );
        write_if_changed(&manifest, &text)?;
        if let Some(lock) = lockfile {
            if let Ok(lock_text) = std::fs::read_to_string(&lock) {
                write_if_changed(&dir.join("Cargo.lock"), &lock_text)?;
            }
        }
        let project = Project {
            root: dir.clone(),
            target_dir: base_target,
            metadata: MetadataCommand::new()
                .manifest_path(&manifest)
                .no_deps()
                .exec()
                .map_err(|err| ToolError::Cargo {
                    message: format!("cannot compile `{}` on its own", file.display()),
                    detail: err.to_string(),
                })?,
            config: match &host {
                Some(p) => p.config.clone(),
                None => Config::load_workspace(&cwd)?,
            },
            stand_ins: Vec::new(),
        };
        let dir_text = absolute.parent().unwrap_or(&cwd).display().to_string();
        let origin = Origin {
            package_id: format!("path+file://{dir_text}#{crate_name}@0.0.0"),
            manifest_path: absolute.display().to_string(),
            target_name: crate_name.clone(),
            target_kind: vec!["lib".into()],
            crate_types: vec!["lib".into()],
            src_path: absolute.display().to_string(),
            edition: edition_of(&text),
        };
        let loose = Loose {
            origin,
            tool_annotations: host.is_none(),
        };
        self.cargo_check(&project, &manifest, &[], Some(&loose))
    }
}

/// The dependencies of the package at `manifest` (the one a loose file sits in), as
/// `[dependencies]` lines, with its edition and its workspace's lockfile.
fn host_dependencies(
    project: &Project,
    manifest: Option<&Path>,
) -> (String, String, Option<PathBuf>) {
    let manifest = manifest.and_then(|m| std::fs::canonicalize(m).ok());
    let package = project
        .metadata
        .packages
        .iter()
        .find(|p| std::fs::canonicalize(p.manifest_path.as_std_path()).ok() == manifest);
    let lock = project.root.join("Cargo.lock");
    let lock = lock.is_file().then_some(lock);
    let Some(package) = package else {
        return (String::new(), "2021".into(), lock);
    };
    let mut out = String::new();
    for dep in &package.dependencies {
        if dep.kind != cargo_metadata::DependencyKind::Normal {
            continue;
        }
        let key = dep.rename.clone().unwrap_or_else(|| dep.name.clone());
        let mut parts = vec![format!("package = {}", toml_string(&dep.name))];
        match &dep.path {
            Some(path) => parts.push(format!("path = {}", toml_string(path.as_str()))),
            None => parts.push(format!("version = {}", toml_string(&dep.req.to_string()))),
        }
        if !dep.uses_default_features {
            parts.push("default-features = false".into());
        }
        if !dep.features.is_empty() {
            let list: Vec<String> = dep.features.iter().map(|f| toml_string(f)).collect();
            parts.push(format!("features = [{}]", list.join(", ")));
        }
        out.push_str(&format!("{key} = {{ {} }}\n", parts.join(", ")));
    }
    (out, package.edition.as_str().to_string(), lock)
}

fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

fn edition_of(manifest: &str) -> String {
    manifest
        .lines()
        .find_map(|l| l.strip_prefix("edition = "))
        .map(|e| e.trim_matches('"').to_string())
        .unwrap_or_else(|| "2021".into())
}

/// A crate name for a loose file: its stem, as rustc would make one of it.
fn crate_name_of(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let mut name: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name.insert_str(0, "file_");
    }
    name
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), ToolError> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text)
        .map_err(|e| ToolError::io(format!("cannot write `{}`", path.display()), e))
}

/// The origin of a finding in `target` of `package`, as cargo describes it.
fn origin_of(package: Option<&cargo_metadata::Package>, target: &cargo_metadata::Target) -> Origin {
    Origin {
        package_id: package.map(|p| p.id.repr.clone()).unwrap_or_default(),
        manifest_path: package
            .map(|p| p.manifest_path.to_string())
            .unwrap_or_default(),
        target_name: target.name.clone(),
        target_kind: target.kind.iter().map(|k| k.to_string()).collect(),
        crate_types: target.crate_types.iter().map(|k| k.to_string()).collect(),
        src_path: target.src_path.to_string(),
        edition: target.edition.as_str().to_string(),
    }
}

/// A crate cargo compiled whose findings file is missing: an internal error, said.
fn missing_findings(target: &str, sources: &mut SourceMap) -> Diagnostic {
    let file = sources.add(PathBuf::new(), String::new(), String::new());
    Diagnostic::new(
        Severity::Error,
        format!("tensor-lint did not analyse `{target}`"),
        Label::new(Span::new(file, 0, 0), ""),
    )
    .with_note("cargo compiled the crate, but the driver wrote no findings for it")
    .with_help("run `cargo clean` in the project's `target/tensor-lint` folder and check again")
}

/// `LD_LIBRARY_PATH` with the toolchain's libraries first: the driver links the
/// compiler's.
fn library_path(sysroot: &Path) -> std::ffi::OsString {
    let mut paths = vec![sysroot.join("lib")];
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        paths.extend(std::env::split_paths(&old));
    }
    std::env::join_paths(paths).unwrap_or_default()
}
