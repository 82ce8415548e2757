//! Parsing one file with syn, turning syntax errors into [`SourceError`]s, and reading
//! what written types ([`ty`]) and integer expressions ([`int`]) say.

pub mod built_fields;
pub mod cfg;
pub mod int;
pub mod item_macros;
pub mod macro_rules;
pub mod ty;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::lexical::DelimiterError;
use crate::source::{FileId, SourceError, SourceMap, Span};

/// A parsed file of a crate, with the module path it is mounted at
/// (`[]` for the crate root, `["voxel", "grid"]` for `src/voxel/grid.rs`).
#[derive(Debug)]
pub struct ParsedFile {
    pub file: FileId,
    pub module_path: Vec<String>,
    pub ast: syn::File,
}

/// The files of one crate (one cargo target, or one loose file), root first.
#[derive(Debug, Default)]
pub struct CrateSources {
    pub name: String,
    pub files: Vec<ParsedFile>,
}

/// The Rust edition a crate is written in, as far as parsing cares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Edition {
    /// Rust 2015: `async`, `await` and `try` are plain names.
    E2015,
    /// Rust 2018 and later.
    #[default]
    E2018,
    /// Not known (a loose file): read as Rust 2018 and, failing that, as Rust 2015.
    Unknown,
}

impl Edition {
    /// The edition cargo names `name` (`"2015"`, `"2021"`, ...).
    pub fn from_cargo(name: &str) -> Edition {
        if name == "2015" {
            Edition::E2015
        } else {
            Edition::E2018
        }
    }
}

/// Parses `text` (the contents of `file`) as a Rust 2018 (or later) source file.
///
/// A leading shebang and a byte-order mark are accepted, as rustc accepts them.
pub fn parse_file(file: FileId, text: &str) -> Result<syn::File, SourceError> {
    parse_file_in(file, text, Edition::E2018)
}

/// Parses `text` as a source file of `edition`.
pub fn parse_file_in(file: FileId, text: &str, edition: Edition) -> Result<syn::File, SourceError> {
    let blanked = crate::lexical::blank_doc_comments(text);
    let readable = blanked.as_deref().unwrap_or(text);
    let mut parsed = syn::parse_file(readable);
    if parsed.is_err() && matches!(edition, Edition::E2015 | Edition::Unknown) {
        // syn reads Rust 2018; the 2015 names that are keywords there are made raw
        // identifiers, which keep their spans.
        if let Ok(ast) = parse_2015(readable) {
            parsed = Ok(ast);
        }
    }
    parsed
        .map(|mut ast| {
            item_macros::splice_item_macros(&mut ast.items);
            ast
        })
        .map_err(|err| {
            // The tokenizer fails with one message for every lexical problem; find the
            // delimiter or literal at fault ourselves so the error points at it.
            if let Some(problem) = crate::lexical::scan(text, |_| {}) {
                return delimiter_error(file, text, problem);
            }
            let span = widen_empty(file, text, Span::from_proc_macro(file, err.span()));
            SourceError {
                span,
                message: format!("this file does not parse as Rust: {err}"),
                label: err.to_string(),
                unsure: true,
            }
        })
}

/// `text` parsed with `async`, `await` and `try` read as names, and closure trait
/// objects written without `dyn` (`&Fn(T) -> T`), as Rust 2015 reads them.
fn parse_2015(text: &str) -> syn::Result<syn::File> {
    fn raw_names(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
        use proc_macro2::{Group, Ident, TokenTree};
        let mut out: Vec<TokenTree> = Vec::new();
        let mut tokens = tokens.into_iter().peekable();
        while let Some(t) = tokens.next() {
            match t {
                TokenTree::Ident(i)
                    if ["async", "await", "try"].contains(&i.to_string().as_str()) =>
                {
                    out.push(TokenTree::Ident(Ident::new_raw(&i.to_string(), i.span())));
                }
                TokenTree::Ident(i)
                    if ["Fn", "FnMut", "FnOnce"].contains(&i.to_string().as_str())
                        && matches!(tokens.peek(), Some(TokenTree::Group(g))
                            if g.delimiter() == proc_macro2::Delimiter::Parenthesis)
                        && object_position(&out) =>
                {
                    // `&Fn(T) -> T` is `&dyn Fn(T) -> T`; the added keyword takes the
                    // span of the name, so no byte moves.
                    out.push(TokenTree::Ident(Ident::new("dyn", i.span())));
                    out.push(TokenTree::Ident(i));
                }
                TokenTree::Group(g) => {
                    let mut inner = Group::new(g.delimiter(), raw_names(g.stream()));
                    inner.set_span(g.span());
                    out.push(TokenTree::Group(inner));
                }
                other => out.push(other),
            }
        }
        out.into_iter().collect()
    }
    /// After `&`, `&mut` or `<` (`Box<Fn()>`): where a type, not a bound, starts.
    fn object_position(before: &[proc_macro2::TokenTree]) -> bool {
        use proc_macro2::TokenTree;
        let punct = |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
        let n = before.len();
        let last = before.last();
        punct(last, '&')
            || punct(last, '<')
            || (matches!(last, Some(TokenTree::Ident(i)) if i == "mut")
                && punct(n.checked_sub(2).and_then(|k| before.get(k)), '&'))
    }
    // What `syn::parse_file` skips: a byte-order mark and a shebang line, blanked so
    // that every byte keeps its offset.
    let mut text = text.replacen('\u{feff}', "   ", 1);
    if text.starts_with("#!") && !text.starts_with("#![") {
        let end = text.find('\n').unwrap_or(text.len());
        text.replace_range(..end, &" ".repeat(end));
    }
    let tokens: proc_macro2::TokenStream = text.parse()?;
    syn::parse2(raw_names(tokens))
}

fn delimiter_error(file: FileId, text: &str, problem: DelimiterError) -> SourceError {
    let one_char = |at: usize| widen_empty(file, text, Span::new(file, at, at));
    match problem {
        DelimiterError::Unclosed { open } => SourceError {
            span: one_char(open),
            message: "this file contains an unclosed delimiter".into(),
            label: "unclosed delimiter".into(),
            unsure: false,
        },
        DelimiterError::Mismatched { close, open } => SourceError {
            span: one_char(close),
            message: "mismatched closing delimiter".into(),
            label: match open {
                Some(open) => {
                    let open_char = text[open..].chars().next().unwrap_or('(');
                    format!("does not close the `{open_char}` opened at byte {open}")
                }
                None => "nothing is open here".into(),
            },
            unsure: false,
        },
        DelimiterError::Unterminated { start } => SourceError {
            span: one_char(start),
            message: "this file contains an unterminated literal or comment".into(),
            label: "starts here and runs to the end of the file".into(),
            unsure: false,
        },
    }
}

/// Empty spans (an error "at the end of input") become the character at that place, or
/// the last character of the file, so that every renderer has something to underline.
fn widen_empty(file: FileId, text: &str, span: Span) -> Span {
    if span.lo != span.hi || text.is_empty() {
        return span;
    }
    let at = (span.lo as usize).min(text.len());
    match text[at..].chars().next() {
        Some(c) => Span::new(file, at, at + c.len_utf8()),
        None => {
            let last = text.char_indices().last().map_or(0, |(i, _)| i);
            Span::new(file, last, text.len())
        }
    }
}

/// Reads and parses a crate from its root file on this thread, following `mod NAME;`
/// declarations as rustc does (`NAME.rs` or `NAME/mod.rs`, `#[path = "…"]`, inline
/// `mod` blocks). [`crate::pipeline`] does the same with the files spread over threads.
///
/// Every file that cannot be read or parsed becomes a [`SourceError`] and the rest of the
/// crate is still loaded. `display` turns a path into the name shown to the user;
/// `excluded` says whether a file is skipped (its child modules with it).
pub fn load_crate(
    name: &str,
    root: &Path,
    edition: Edition,
    cfg: &cfg::CfgSet,
    sources: &mut SourceMap,
    display: &dyn Fn(&Path) -> String,
    excluded: &dyn Fn(&Path) -> bool,
) -> (CrateSources, Vec<SourceError>) {
    let mut records = Vec::new();
    let mut parsed = Vec::new();
    let mut pending = vec![PendingFile::root(root, edition, cfg)];
    // Depth-first in source order: the first claim of a file is its smallest key.
    let mut claims = Claims::default();
    while let Some(next) = pending.pop() {
        let temp = FileId(records.len() as u32);
        let mut claim = |canonical: &Path, key: &[u32]| claims.claim(canonical, key);
        let Some(loaded) = load_pending(&next, temp, display, excluded, &mut claim) else {
            continue;
        };
        pending.extend(loaded.children.into_iter().rev());
        if let Some(ast) = loaded.ast {
            parsed.push(ParsedFile {
                file: temp,
                module_path: next.module_path,
                ast,
            });
        }
        records.push((temp, loaded.record));
    }
    let (ids, mut errors) = mount_files(records, sources);
    errors.extend(claims.over_limit_error());
    let krate = CrateSources {
        name: name.to_string(),
        files: remount(parsed, &ids),
    };
    (krate, errors)
}

/// The parsed files that were kept, with their final ids, in file order.
pub(crate) fn remount(parsed: Vec<ParsedFile>, ids: &[Option<FileId>]) -> Vec<ParsedFile> {
    let mut files: Vec<ParsedFile> = parsed
        .into_iter()
        .filter_map(|mut p| {
            p.file = ids.get(p.file.0 as usize).copied().flatten()?;
            Some(p)
        })
        .collect();
    files.sort_by_key(|p| p.file);
    files
}

/// Most module files one crate may mount: a guard against `#[path]` and symlink tricks
/// that mount the same files again and again.
const MAX_FILES: usize = 50_000;

/// Which module files are taken, by whom: a file mounted twice is read only for the
/// smallest key that mounts it (rustc's first mount), so that repeated mounts cost
/// nothing, and no more than [`MAX_FILES`] files are read.
#[derive(Debug, Default)]
pub(crate) struct Claims {
    by_path: std::collections::HashMap<PathBuf, Vec<u32>>,
    over_limit: bool,
}

impl Claims {
    /// Whether the file at `key` is to be read.
    pub(crate) fn claim(&mut self, canonical: &Path, key: &[u32]) -> bool {
        let full = self.by_path.len() >= MAX_FILES;
        match self.by_path.get_mut(canonical) {
            Some(held) if held.as_slice() <= key => false,
            Some(held) => {
                // Loaded out of order (on another thread): the smaller key wins, and
                // mounting drops the other.
                *held = key.to_vec();
                true
            }
            None if full => {
                self.over_limit = true;
                false
            }
            None => {
                self.by_path.insert(canonical.to_path_buf(), key.to_vec());
                true
            }
        }
    }

    /// The error for a crate that mounts more files than the limit, at its root file
    /// (always the first file mounted).
    pub(crate) fn over_limit_error(&self) -> Option<SourceError> {
        self.over_limit.then(|| SourceError {
            span: Span::new(FileId(0), 0, 0),
            message: format!("this crate mounts more than {MAX_FILES} module files"),
            label: "the modules beyond the limit are not read".into(),
            unsure: false,
        })
    }
}

/// A module file still to load.
#[derive(Clone, Debug)]
pub(crate) struct PendingFile {
    path: PathBuf,
    pub(crate) module_path: Vec<String>,
    dir: ModDir,
    declared_at: Option<Span>,
    /// Position in the module tree: the root is `[]`, its second out-of-line child
    /// `[1]`. Sorting keys gives rustc's depth-first order, whatever order files were
    /// loaded in.
    key: Vec<u32>,
    /// Canonical paths of the files that declared this one: a symlink loop stops here.
    ancestors: Vec<PathBuf>,
    /// The crate's edition, which every module file shares.
    edition: Edition,
    /// What is known of the configuration it is compiled in, shared likewise.
    cfg: std::sync::Arc<cfg::CfgSet>,
}

impl PendingFile {
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn root(path: &Path, edition: Edition, cfg: &cfg::CfgSet) -> PendingFile {
        PendingFile {
            path: path.to_path_buf(),
            module_path: Vec::new(),
            dir: ModDir::Sibling,
            declared_at: None,
            key: Vec::new(),
            ancestors: Vec::new(),
            edition,
            cfg: std::sync::Arc::new(cfg.clone()),
        }
    }
}

/// What loading one file found, with spans in the provisional file id it was given.
pub(crate) struct LoadedFile {
    pub(crate) record: FileRecord,
    pub(crate) ast: Option<syn::File>,
    pub(crate) children: Vec<PendingFile>,
}

/// A file met while loading, before the crate's files are put in order.
#[derive(Debug)]
pub(crate) struct FileRecord {
    key: Vec<u32>,
    canonical: PathBuf,
    path: PathBuf,
    display: String,
    /// The text to keep; `None` for a module file that could not be read (its error
    /// points at the `mod` declaration).
    text: Option<String>,
    /// The file's own problems, then those of its `mod` declarations.
    errors: Vec<SourceError>,
}

/// Reads and parses one module file, given the provisional id `file`; `None` when the
/// file is excluded, would close a symlink loop, or is not `claim`ed (mounted already
/// by a smaller key, or over the limit).
pub(crate) fn load_pending(
    pending: &PendingFile,
    file: FileId,
    display: &dyn Fn(&Path) -> String,
    excluded: &dyn Fn(&Path) -> bool,
    claim: &mut dyn FnMut(&Path, &[u32]) -> bool,
) -> Option<LoadedFile> {
    let path = &pending.path;
    if excluded(path) {
        return None;
    }
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
    if pending.ancestors.contains(&canonical) || !claim(&canonical, &pending.key) {
        return None;
    }
    let shown = display(path);
    let mut record = FileRecord {
        key: pending.key.clone(),
        canonical,
        path: path.clone(),
        display: shown.clone(),
        text: None,
        errors: Vec::new(),
    };
    let unparsed = |record: FileRecord| {
        Some(LoadedFile {
            record,
            ast: None,
            children: Vec::new(),
        })
    };
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) => {
            let span = match pending.declared_at {
                Some(span) => span,
                None => {
                    record.text = Some(String::new());
                    Span::new(file, 0, 0)
                }
            };
            record.errors.push(SourceError {
                span,
                message: format!("cannot read `{shown}`: {err}"),
                label: "this module's file cannot be read".into(),
                unsure: false,
            });
            return unparsed(record);
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => {
            let at = err.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
            let end = text[at..].chars().next().map_or(at, |c| at + c.len_utf8());
            record.errors.push(SourceError {
                span: Span::new(file, at, end),
                message: format!("`{shown}` is not valid UTF-8"),
                label: "invalid UTF-8 here".into(),
                unsure: false,
            });
            record.text = Some(text);
            return unparsed(record);
        }
    };
    let ast = match parse_file_in(file, &text, pending.edition) {
        Ok(mut ast) => {
            // Items compiled out are not read, modules among them included.
            pending.cfg.strip(&mut ast.items);
            ast
        }
        Err(err) => {
            record.errors.push(err);
            record.text = Some(text);
            return unparsed(record);
        }
    };
    record.text = Some(text);
    let dir = child_dir(path, pending.dir);
    // `#[path]` on a module declared at the file's top level is relative to the file's
    // own folder, whatever kind of file it is.
    let file_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut mods = Vec::new();
    let places = ModPlaces {
        file,
        dir: &dir,
        path_dir: &file_dir,
    };
    collect_out_of_line_mods(&ast.items, &places, &pending.module_path, &mut mods);
    let mut ancestors = pending.ancestors.clone();
    ancestors.push(record.canonical.clone());
    let mut children = Vec::new();
    for child in mods {
        let files = resolve_mod_files(&child);
        for (child_path, dir) in &files {
            let mut key = pending.key.clone();
            key.push(children.len() as u32);
            children.push(PendingFile {
                dir: *dir,
                path: child_path.clone(),
                module_path: child.module_path.clone(),
                declared_at: Some(child.span),
                edition: pending.edition,
                cfg: pending.cfg.clone(),
                key,
                ancestors: ancestors.clone(),
            });
        }
        match files.is_empty() {
            false => {}
            // Under `#[cfg(...)]` the module may be compiled out, and then rustc
            // never looks for its file: without evaluating cfgs, say nothing.
            true if child.cfg_gated => {}
            true => record.errors.push(SourceError {
                span: child.span,
                message: format!("file not found for module `{}`", child.name),
                label: format!(
                    "expected `{}` or `{}`",
                    display(&child.dir.join(format!("{}.rs", child.name))),
                    display(&child.dir.join(&child.name).join("mod.rs"))
                ),
                unsure: true,
            }),
        }
    }
    Some(LoadedFile {
        record,
        ast: Some(ast),
        children,
    })
}

/// Puts the files met while loading, each with the provisional id it was loaded with,
/// in rustc's order and adds them to `sources`. The result maps each
/// provisional id to the file's id in `sources`, or `None` for a file not kept: one
/// mounted a second time (a `mod` shared by two paths or a symlink), which rustc would
/// read once, with everything below it. The errors come back with their spans moved to
/// the final ids, in that same order.
pub(crate) fn mount_files(
    mut records: Vec<(FileId, FileRecord)>,
    sources: &mut SourceMap,
) -> (Vec<Option<FileId>>, Vec<SourceError>) {
    let slots = records
        .iter()
        .map(|(t, _)| t.0 as usize + 1)
        .max()
        .unwrap_or(0);
    let mut ids: Vec<Option<FileId>> = vec![None; slots];
    records.sort_by(|a, b| a.1.key.cmp(&b.1.key));
    let mut seen = HashSet::new();
    let mut dropped: Option<Vec<u32>> = None;
    let mut errors = Vec::new();
    for (temp, record) in records {
        let temp = temp.0 as usize;
        if dropped.as_ref().is_some_and(|d| record.key.starts_with(d)) {
            continue;
        }
        if !seen.insert(record.canonical.clone()) {
            dropped = Some(record.key);
            continue;
        }
        if let Some(text) = record.text {
            ids[temp] = Some(sources.add(record.path, record.display, text));
        }
        errors.extend(record.errors);
    }
    for error in &mut errors {
        if let Some(Some(id)) = ids.get(error.span.file.0 as usize) {
            error.span.file = *id;
        }
    }
    (ids, errors)
}

/// Where the children of a module file live: beside it (crate roots, `mod.rs`, files
/// named by `#[path]`) or in a folder named after it (`foo.rs` → `foo/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ModDir {
    Sibling,
    Own,
}

struct ChildMod {
    name: String,
    module_path: Vec<String>,
    dir: PathBuf,
    /// The folder a `#[path]` is relative to.
    path_dir: PathBuf,
    /// The file `#[path]` names.
    path_attr: Option<String>,
    /// The files `#[cfg_attr(.., path = ..)]` names: alternatives to the default file.
    configured_paths: Vec<String>,
    span: Span,
    /// The declaration carries `#[cfg(...)]` (or `#[cfg_attr(...)]`).
    cfg_gated: bool,
}

fn child_dir(path: &Path, dir: ModDir) -> PathBuf {
    let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
    match dir {
        ModDir::Sibling => parent,
        ModDir::Own => match path.file_stem() {
            Some(stem) => parent.join(stem),
            None => parent,
        },
    }
}

/// Where the modules declared in one file (or inline module) are looked for.
struct ModPlaces<'p> {
    file: FileId,
    /// Where `mod x;` looks for `x.rs` and `x/mod.rs`.
    dir: &'p Path,
    /// What a `#[path]` is relative to.
    path_dir: &'p Path,
}

fn collect_out_of_line_mods(
    items: &[syn::Item],
    places: &ModPlaces<'_>,
    module_path: &[String],
    out: &mut Vec<ChildMod>,
) {
    use syn::ext::IdentExt;
    for item in items {
        let syn::Item::Mod(module) = item else {
            continue;
        };
        // `mod r#async;` is the file `async.rs`; paths in the code still say `r#async`.
        let name = module.ident.unraw().to_string();
        let mut child_path = module_path.to_vec();
        child_path.push(module.ident.to_string());
        let (path_attr, configured_paths) = path_attributes(&module.attrs);
        match &module.content {
            Some((_, inner)) => {
                // Out-of-line children of an inline module live in a folder named after it
                // (or at its `#[path]`), and so do the `#[path]`s inside it.
                let inner_dir = match &path_attr {
                    Some(p) => places.dir.join(p),
                    None => places.dir.join(&name),
                };
                let inner_places = ModPlaces {
                    file: places.file,
                    dir: &inner_dir,
                    path_dir: &inner_dir,
                };
                collect_out_of_line_mods(inner, &inner_places, &child_path, out);
            }
            None => out.push(ChildMod {
                name,
                module_path: child_path,
                dir: places.dir.to_path_buf(),
                path_dir: places.path_dir.to_path_buf(),
                path_attr,
                configured_paths,
                span: Span::from_proc_macro(places.file, syn::spanned::Spanned::span(module)),
                cfg_gated: module
                    .attrs
                    .iter()
                    .any(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr")),
            }),
        }
    }
}

/// The file named by `#[path = ".."]`, and those named by `#[cfg_attr(PRED, path = "..")]`
/// in the order written: the configuration decides which one rustc reads.
fn path_attributes(attrs: &[syn::Attribute]) -> (Option<String>, Vec<String>) {
    let mut plain = None;
    let mut configured = Vec::new();
    for attr in attrs {
        match &attr.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("path") => {
                plain = plain.or(string_value(&nv.value));
            }
            syn::Meta::List(list) if list.path.is_ident("cfg_attr") => {
                let metas = list.parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                );
                for meta in metas.into_iter().flatten().skip(1) {
                    if let syn::Meta::NameValue(nv) = meta {
                        if nv.path.is_ident("path") {
                            configured.extend(string_value(&nv.value));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    (plain, configured)
}

fn string_value(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        _ => None,
    }
}

/// The files a module declaration reads: the one a plain `#[path]` names (existing or
/// not, as rustc reads it), or else every alternative that exists, the files named by
/// `#[cfg_attr(.., path = ..)]` and the default `NAME.rs` / `NAME/mod.rs`, so that code
/// for each configuration is analysed. Empty when none exists.
/// Each file comes with where its own children live: beside a file named by a path
/// attribute or a `mod.rs`, in a folder named after a plain `NAME.rs`.
fn resolve_mod_files(child: &ChildMod) -> Vec<(PathBuf, ModDir)> {
    if let Some(p) = &child.path_attr {
        return vec![(child.path_dir.join(p), ModDir::Sibling)];
    }
    let mut found: Vec<(PathBuf, ModDir)> = child
        .configured_paths
        .iter()
        .map(|p| child.path_dir.join(p))
        .filter(|p| p.is_file())
        .map(|p| (p, ModDir::Sibling))
        .collect();
    let flat = child.dir.join(format!("{}.rs", child.name));
    let nested = child.dir.join(&child.name).join("mod.rs");
    if flat.is_file() {
        found.push((flat, ModDir::Own));
    } else if nested.is_file() {
        found.push((nested, ModDir::Sibling));
    }
    found.dedup_by(|a, b| a.0 == b.0);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_error_points_at_the_offending_token() {
        let text = "fn main() {\n    let x = ;\n}\n";
        let err = parse_file(FileId(0), text).unwrap_err();
        assert_eq!(&text[err.span.range()], ";");
        assert!(err.message.starts_with("this file does not parse as Rust"));
    }

    #[test]
    fn unclosed_delimiter_has_a_nonempty_span() {
        let text = "fn main() {\n";
        let err = parse_file(FileId(0), text).unwrap_err();
        assert!(err.span.hi > err.span.lo, "{err:?}");
    }

    #[test]
    fn valid_file_parses() {
        assert!(parse_file(FileId(0), "#!/usr/bin/env run\nfn f() {}\n").is_ok());
    }

    fn temp_crate(files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "tensor-lint-load-{}-{}",
            std::process::id(),
            files.iter().map(|(p, _)| p.len()).sum::<usize>() * 31 + files.len()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    fn load(dir: &Path) -> (CrateSources, Vec<SourceError>, SourceMap) {
        let mut sources = SourceMap::new();
        let base = dir.to_path_buf();
        let display = move |p: &Path| p.strip_prefix(&base).unwrap_or(p).display().to_string();
        let (krate, errors) = load_crate(
            "demo",
            &dir.join("src/lib.rs"),
            Edition::default(),
            &cfg::CfgSet::default(),
            &mut sources,
            &display,
            &|_| false,
        );
        (krate, errors, sources)
    }

    #[test]
    fn loader_follows_mod_declarations_like_rustc() {
        let dir = temp_crate(&[
            ("src/lib.rs", "mod voxel;\nmod features;\nmod inline { mod deep; }\n#[path = \"other/x.rs\"]\nmod renamed;\n"),
            ("src/voxel.rs", "mod grid;\n"),
            ("src/voxel/grid.rs", "fn g() {}\n"),
            ("src/features/mod.rs", "mod normals;\n"),
            ("src/features/normals.rs", "fn n() {}\n"),
            ("src/inline/deep.rs", "fn d() {}\n"),
            ("src/other/x.rs", "fn x() {}\n"),
        ]);
        let (krate, errors, sources) = load(&dir);
        assert!(errors.is_empty(), "{errors:?}");
        let mounted: Vec<(String, String)> = krate
            .files
            .iter()
            .map(|f| {
                (
                    sources.get(f.file).display.clone(),
                    f.module_path.join("::"),
                )
            })
            .collect();
        assert_eq!(
            mounted,
            [
                ("src/lib.rs", ""),
                ("src/voxel.rs", "voxel"),
                ("src/voxel/grid.rs", "voxel::grid"),
                ("src/features/mod.rs", "features"),
                ("src/features/normals.rs", "features::normals"),
                ("src/inline/deep.rs", "inline::deep"),
                ("src/other/x.rs", "renamed"),
            ]
            .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn loader_reports_bad_files_and_keeps_going() {
        let dir = temp_crate(&[
            (
                "src/lib.rs",
                "mod broken;\nmod missing;\nmod fine;\n#[cfg(feature = \"gpu\")]\nmod cuda;\n",
            ),
            ("src/broken.rs", "fn ( {\n"),
            ("src/fine.rs", "fn ok() {}\n"),
        ]);
        let (krate, errors, sources) = load(&dir);
        let loaded: Vec<_> = krate
            .files
            .iter()
            .map(|f| sources.get(f.file).display.clone())
            .collect();
        assert_eq!(loaded, ["src/lib.rs", "src/fine.rs"]);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors
            .iter()
            .any(|e| e.message == "file not found for module `missing`"));
        assert!(errors
            .iter()
            .any(|e| sources.get(e.span.file).display == "src/broken.rs"));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn loader_reports_invalid_utf8_at_the_first_bad_byte() {
        let dir = temp_crate(&[("src/lib.rs", "mod bin;\n")]);
        std::fs::write(dir.join("src/bin.rs"), b"fn a() {}\n// \xff\n").unwrap();
        let (_, errors, _) = load(&dir);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].span.lo, 13);
        assert!(errors[0].message.ends_with("is not valid UTF-8"));
        let _ = std::fs::remove_dir_all(dir);
    }
}
