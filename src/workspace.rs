//! What to check, as the command line names it: the packages and features of a cargo
//! workspace, or loose files.

use std::path::PathBuf;

use crate::error::ToolError;

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
