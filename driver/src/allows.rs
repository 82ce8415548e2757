//! Where the user silenced findings: `#[tensor_lint::allow(…)]` on items (read from
//! the compiler's attributes), and `// tensor-lint: allow(…)` comments, each covering
//! the statement or item that begins on the line it covers, with the statements and
//! items as the compiler parsed them.

use rustc_hir as hir;
use rustc_hir::intravisit::{self, Visitor};
use rustc_middle::ty::TyCtxt;

use tensor_lint_analyzer::annotation_args;
use tensor_lint_analyzer::source::{SourceError, Span};
use tensor_lint_analyzer::suppress::{comment_regions, AllowRegion, AllowedName};

use crate::files::Files;

/// The allows of every file of the crate, and the malformed ones.
pub(crate) fn collect(tcx: TyCtxt<'_>, files: &Files) -> (Vec<AllowRegion>, Vec<SourceError>) {
    let mut regions = attribute_allows(tcx, files);
    let (comments, errors) = comment_allows(tcx, files);
    regions.extend(comments);
    (regions, errors)
}

/// `#[tensor_lint::allow(…)]`: the whole item it is on.
fn attribute_allows(tcx: TyCtxt<'_>, files: &Files) -> Vec<AllowRegion> {
    let mut regions = Vec::new();
    for def in tcx.hir_crate_items(()).definitions() {
        for found in crate::annotations::on(tcx, def) {
            if found.name != "allow" {
                continue;
            }
            let (Some(region), Some(at)) =
                (files.span(tcx.source_span(def)), files.span(found.span))
            else {
                continue;
            };
            let names = annotation_args::lint_names(&found.args)
                .unwrap_or_default()
                .into_iter()
                .map(|name| AllowedName {
                    span: name_in(files, at, &name),
                    name,
                })
                .collect();
            regions.push(AllowRegion { region, names });
        }
    }
    regions
}

/// Where `name` is written in the attribute at `attribute` (the whole attribute when it
/// is not found as written, say from a macro).
fn name_in(files: &Files, attribute: Span, name: &str) -> Span {
    let text = &files.sources.get(attribute.file).text;
    let Some(written) = text.get(attribute.lo as usize..attribute.hi as usize) else {
        return attribute;
    };
    let open = written.find('(').map_or(0, |k| k + 1);
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    let mut from = open;
    while let Some(k) = written[from..].find(name) {
        let start = from + k;
        let end = start + name.len();
        let before = written[..start].chars().next_back();
        let after = written[end..].chars().next();
        if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
            let lo = attribute.lo as usize;
            return Span::new(attribute.file, lo + start, lo + end);
        }
        from = end;
    }
    attribute
}

/// The comment allows, each covering the statement or item that begins on its line.
fn comment_allows(tcx: TyCtxt<'_>, files: &Files) -> (Vec<AllowRegion>, Vec<SourceError>) {
    let wanted = files
        .sources
        .files()
        .any(|f| f.text.contains("tensor-lint:"));
    if !wanted {
        return (Vec::new(), Vec::new());
    }
    let mut starts = Starts {
        files,
        spans: Vec::new(),
    };
    for owner in tcx.hir_crate_items(()).definitions() {
        if let Some(span) = files.span(tcx.source_span(owner)) {
            starts.spans.push(span);
        }
    }
    for owner in tcx.hir_body_owners() {
        let body = tcx.hir_body_owned_by(owner);
        starts.visit_body(body);
    }
    let mut regions = Vec::new();
    let mut errors = Vec::new();
    for file in files.sources.files() {
        let (r, e) = comment_regions(file, &starts.spans);
        regions.extend(r);
        errors.extend(e);
    }
    (regions, errors)
}

/// Collects the spans of statements and the expressions of blocks' tails.
struct Starts<'a> {
    files: &'a Files,
    spans: Vec<Span>,
}

impl<'tcx> Visitor<'tcx> for Starts<'_> {
    fn visit_stmt(&mut self, stmt: &'tcx hir::Stmt<'tcx>) {
        if let Some(span) = self.files.span(stmt.span) {
            self.spans.push(span);
        }
        intravisit::walk_stmt(self, stmt);
    }

    fn visit_block(&mut self, block: &'tcx hir::Block<'tcx>) {
        if let Some(tail) = block.expr {
            if let Some(span) = self.files.span(tail.span) {
                self.spans.push(span);
            }
        }
        intravisit::walk_block(self, block);
    }
}
