//! A workspace some of whose members cannot be loaded (a manifest that does not parse,
//! a member folder that is gone). Cargo refuses the whole workspace then; tensor-lint
//! checks the members that do load and says which it skipped and why.
//!
//! It does so through a stand-in workspace in its own target folder: one folder per
//! member that loads, whose `Cargo.toml` is the member's own with what it inherits from
//! the workspace written out and every path made absolute (its targets name the real
//! source files, so findings point into the project), and whose other entries link to
//! the member's, so that what a build script or `include_str!` reads through
//! `CARGO_MANIFEST_DIR` is found. The real project is never written to.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cargo_metadata::MetadataCommand;
use toml::{Table, Value};

use crate::error::ToolError;

/// The stand-in workspace of the members that load.
pub struct Partial {
    /// Its root manifest, to check instead of the real one.
    pub manifest: PathBuf,
    /// The members left out, in the order the workspace lists them.
    pub skipped: Vec<Skipped>,
    /// Stand-in member manifest → the member's real manifest.
    pub real_manifests: BTreeMap<PathBuf, PathBuf>,
}

/// A member that could not be loaded.
pub struct Skipped {
    /// Its folder as the workspace names it (`crates/io`).
    pub member: String,
    /// Where the root manifest names it (a byte range of `root_text`).
    pub span: std::ops::Range<usize>,
    /// What cargo or the TOML parser said.
    pub reason: String,
}

/// Whether `cargo metadata` refused a workspace because of one of its members.
pub fn is_member_failure(detail: &str) -> bool {
    detail.contains("failed to load manifest for workspace member")
}

/// The stand-in workspace for `root_manifest`, built under `into`. `None` when the root
/// manifest itself cannot be read: then cargo's own error is the clearest.
pub fn stand_in(root_manifest: &Path, into: &Path) -> Result<Option<Partial>, ToolError> {
    let Ok(root_text) = std::fs::read_to_string(root_manifest) else {
        return Ok(None);
    };
    let Ok(root) = root_text.parse::<Table>() else {
        return Ok(None);
    };
    let root_dir = root_manifest
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let Some(workspace) = root.get("workspace").and_then(Value::as_table) else {
        return Ok(None);
    };
    let mut members: Vec<Member> = Vec::new();
    if root.contains_key("package") {
        members.push(Member::new(".".into(), root_dir.clone(), 0..0));
    }
    let excluded: Vec<PathBuf> = string_list(workspace.get("exclude"))
        .iter()
        .map(|e| root_dir.join(e))
        .collect();
    for entry in string_list(workspace.get("members")) {
        let span = quoted_span(&root_text, &entry);
        for dir in expand(&root_dir, &entry) {
            if !excluded.contains(&dir) && !members.iter().any(|m| m.dir == dir) {
                members.push(Member::new(entry.clone(), dir, span.clone()));
            }
        }
    }
    let _ = std::fs::remove_dir_all(into);
    std::fs::create_dir_all(into)
        .map_err(|e| ToolError::io(format!("cannot create `{}`", into.display()), e))?;
    let mut skipped = Vec::new();
    for (k, member) in members.iter_mut().enumerate() {
        member.stand_in = into.join(format!("m{k}"));
        match read_member(&member.dir) {
            Ok(table) => member.manifest = Some(table),
            Err(reason) => skipped.push(member.skip(reason)),
        }
    }
    let workspace_package = workspace.get("package").and_then(Value::as_table);
    let workspace_deps = workspace.get("dependencies").and_then(Value::as_table);
    // Cargo names the member it could not load; each round leaves one more out.
    loop {
        let loaded: Vec<&Member> = members.iter().filter(|m| m.manifest.is_some()).collect();
        let dirs: BTreeMap<PathBuf, PathBuf> = loaded
            .iter()
            .map(|m| (m.dir.clone(), m.stand_in.clone()))
            .collect();
        for member in &loaded {
            write_member(member, &root_dir, workspace_package, workspace_deps, &dirs)?;
        }
        let manifest = write_root(&root, &root_dir, into, &loaded)?;
        let failure = match MetadataCommand::new()
            .manifest_path(&manifest)
            .env("RUSTUP_TOOLCHAIN", crate::toolchain::channel())
            .no_deps()
            .exec()
        {
            Ok(_) => None,
            Err(cargo_metadata::Error::CargoMetadata { stderr }) => Some(stderr),
            Err(other) => Some(other.to_string()),
        };
        let Some(stderr) = failure else {
            let real_manifests = loaded
                .iter()
                .map(|m| (m.stand_in.join("Cargo.toml"), m.dir.join("Cargo.toml")))
                .collect();
            return Ok(Some(Partial {
                manifest,
                skipped,
                real_manifests,
            }));
        };
        let culprit = members.iter_mut().find(|m| {
            m.manifest.is_some()
                && (stderr.contains(&format!("`{}`", m.stand_in.display()))
                    || stderr.contains(&m.stand_in.join("Cargo.toml").display().to_string()))
        });
        match culprit {
            Some(member) => {
                let reason = cargo_reason(&stderr).replace(
                    &member.stand_in.display().to_string(),
                    &member.dir.display().to_string(),
                );
                skipped.push(member.skip(reason));
            }
            // Not one member's fault: cargo's error on the real workspace stands.
            None => return Ok(None),
        }
    }
}

struct Member {
    entry: String,
    dir: PathBuf,
    span: std::ops::Range<usize>,
    stand_in: PathBuf,
    manifest: Option<Table>,
}

impl Member {
    fn new(entry: String, dir: PathBuf, span: std::ops::Range<usize>) -> Member {
        Member {
            entry,
            dir,
            span,
            stand_in: PathBuf::new(),
            manifest: None,
        }
    }

    fn skip(&mut self, reason: String) -> Skipped {
        self.manifest = None;
        let member = if self.entry.contains('*') || self.entry.contains('?') {
            let root = self.dir.ancestors().nth(self.entry.split('/').count());
            root.and_then(|r| self.dir.strip_prefix(r).ok())
                .unwrap_or(&self.dir)
                .display()
                .to_string()
        } else {
            self.entry.clone()
        };
        Skipped {
            member,
            span: self.span.clone(),
            reason: reason.trim().to_string(),
        }
    }
}

fn read_member(dir: &Path) -> Result<Table, String> {
    let path = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    text.parse::<Table>().map_err(|e| {
        let at = e.span().map(|s| s.start).unwrap_or(0).min(text.len());
        let line = text[..at].matches('\n').count() + 1;
        let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
        format!(
            "`{}` is not valid TOML: {} (line {line}, column {column})",
            path.display(),
            e.message().trim_end()
        )
    })
}

/// Cargo's error, without the source excerpts it draws and the `error:` prefixes.
fn cargo_reason(stderr: &str) -> String {
    stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('|') && !l.starts_with("-->"))
        .filter(|l| !l.chars().next().is_some_and(|c| c.is_ascii_digit()) || !l.contains(" | "))
        .map(|l| l.strip_prefix("error: ").unwrap_or(l))
        .filter(|l| {
            *l != "Caused by:"
                && !l.starts_with("failed to load manifest for workspace member")
                && !l.starts_with("referenced by workspace at")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The member's manifest with its inheritance written out and its paths absolute, and
/// links to the rest of its folder.
fn write_member(
    member: &Member,
    root_dir: &Path,
    workspace_package: Option<&Table>,
    workspace_deps: Option<&Table>,
    members: &BTreeMap<PathBuf, PathBuf>,
) -> Result<(), ToolError> {
    let mut manifest = member.manifest.clone().unwrap_or_default();
    let dir = &member.dir;
    manifest.remove("workspace");
    if let Some(Value::Table(lints)) = manifest.get("lints") {
        if lints.get("workspace").and_then(Value::as_bool) == Some(true) {
            manifest.remove("lints");
        }
    }
    if let Some(Value::Table(package)) = manifest.get_mut("package") {
        package.remove("workspace");
        for (key, value) in package.iter_mut() {
            if is_inherited(value) {
                if let Some(shared) = workspace_package.and_then(|p| p.get(key)) {
                    *value = shared.clone();
                    if matches!(key.as_str(), "readme" | "license-file") {
                        absolutize(value, root_dir);
                    }
                }
            } else if matches!(key.as_str(), "readme" | "license-file" | "build") {
                absolutize(value, dir);
            }
        }
        if !package.contains_key("build") && dir.join("build.rs").is_file() {
            package.insert("build".into(), path_value(&dir.join("build.rs")));
        }
        for auto in ["autobins", "autoexamples", "autotests", "autobenches"] {
            package.insert(auto.into(), Value::Boolean(false));
        }
    }
    let package_name = manifest
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    write_targets(&mut manifest, dir, &package_name);
    for_each_dependency_table(&mut manifest, &mut |deps| {
        for (name, dep) in deps.iter_mut() {
            resolve_dependency(name, dep, dir, root_dir, workspace_deps, members);
        }
    });
    std::fs::create_dir_all(&member.stand_in)
        .map_err(|e| ToolError::io(format!("cannot create `{}`", member.stand_in.display()), e))?;
    link_entries(dir, &member.stand_in);
    write(&member.stand_in.join("Cargo.toml"), &manifest.to_string())
}

fn is_inherited(value: &Value) -> bool {
    value
        .as_table()
        .and_then(|t| t.get("workspace"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// The library, binaries, examples, tests and benches with absolute paths: those the
/// manifest lists, and those cargo would find in the member's folder.
fn write_targets(manifest: &mut Table, dir: &Path, package_name: &str) {
    let lib_default = dir.join("src/lib.rs");
    match manifest.get_mut("lib") {
        Some(Value::Table(lib)) => match lib.get_mut("path") {
            Some(path) => absolutize(path, dir),
            None => {
                lib.insert("path".into(), path_value(&lib_default));
            }
        },
        _ if lib_default.is_file() => {
            let mut lib = Table::new();
            lib.insert("path".into(), path_value(&lib_default));
            manifest.insert("lib".into(), Value::Table(lib));
        }
        _ => {}
    }
    for (key, folder) in [
        ("bin", "src/bin"),
        ("example", "examples"),
        ("test", "tests"),
        ("bench", "benches"),
    ] {
        let mut listed: Vec<Table> = match manifest.remove(key) {
            Some(Value::Array(items)) => items
                .into_iter()
                .filter_map(|v| v.as_table().cloned())
                .collect(),
            _ => Vec::new(),
        };
        for target in &mut listed {
            let name = target
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            match target.get_mut("path") {
                Some(path) => absolutize(path, dir),
                None => {
                    let default = if key == "bin" && name == package_name {
                        dir.join("src/main.rs")
                    } else {
                        dir.join(folder).join(format!("{name}.rs"))
                    };
                    target.insert("path".into(), path_value(&default));
                }
            }
        }
        let mut found: Vec<(String, PathBuf)> = Vec::new();
        if key == "bin" && dir.join("src/main.rs").is_file() {
            found.push((package_name.to_string(), dir.join("src/main.rs")));
        }
        found.extend(discover(&dir.join(folder)));
        for (name, path) in found {
            let taken = listed.iter().any(|t| {
                t.get("name").and_then(Value::as_str) == Some(name.as_str())
                    || t.get("path").and_then(Value::as_str) == path.to_str()
            });
            if !taken {
                let mut target = Table::new();
                target.insert("name".into(), Value::String(name));
                target.insert("path".into(), path_value(&path));
                listed.push(target);
            }
        }
        if !listed.is_empty() {
            let items = listed.into_iter().map(Value::Table).collect();
            manifest.insert(key.into(), Value::Array(items));
        }
    }
}

/// `folder/NAME.rs` and `folder/NAME/main.rs`, as cargo discovers targets.
fn discover(folder: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut found: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let path = entry.path();
            let name = path.file_stem()?.to_str()?.to_string();
            if path.extension().is_some_and(|e| e == "rs") && path.is_file() {
                Some((name, path))
            } else if path.join("main.rs").is_file() {
                let file_name = path.file_name()?.to_str()?.to_string();
                Some((file_name, path.join("main.rs")))
            } else {
                None
            }
        })
        .collect();
    found.sort();
    found
}

fn for_each_dependency_table(manifest: &mut Table, visit: &mut dyn FnMut(&mut Table)) {
    const KINDS: [&str; 5] = [
        "dependencies",
        "dev-dependencies",
        "dev_dependencies",
        "build-dependencies",
        "build_dependencies",
    ];
    for kind in KINDS {
        if let Some(Value::Table(deps)) = manifest.get_mut(kind) {
            visit(deps);
        }
    }
    if let Some(Value::Table(targets)) = manifest.get_mut("target") {
        for (_, platform) in targets.iter_mut() {
            if let Value::Table(platform) = platform {
                for kind in KINDS {
                    if let Some(Value::Table(deps)) = platform.get_mut(kind) {
                        visit(deps);
                    }
                }
            }
        }
    }
}

/// A dependency as the member means it: `{ workspace = true }` merged with the
/// workspace's entry, paths absolute, paths to other members pointed at their
/// stand-ins.
fn resolve_dependency(
    name: &str,
    dep: &mut Value,
    dir: &Path,
    root_dir: &Path,
    workspace_deps: Option<&Table>,
    members: &BTreeMap<PathBuf, PathBuf>,
) {
    let mut base_dir = dir;
    if is_inherited(dep) {
        let own = dep.as_table().cloned().unwrap_or_default();
        let mut merged = match workspace_deps.and_then(|d| d.get(name)) {
            Some(Value::String(version)) => {
                let mut t = Table::new();
                t.insert("version".into(), Value::String(version.clone()));
                t
            }
            Some(Value::Table(t)) => t.clone(),
            _ => return,
        };
        for (key, value) in own {
            match (key.as_str(), merged.get_mut("features"), &value) {
                ("workspace", _, _) => {}
                ("features", Some(Value::Array(shared)), Value::Array(more)) => {
                    shared.extend(more.iter().cloned())
                }
                _ => {
                    merged.insert(key, value);
                }
            }
        }
        *dep = Value::Table(merged);
        base_dir = root_dir;
    }
    if let Some(Value::Table(table)) = Some(dep) {
        if let Some(path) = table.get_mut("path") {
            absolutize(path, base_dir);
            if let Some(stand_in) = path
                .as_str()
                .map(Path::new)
                .and_then(|p| members.get(&normalize(p)))
            {
                *path = path_value(stand_in);
            }
        }
    }
}

/// The stand-in root: the loaded members, and the root's resolver, patches and
/// profiles; with the root's lockfile beside it, so that versions stay as locked.
fn write_root(
    root: &Table,
    root_dir: &Path,
    into: &Path,
    members: &[&Member],
) -> Result<PathBuf, ToolError> {
    let mut workspace = Table::new();
    let names: Vec<Value> = members
        .iter()
        .filter_map(|m| {
            let name = m.stand_in.file_name()?.to_str()?;
            Some(Value::String(name.to_string()))
        })
        .collect();
    workspace.insert("members".into(), Value::Array(names));
    let real = root.get("workspace").and_then(Value::as_table);
    let resolver = real
        .and_then(|w| w.get("resolver"))
        .cloned()
        .unwrap_or_else(|| Value::String("2".into()));
    workspace.insert("resolver".into(), resolver);
    let mut out = Table::new();
    out.insert("workspace".into(), Value::Table(workspace));
    if let Some(Value::Table(profile)) = root.get("profile") {
        out.insert("profile".into(), Value::Table(profile.clone()));
    }
    if let Some(Value::Table(patch)) = root.get("patch") {
        let mut patch = patch.clone();
        for (_, source) in patch.iter_mut() {
            if let Value::Table(source) = source {
                for (_, dep) in source.iter_mut() {
                    if let Some(path) = dep.as_table_mut().and_then(|t| t.get_mut("path")) {
                        absolutize(path, root_dir);
                    }
                }
            }
        }
        out.insert("patch".into(), Value::Table(patch));
    }
    if let Ok(lock) = std::fs::read_to_string(root_dir.join("Cargo.lock")) {
        write(&into.join("Cargo.lock"), &lock)?;
    }
    let manifest = into.join("Cargo.toml");
    write(&manifest, &out.to_string())?;
    Ok(manifest)
}

/// Links in `stand_in` to the entries of `dir` a build may read, but for its manifest,
/// lockfile and build output.
fn link_entries(dir: &Path, stand_in: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        if matches!(
            name.to_str(),
            Some("Cargo.toml" | "Cargo.lock" | "target" | ".git")
        ) {
            continue;
        }
        let link = stand_in.join(&name);
        if link.symlink_metadata().is_ok() {
            continue;
        }
        #[cfg(unix)]
        let _ = std::os::unix::fs::symlink(entry.path(), &link);
        #[cfg(windows)]
        let _ = if entry.path().is_dir() {
            std::os::windows::fs::symlink_dir(entry.path(), &link)
        } else {
            std::os::windows::fs::symlink_file(entry.path(), &link)
        };
    }
}

fn absolutize(value: &mut Value, base: &Path) {
    if let Some(text) = value.as_str() {
        *value = path_value(&normalize(&base.join(text)));
    }
}

fn path_value(path: &Path) -> Value {
    Value::String(path.display().to_string())
}

/// `a/b/../c` as `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The member folders an entry of `members` names: itself, or what its `*`s match.
fn expand(root_dir: &Path, entry: &str) -> Vec<PathBuf> {
    let mut dirs = vec![root_dir.to_path_buf()];
    for part in Path::new(entry).components() {
        let part = part.as_os_str().to_string_lossy().to_string();
        if !part.contains('*') && !part.contains('?') {
            for d in &mut dirs {
                d.push(&part);
            }
            continue;
        }
        dirs = dirs
            .iter()
            .flat_map(|d| {
                let mut matched: Vec<PathBuf> = std::fs::read_dir(d)
                    .into_iter()
                    .flatten()
                    .filter_map(Result::ok)
                    .filter(|e| e.path().is_dir())
                    .filter(|e| wildcard(&part, &e.file_name().to_string_lossy()))
                    .map(|e| e.path())
                    .collect();
                matched.sort();
                matched
            })
            .collect();
    }
    let globbed = entry.contains('*') || entry.contains('?');
    dirs.into_iter()
        .map(|d| normalize(&d))
        .filter(|d| !globbed || d.join("Cargo.toml").is_file())
        .collect()
}

/// Whether `name` matches `pattern` with `*` and `?`.
fn wildcard(pattern: &str, name: &str) -> bool {
    fn go(p: &[char], n: &[char]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some(('*', rest)) => (0..=n.len()).any(|k| go(rest, &n[k..])),
            Some(('?', rest)) => !n.is_empty() && go(rest, &n[1..]),
            Some((c, rest)) => n.first() == Some(c) && go(rest, &n[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    go(&p, &n)
}

/// Where the string `"entry"` stands in the root manifest.
fn quoted_span(text: &str, entry: &str) -> std::ops::Range<usize> {
    for quote in ['"', '\''] {
        let quoted = format!("{quote}{entry}{quote}");
        if let Some(at) = text.find(&quoted) {
            return at..at + quoted.len();
        }
    }
    0..0
}

fn write(path: &Path, text: &str) -> Result<(), ToolError> {
    std::fs::write(path, text)
        .map_err(|e| ToolError::io(format!("cannot write `{}`", path.display()), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_as_cargo_globs_do() {
        assert!(wildcard("*", "io"));
        assert!(wildcard("kern-*", "kern-cuda"));
        assert!(!wildcard("kern-*", "io"));
        assert!(wildcard("a?c", "abc"));
        assert!(!wildcard("a?c", "ac"));
    }

    #[test]
    fn paths_are_normalized_without_the_file_system() {
        assert_eq!(
            normalize(Path::new("/w/a/../b/./c")),
            PathBuf::from("/w/b/c")
        );
    }

    #[test]
    fn inherited_dependencies_take_the_workspace_entry_and_add_features() {
        let workspace: Table = r#"
            nd = { version = "0.16", features = ["std"] }
            local = { path = "crates/local" }
        "#
        .parse()
        .unwrap();
        let mut dep = Value::Table(
            r#"workspace = true
               features = ["rayon"]
               optional = true"#
                .parse()
                .unwrap(),
        );
        let members = BTreeMap::new();
        let (dir, root) = (Path::new("/w/m"), Path::new("/w"));
        resolve_dependency("nd", &mut dep, dir, root, Some(&workspace), &members);
        let t = dep.as_table().unwrap();
        assert_eq!(t["version"].as_str(), Some("0.16"));
        assert_eq!(t["features"].as_array().unwrap().len(), 2);
        assert_eq!(t["optional"].as_bool(), Some(true));
        let mut local = Value::Table("workspace = true".parse().unwrap());
        let members = BTreeMap::from([(PathBuf::from("/w/crates/local"), PathBuf::from("/t/m1"))]);
        resolve_dependency("local", &mut local, dir, root, Some(&workspace), &members);
        assert_eq!(local.as_table().unwrap()["path"].as_str(), Some("/t/m1"));
    }
}
