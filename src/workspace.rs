//! What to check: the targets of a cargo workspace (through `cargo metadata --no-deps`,
//! which never builds or runs anything of the project), or loose files.

use std::path::{Path, PathBuf};

use cargo_metadata::{Metadata, MetadataCommand, Package, TargetKind};

use tensor_lint_analyzer::syntax::cfg::CfgSet;
use tensor_lint_analyzer::syntax::Edition;

use crate::config::Config;
use crate::error::ToolError;
use crate::report::Origin;

/// What to check.
#[derive(Clone, Debug)]
pub enum Inputs {
    /// Loose files, each its own crate.
    Files(Vec<PathBuf>),
    Cargo {
        manifest_path: Option<PathBuf>,
        packages: Vec<String>,
        workspace: bool,
        /// Tests, benches and examples too, not only libraries and binaries.
        all_targets: bool,
        features: Features,
    },
}

/// Which cargo features to take as enabled, as cargo's flags say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    pub named: Vec<String>,
    pub all: bool,
    pub no_default: bool,
}

impl Features {
    /// The features of `package` these flags enable, each with the features it enables
    /// in turn (`default = ["std"]`, `std = ["alloc"]`).
    fn enabled(&self, package: &Package) -> std::collections::BTreeSet<String> {
        let mut on = std::collections::BTreeSet::new();
        let mut work: Vec<String> = if self.all {
            package.features.keys().cloned().collect()
        } else {
            self.named.clone()
        };
        if !self.no_default {
            work.push("default".into());
        }
        while let Some(feature) = work.pop() {
            // `dep:name` and `name/feature` name dependencies, not features of ours.
            if feature.starts_with("dep:") || feature.contains('/') || !on.insert(feature.clone()) {
                continue;
            }
            if let Some(implied) = package.features.get(&feature) {
                work.extend(implied.iter().cloned());
            }
        }
        on
    }
}

/// One crate to check: a cargo target or a loose file.
#[derive(Clone, Debug)]
pub struct Unit {
    pub crate_name: String,
    /// The features and test flag it is compiled with, as far as known.
    pub cfg: CfgSet,
    /// The edition it is parsed in: cargo's for a target, unknown for a loose file.
    pub edition: Edition,
    pub root_file: PathBuf,
    pub origin: Origin,
    pub config: Config,
    /// File names are shown relative to this folder.
    pub display_base: PathBuf,
}

pub fn units(inputs: &Inputs) -> Result<Vec<Unit>, ToolError> {
    match inputs {
        Inputs::Files(files) => loose_files(files),
        Inputs::Cargo {
            manifest_path,
            packages,
            workspace,
            all_targets,
            features,
        } => cargo_units(
            manifest_path.as_deref(),
            packages,
            *workspace,
            *all_targets,
            features,
        ),
    }
}

fn loose_files(files: &[PathBuf]) -> Result<Vec<Unit>, ToolError> {
    let cwd = std::env::current_dir()
        .map_err(|e| ToolError::io("cannot read the current directory".into(), e))?;
    let config = Config::load_workspace(&cwd)?;
    // Sorted by path, so that which file is taken as the root of which (when one loose
    // file declares another as its module) never depends on the argument order.
    let key = |f: &PathBuf| std::fs::canonicalize(f).unwrap_or_else(|_| cwd.join(f));
    let mut files: Vec<&PathBuf> = files.iter().collect();
    files.sort_by_key(|f| key(f));
    files.dedup_by_key(|f| key(f));
    files
        .into_iter()
        .map(|file| {
            if !file.is_file() {
                return Err(ToolError::usage(
                    format!("`{}` does not exist or is not a file", file.display()),
                    None,
                ));
            }
            let name = file
                .file_stem()
                .map(|s| s.to_string_lossy().replace('-', "_"))
                .unwrap_or_else(|| "main".into());
            let absolute = cwd.join(file);
            let dir = absolute.parent().unwrap_or(&cwd).display().to_string();
            Ok(Unit {
                origin: Origin {
                    package_id: format!("path+file://{dir}#{name}@0.0.0"),
                    manifest_path: absolute.display().to_string(),
                    target_name: name.clone(),
                    target_kind: vec!["bin".into()],
                    crate_types: vec!["bin".into()],
                    src_path: absolute.display().to_string(),
                    edition: "2021".into(),
                },
                crate_name: name,
                // `rustc FILE.rs` reads Rust 2015 unless told otherwise, and a file
                // from a cargo package reads its package's edition: try both.
                edition: Edition::Unknown,
                root_file: file.clone(),
                config: config.clone(),
                // A loose file has no package to name its features; `rustc FILE.rs`
                // compiles no test code.
                cfg: CfgSet {
                    features: None,
                    test: Some(false),
                },
                // Loose files are shown as given.
                display_base: PathBuf::new(),
            })
        })
        .collect()
}

fn cargo_units(
    manifest_path: Option<&Path>,
    packages: &[String],
    workspace: bool,
    all_targets: bool,
    features: &Features,
) -> Result<Vec<Unit>, ToolError> {
    let manifest = match manifest_path {
        Some(path) => {
            if !path.is_file() {
                return Err(ToolError::usage(
                    format!("manifest path `{}` does not exist", path.display()),
                    None,
                ));
            }
            path.to_path_buf()
        }
        None => find_manifest()?,
    };
    let metadata = metadata(&manifest)?;
    let root = metadata.workspace_root.clone().into_std_path_buf();
    let selected = select_packages(&metadata, &manifest, packages, workspace)?;
    let workspace_config = Config::load_workspace(&root)?;
    let mut units = Vec::new();
    for package in selected {
        let manifest_path = package.manifest_path.clone().into_std_path_buf();
        let config = workspace_config.for_package(&manifest_path)?;
        let enabled = features.enabled(package);
        for target in &package.targets {
            if !selected_target(&target.kind, all_targets) {
                continue;
            }
            // Tests and benches are built with `cfg(test)`; with `--all-targets` cargo
            // also checks libraries and binaries as unit tests, so either may hold.
            let test_harness = target
                .kind
                .iter()
                .any(|k| matches!(k, TargetKind::Test | TargetKind::Bench));
            let cfg = CfgSet {
                features: Some(enabled.clone()),
                test: if test_harness {
                    Some(true)
                } else if all_targets {
                    None
                } else {
                    Some(false)
                },
            };
            units.push(Unit {
                crate_name: target.name.replace('-', "_"),
                edition: Edition::from_cargo(target.edition.as_str()),
                root_file: target.src_path.clone().into_std_path_buf(),
                origin: Origin {
                    package_id: package.id.repr.clone(),
                    manifest_path: package.manifest_path.to_string(),
                    target_name: target.name.clone(),
                    target_kind: target.kind.iter().map(|k| k.to_string()).collect(),
                    crate_types: target.crate_types.iter().map(|k| k.to_string()).collect(),
                    src_path: target.src_path.to_string(),
                    edition: target.edition.as_str().to_string(),
                },
                config: config.clone(),
                cfg,
                display_base: root.clone(),
            });
        }
    }
    Ok(units)
}

/// As `cargo check` does: libraries and binaries, and with `--all-targets` also tests,
/// benches and examples. Build scripts are never looked at, let alone run.
fn selected_target(kinds: &[TargetKind], all_targets: bool) -> bool {
    kinds.iter().any(|kind| match kind {
        TargetKind::CustomBuild => false,
        TargetKind::Bin
        | TargetKind::Lib
        | TargetKind::RLib
        | TargetKind::DyLib
        | TargetKind::CDyLib
        | TargetKind::StaticLib
        | TargetKind::ProcMacro => true,
        _ => all_targets,
    })
}

/// The nearest `Cargo.toml` from the current directory upwards, as cargo finds it.
pub(crate) fn find_manifest() -> Result<PathBuf, ToolError> {
    let cwd = std::env::current_dir()
        .map_err(|e| ToolError::io("cannot read the current directory".into(), e))?;
    cwd.ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| {
            ToolError::usage(
                format!(
                    "could not find `Cargo.toml` in `{}` or any parent directory",
                    cwd.display()
                ),
                Some(
                    "pass `--manifest-path PATH`, or `.rs` files to check them on their own".into(),
                ),
            )
        })
}

fn metadata(manifest: &Path) -> Result<Metadata, ToolError> {
    let mut command = MetadataCommand::new();
    // `--no-deps`: no resolution, no downloads, no build scripts.
    command.manifest_path(manifest).no_deps();
    command.exec().map_err(|err| {
        let detail = match &err {
            cargo_metadata::Error::CargoMetadata { stderr } => stderr.trim().to_string(),
            other => other.to_string(),
        };
        ToolError::Cargo {
            message: format!("`cargo metadata` failed for `{}`", manifest.display()),
            detail,
        }
    })
}

fn select_packages<'m>(
    metadata: &'m Metadata,
    manifest: &Path,
    names: &[String],
    workspace: bool,
) -> Result<Vec<&'m Package>, ToolError> {
    let members = metadata.workspace_packages();
    if workspace {
        return Ok(members);
    }
    if !names.is_empty() {
        return names
            .iter()
            .map(|name| {
                members
                    .iter()
                    .copied()
                    .find(|p| p.name.as_str() == name.as_str())
                    .ok_or_else(|| {
                        let known: Vec<_> =
                            members.iter().map(|p| format!("`{}`", p.name)).collect();
                        ToolError::usage(
                            format!("package `{name}` is not a member of the workspace"),
                            Some(format!("the members are {}", known.join(", "))),
                        )
                    })
            })
            .collect();
    }
    let manifest = std::fs::canonicalize(manifest).unwrap_or_else(|_| manifest.to_path_buf());
    let this = members.iter().copied().find(|p| {
        std::fs::canonicalize(p.manifest_path.as_std_path()).is_ok_and(|m| m == manifest)
    });
    Ok(match this {
        Some(package) => vec![package],
        // A virtual manifest checks its default members, as cargo does.
        None => metadata.workspace_default_packages(),
    })
}
