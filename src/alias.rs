//! `cargo tensor-lint alias`: one overlap decided and explained, or a stream of queries.

use std::process::ExitCode;

use crate::error::ToolError;

pub fn run(jsonl: bool, views: Vec<String>) -> Result<ExitCode, ToolError> {
    let _ = (jsonl, views);
    Err(ToolError::usage(
        "the alias oracle is not wired in yet",
        None,
    ))
}
