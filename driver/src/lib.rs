//! tensor-lint-driver: tensor-lint inside rustc.
//!
//! `cargo tensor-lint` runs `cargo check` with its own binary as
//! `RUSTC_WORKSPACE_WRAPPER`; that binary hands the compiler's arguments to [`main`].
//! For the crates of the checked workspace it runs rustc with callbacks that, once type
//! checking is done, lower every function's MIR into the analyzer's IR (calls resolved,
//! types inferred, macros and `cfg`s expanded, drops and moves explicit, real layouts),
//! compute the facts bottom-up over the call graph, run the lints and write what they
//! found beside the crate's metadata ([`tensor_lint_lints::crate_findings`]). Every
//! other crate (dependencies, build scripts, cargo's `-vV` and `--print` queries) is
//! compiled exactly as rustc would.
//!
//! Invariants:
//! - The only crate of tensor-lint that links the compiler. What it produces is the IR
//!   of [`tensor_lint_analyzer::ir`]; the analyzer and the lints never see rustc types.
//! - The compilation itself is never changed: MIR is read at opt level 0 with the
//!   checks that only insert panics turned off, which only affects the MIR this crate
//!   reads, and the metadata cargo expects is written as usual.
//! - A failure of the analysis is reported as an internal error in the findings file,
//!   never as a failed compilation.

#![feature(rustc_private)]
#![warn(unused_extern_crates)]

extern crate rustc_ast_pretty;
extern crate rustc_attr_ir;
extern crate rustc_data_structures;
extern crate rustc_driver;
extern crate rustc_hir;
extern crate rustc_interface;
extern crate rustc_middle;
extern crate rustc_session;
extern crate rustc_span;

mod allows;
mod analyze;
mod annotations;
mod callbacks;
mod counted_slots;
mod dangling;
mod files;
mod lent_pointers;
mod lower;
mod models;
mod node_reads;
mod release_flags;
mod released_fields;
mod retired_nodes;
mod structs;

use std::process::ExitCode;

pub use tensor_lint_lints::crate_findings::OPTIONS_ENV;

/// Runs as rustc would with `args` (`args[0]` is the wrapper itself, `args[1]` the
/// rustc cargo meant to run, which this driver replaces by its own compiler).
pub fn main(args: Vec<String>) -> ExitCode {
    rustc_driver::install_ice_hook("https://example.invalid/tensor-lint/issues", |dcx| {
        dcx.note(format!(
            "this is tensor-lint {}'s compiler driver",
            env!("CARGO_PKG_VERSION")
        ));
    });
    rustc_driver::catch_with_exit_code(move || {
        // The compiler takes its own name first; cargo's rustc path stands for it.
        let mut compiler_args: Vec<String> = args.into_iter().skip(1).collect();
        let analysed = callbacks::analyses(&compiler_args);
        let options = analysed.then(callbacks::Options::from_env);
        if callbacks::compiles(&compiler_args) {
            let bare = options.as_ref().is_some_and(|o| o.tool_annotations);
            annotations::register_tool(&mut compiler_args, bare);
        }
        if let Some(options) = options {
            rustc_driver::compiler_entrypoint(
                &compiler_args,
                &mut callbacks::Analysis::new(options),
            );
        } else {
            rustc_driver::compiler_entrypoint(&compiler_args, &mut callbacks::Plain);
        }
    })
}
