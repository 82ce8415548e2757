//! What the `#[tensor_lint::…]` annotations say about each function of the crate.
//!
//! The annotations are attribute macros of the `tensor-lint` crate; they check their
//! arguments and, in a compilation by this driver, leave themselves on the item as
//! the tool attribute `#[tensor_lint_annotation::NAME(ARGS)]` (the driver registers the
//! tool and tells the macros so through the environment of its own process). The
//! compiler keeps tool attributes with the items, where this module reads them.

use rustc_attr_ir::AttrArgs;
use rustc_hir::def_id::LocalDefId;
use rustc_middle::ty::TyCtxt;
use rustc_span::Symbol;

use tensor_lint_analyzer::annotation_args;
use tensor_lint_analyzer::ir::Annotations;
use tensor_lint_analyzer::source::SourceError;

use crate::files::Files;

/// The tool the annotations are kept under.
const TOOL: &str = "tensor_lint_annotation";

/// The annotations as written, read as a tool's attributes where no macro expands them.
const BARE_TOOL: &str = "tensor_lint";

/// The variable the `tensor-lint` macros look for.
const MACROS_ENV: &str = "TENSOR_LINT_ANNOTATIONS";

/// Registers the annotations' tool for the crate these arguments compile, and tells
/// the macros (which run in this process) to leave their attributes.
/// With `bare`, `tensor_lint` itself is registered too, for a crate that has no
/// `tensor-lint` dependency to expand its annotations (a loose file outside a package).
pub(crate) fn register_tool(args: &mut Vec<String>, bare: bool) {
    args.push("-Zcrate-attr=feature(register_tool)".into());
    args.push(format!("-Zcrate-attr=register_tool({TOOL})"));
    if bare {
        args.push(format!("-Zcrate-attr=register_tool({BARE_TOOL})"));
    }
    // SAFETY-free: the compiler has not started any thread yet.
    std::env::set_var(MACROS_ENV, "1");
}

/// One annotation on an item: its name, its arguments as text and where it is.
pub(crate) struct Found {
    pub name: String,
    pub args: String,
    pub span: rustc_span::Span,
}

/// The annotations on item `def`, in the order of [`NAMES`].
pub(crate) fn on(tcx: TyCtxt<'_>, def: LocalDefId) -> Vec<Found> {
    let mut found = Vec::new();
    for name in NAMES {
        // A crate has one of the two: the macros replace what they expand.
        for tool in [TOOL, BARE_TOOL] {
            let path = [Symbol::intern(tool), Symbol::intern(name)];
            found.extend(tcx.tool_attrs(def, &path).map(|item| Found {
                name: name.to_string(),
                args: match &item.args {
                    AttrArgs::Delimited(delimited) => {
                        rustc_ast_pretty::pprust::tts_to_string(&delimited.tokens)
                    }
                    _ => String::new(),
                },
                span: item.span,
            }));
        }
    }
    found
}

/// Every annotation of the `tensor-lint` crate.
const NAMES: &[&str] = &["kernel", "alloc", "free", "view", "inplace", "allow"];

/// The annotations of function `def`; problems (which the macros have already refused,
/// so only for text this reader cannot follow) go to `errors`.
pub(crate) fn of(
    tcx: TyCtxt<'_>,
    def: LocalDefId,
    files: &Files,
    errors: &mut Vec<SourceError>,
) -> Annotations {
    let mut ann = Annotations::default();
    let params = param_names(tcx, def);
    for found in on(tcx, def) {
        let span = files.span(found.span);
        let mut problem = |message: String| {
            if let Some(span) = span {
                errors.push(SourceError {
                    span,
                    message: format!("cannot read `tensor_lint::{}`: {message}", found.name),
                    label: "in this annotation".into(),
                    unsure: false,
                });
            }
        };
        let index = |name: &str| params.iter().position(|p| p == name);
        match found.name.as_str() {
            "kernel" => {
                ann.kernel = true;
                match annotation_args::kernel(&found.args) {
                    Ok(assumptions) => ann.assumptions.extend(assumptions),
                    Err(e) => problem(e),
                }
            }
            "alloc" => ann.alloc = true,
            "free" | "inplace" => match annotation_args::names(&found.args) {
                Ok(names) => {
                    for name in names {
                        match (index(&name), found.name.as_str()) {
                            (Some(i), "free") => ann.frees.push(i),
                            (Some(i), _) => ann.inplace.push(i),
                            (None, _) => problem(format!("no parameter `{name}`")),
                        }
                    }
                }
                Err(e) => problem(e),
            },
            "view" => match annotation_args::view_of(&found.args) {
                Ok(name) => match index(&name) {
                    Some(i) => ann.view_of = Some(i),
                    None => problem(format!("no parameter `{name}`")),
                },
                Err(e) => problem(e),
            },
            _ => {}
        }
    }
    ann
}

/// The names of a function's parameters, `self` for the receiver.
fn param_names(tcx: TyCtxt<'_>, def: LocalDefId) -> Vec<String> {
    tcx.fn_arg_idents(def.to_def_id())
        .iter()
        .map(|ident| match ident {
            Some(ident) => ident.name.to_string(),
            None => "_".to_string(),
        })
        .collect()
}
