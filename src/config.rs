//! Configuration: `tensor-lint.toml` at the workspace root, `[workspace.metadata.tensor-lint]`
//! and `[package.metadata.tensor-lint]` in `Cargo.toml`.
//!
//! Every value keeps its TOML span, so a bad key or value is reported where it is written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use tensor_lint_analyzer::models::{ApiModel, Effect};
use tensor_lint_lints::diagnostic::Level;
use tensor_lint_lints::registry;
use toml::Spanned;

use crate::error::ToolError;

pub const CONFIG_FILE: &str = "tensor-lint.toml";
pub const DEFAULT_CACHE_LINE_BYTES: u32 = 64;

/// The keys users write, as read from TOML.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    cache_line_bytes: Option<Spanned<i64>>,
    exclude: Option<Vec<Spanned<String>>>,
    lints: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    /// Extra API models for crates the user cannot annotate.
    models: Option<Vec<Spanned<RawModel>>>,
}

/// One `[[models]]` row as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawModel {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    method: Option<String>,
    effect: RawEffect,
    #[serde(default)]
    arg: Option<usize>,
}

#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum RawEffect {
    Alloc,
    Free,
    View,
    Inplace,
    Read,
    Write,
    Spawn,
}

impl RawModel {
    fn into_model(self) -> ApiModel {
        ApiModel {
            path: self.path,
            method: self.method,
            effect: match self.effect {
                RawEffect::Alloc => Effect::Alloc,
                RawEffect::Free => Effect::Free,
                RawEffect::View => Effect::View,
                RawEffect::Inplace => Effect::Inplace,
                RawEffect::Read => Effect::Read,
                RawEffect::Write => Effect::Write,
                RawEffect::Spawn => Effect::Spawn,
            },
            arg: self.arg,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
struct RawManifest {
    workspace: Option<RawMetadataHolder>,
    package: Option<RawMetadataHolder>,
}

#[derive(Debug, Default, Deserialize)]
struct RawMetadataHolder {
    metadata: Option<RawMetadata>,
}

#[derive(Debug, Default, Deserialize)]
struct RawMetadata {
    #[serde(rename = "tensor-lint")]
    tensor_lint: Option<RawConfig>,
}

/// Effective settings for the files of one package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub cache_line_bytes: u32,
    /// Globs relative to `root`, `/`-separated.
    pub exclude: Vec<String>,
    /// Levels set by configuration, by lint name.
    pub levels: BTreeMap<&'static str, Level>,
    /// The folder `exclude` globs are relative to.
    pub root: PathBuf,
    /// Extra API models, in the order written.
    pub models: Vec<ApiModel>,
    /// Where each of them is written: the file and the bytes of its row.
    pub model_origins: Vec<(PathBuf, std::ops::Range<usize>)>,
}

impl Config {
    pub fn new(root: PathBuf) -> Config {
        Config {
            cache_line_bytes: DEFAULT_CACHE_LINE_BYTES,
            exclude: Vec::new(),
            levels: BTreeMap::new(),
            root,
            models: Vec::new(),
            model_origins: Vec::new(),
        }
    }

    /// Whether `path` matches one of the `exclude` globs.
    pub fn is_excluded(&self, path: &Path) -> bool {
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return false;
        };
        let relative = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        self.exclude
            .iter()
            .any(|glob| glob_matches(glob, &relative))
    }

    /// Configuration for the workspace at `root`: its `Cargo.toml`'s
    /// `[workspace.metadata.tensor-lint]`, then `tensor-lint.toml` over it.
    pub fn load_workspace(root: &Path) -> Result<Config, ToolError> {
        let mut config = Config::new(root.to_path_buf());
        let manifest = root.join("Cargo.toml");
        if manifest.is_file() {
            let text = read(&manifest)?;
            let raw: RawManifest = parse(&manifest, &text)?;
            if let Some(section) = raw
                .workspace
                .and_then(|w| w.metadata)
                .and_then(|m| m.tensor_lint)
            {
                config.apply(section, &manifest, &text)?;
            }
        }
        let file = root.join(CONFIG_FILE);
        if file.is_file() {
            config.apply_file(&file, &read(&file)?)?;
        }
        Ok(config)
    }

    /// `text`, a `tensor-lint.toml` at `file`, over this configuration.
    pub fn apply_file(&mut self, file: &Path, text: &str) -> Result<(), ToolError> {
        let raw: RawConfig = parse(file, text)?;
        self.apply(raw, file, text)
    }

    /// This configuration with a package's `[package.metadata.tensor-lint]` over it.
    pub fn for_package(&self, manifest: &Path) -> Result<Config, ToolError> {
        let mut config = self.clone();
        let text = read(manifest)?;
        let raw: RawManifest = parse(manifest, &text)?;
        if let Some(section) = raw
            .package
            .and_then(|p| p.metadata)
            .and_then(|m| m.tensor_lint)
        {
            config.apply(section, manifest, &text)?;
        }
        Ok(config)
    }

    fn apply(&mut self, raw: RawConfig, file: &Path, text: &str) -> Result<(), ToolError> {
        let bad =
            |span: std::ops::Range<usize>, message: String, label: &str, help: Option<String>| {
                ToolError::config(file, text, span, message, label, help)
            };
        if let Some(bytes) = raw.cache_line_bytes {
            let value = *bytes.get_ref();
            if !(8..=4096).contains(&value) || (value & (value - 1)) != 0 {
                return Err(bad(
                    bytes.span(),
                    format!("invalid `cache-line-bytes` {value}"),
                    "expected a power of two from 8 to 4096",
                    Some("common values are 64 (x86-64, most ARM) and 128 (Apple M-series)".into()),
                ));
            }
            self.cache_line_bytes = value as u32;
        }
        if let Some(globs) = raw.exclude {
            for glob in globs {
                if glob.get_ref().trim().is_empty() {
                    return Err(bad(
                        glob.span(),
                        "empty `exclude` pattern".into(),
                        "matches nothing",
                        None,
                    ));
                }
                self.exclude.push(glob.into_inner());
            }
        }
        for raw_model in raw.models.unwrap_or_default() {
            let span = raw_model.span();
            let model = raw_model.into_inner().into_model();
            if let Err(problem) = model.validate() {
                return Err(bad(
                    span,
                    format!("invalid model: {problem}"),
                    "in this model",
                    None,
                ));
            }
            self.models.push(model);
            self.model_origins.push((file.to_path_buf(), span));
        }
        for (name, level) in raw.lints.unwrap_or_default() {
            let Some(lint) = registry::find(name.get_ref()) else {
                return Err(bad(
                    name.span(),
                    format!("unknown lint `{}`", name.get_ref()),
                    "no lint of this name",
                    Some(suggest_lint(name.get_ref())),
                ));
            };
            let Some(parsed) = Level::parse(level.get_ref()) else {
                return Err(bad(
                    level.span(),
                    format!("invalid level `{}` for `{}`", level.get_ref(), lint.name),
                    "expected `allow`, `warn` or `deny`",
                    None,
                ));
            };
            self.levels.insert(lint.name, parsed);
        }
        Ok(())
    }
}

fn read(path: &Path) -> Result<String, ToolError> {
    std::fs::read_to_string(path)
        .map_err(|err| ToolError::io(format!("cannot read `{}`", path.display()), err))
}

fn parse<'de, T: Deserialize<'de>>(path: &Path, text: &'de str) -> Result<T, ToolError> {
    toml::from_str(text).map_err(|err| {
        let span = err.span().unwrap_or(0..0);
        ToolError::config(
            path,
            text,
            span,
            err.message().trim().to_string(),
            "here",
            None,
        )
    })
}

/// "did you mean …" for a misspelt lint name, or the list of lints.
pub fn suggest_lint(name: &str) -> String {
    let short = name.strip_prefix("tensor_lint::").unwrap_or(name);
    let closest = registry::lints()
        .iter()
        .map(|lint| (edit_distance(short, lint.name), lint.name))
        .min();
    match closest {
        Some((distance, best)) if distance <= short.len().max(3) / 3 + 1 => {
            format!("did you mean `{best}`?")
        }
        _ => {
            let names: Vec<_> = registry::lints()
                .iter()
                .map(|l| format!("`{}`", l.name))
                .collect();
            format!("the lints are {}", names.join(", "))
        }
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

/// Matches a `/`-separated relative path against a glob: `*` and `?` within one path
/// component, `**` across components; a pattern without wildcards also matches
/// everything below it (`benches` excludes `benches/x.rs`).
pub fn glob_matches(pattern: &str, path: &str) -> bool {
    let pattern = pattern.trim_start_matches("./").trim_end_matches('/');
    let pattern: Vec<&str> = pattern.split('/').collect();
    let path: Vec<&str> = path.split('/').collect();
    components_match(&pattern, &path, true)
}

fn components_match(pattern: &[&str], path: &[&str], prefix_ok: bool) -> bool {
    match pattern.split_first() {
        None => path.is_empty() || prefix_ok,
        Some((&"**", rest)) => {
            (0..=path.len()).any(|skip| components_match(rest, &path[skip..], false))
        }
        Some((first, rest)) => match path.split_first() {
            Some((name, path_rest)) => {
                component_matches(first.as_bytes(), name.as_bytes())
                    && components_match(rest, path_rest, prefix_ok)
            }
            None => false,
        },
    }
}

fn component_matches(pattern: &[u8], name: &[u8]) -> bool {
    match pattern.split_first() {
        None => name.is_empty(),
        Some((b'*', rest)) => (0..=name.len()).any(|skip| component_matches(rest, &name[skip..])),
        Some((b'?', rest)) => !name.is_empty() && component_matches(rest, &name[1..]),
        Some((c, rest)) => name.first() == Some(c) && component_matches(rest, &name[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "tensor-lint-config-{}-{}",
            std::process::id(),
            files
                .iter()
                .map(|(a, b)| a.len() * 7 + b.len())
                .sum::<usize>()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in files {
            std::fs::write(dir.join(name), text).unwrap();
        }
        dir
    }

    fn error_text(err: ToolError) -> String {
        format!("{:?}", miette::Report::new(err))
    }

    #[test]
    fn reads_levels_line_size_and_excludes() {
        let dir = workspace(&[(
            CONFIG_FILE,
            "cache-line-bytes = 128\nexclude = [\"benches/**\"]\n[lints]\nleak = \"deny\"\n\"tensor_lint::false_sharing\" = \"allow\"\n",
        )]);
        let config = Config::load_workspace(&dir).unwrap();
        assert_eq!(config.cache_line_bytes, 128);
        assert_eq!(config.levels.get("leak"), Some(&Level::Deny));
        assert_eq!(config.levels.get("false_sharing"), Some(&Level::Allow));
        assert!(config.is_excluded(&dir.join("benches/big.rs")));
        assert!(!config.is_excluded(&dir.join("src/lib.rs")));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn tensor_lint_toml_overrides_workspace_metadata_and_package_overrides_both() {
        let dir = workspace(&[
            (
                "Cargo.toml",
                "[workspace]\n[workspace.metadata.tensor-lint]\ncache-line-bytes = 32\n[workspace.metadata.tensor-lint.lints]\nleak = \"allow\"\n\n[package]\nname = \"x\"\n[package.metadata.tensor-lint.lints]\nalias_race = \"warn\"\n",
            ),
            (CONFIG_FILE, "[lints]\nleak = \"deny\"\n"),
        ]);
        let config = Config::load_workspace(&dir).unwrap();
        assert_eq!(config.cache_line_bytes, 32);
        assert_eq!(config.levels.get("leak"), Some(&Level::Deny));
        let package = config.for_package(&dir.join("Cargo.toml")).unwrap();
        assert_eq!(package.levels.get("alias_race"), Some(&Level::Warn));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn unknown_lint_points_at_the_key_and_suggests() {
        let dir = workspace(&[(CONFIG_FILE, "[lints]\nleek = \"deny\"\n")]);
        let text = error_text(Config::load_workspace(&dir).unwrap_err());
        assert!(text.contains("unknown lint `leek`"), "{text}");
        assert!(text.contains("did you mean `leak`?"), "{text}");
        assert!(text.contains("leek = \"deny\""), "{text}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn bad_values_and_keys_are_errors_with_spans() {
        for (toml, expected) in [
            (
                "[lints]\nleak = \"error\"\n",
                "invalid level `error` for `leak`",
            ),
            ("cache-line-bytes = 100\n", "invalid `cache-line-bytes` 100"),
            ("cache-line-byte = 64\n", "unknown field `cache-line-byte`"),
            ("exclude = \"benches\"\n", "invalid type"),
            ("[lints\n", "unclosed table"),
        ] {
            let dir = workspace(&[(CONFIG_FILE, toml)]);
            let err = Config::load_workspace(&dir).unwrap_err();
            let text = error_text(err);
            assert!(text.contains(expected), "{toml:?}: {text}");
            assert!(text.contains("tensor-lint.toml"), "{text}");
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    #[test]
    fn models_are_read_and_checked() {
        let dir = workspace(&[(
            CONFIG_FILE,
            "[[models]]\nmethod = \"checkin\"\neffect = \"free\"\narg = 1\n",
        )]);
        let config = Config::load_workspace(&dir).unwrap();
        assert_eq!(config.models.len(), 1);
        let _ = std::fs::remove_dir_all(&dir);
        for (toml, expected) in [
            ("[[models]]\neffect = \"free\"\narg = 1\n", "invalid model"),
            (
                "[[models]]\nmethod = \"x\"\neffect = \"explode\"\n",
                "unknown variant `explode`",
            ),
            (
                "[[models]]\nmethod = \"x\"\neffect = \"alloc\"\ncolour = 1\n",
                "unknown field `colour`",
            ),
        ] {
            let dir = workspace(&[(CONFIG_FILE, toml)]);
            let text = error_text(Config::load_workspace(&dir).unwrap_err());
            assert!(text.contains(expected), "{toml:?}: {text}");
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    #[test]
    fn globs_match_like_gitignore_paths() {
        assert!(glob_matches("benches/**", "benches/a/b.rs"));
        assert!(glob_matches("benches", "benches/a.rs"));
        assert!(glob_matches("**/generated_*.rs", "src/x/generated_ops.rs"));
        assert!(glob_matches("src/*.rs", "src/lib.rs"));
        assert!(!glob_matches("src/*.rs", "src/a/lib.rs"));
        assert!(glob_matches("src/?.rs", "src/a.rs"));
        assert!(!glob_matches("bench", "benches/a.rs"));
    }

    #[test]
    fn lint_suggestions_are_close_names_only() {
        assert_eq!(suggest_lint("double_fre"), "did you mean `double_free`?");
        assert!(suggest_lint("xyzzy").starts_with("the lints are `leak`"));
    }
}
