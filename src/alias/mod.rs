//! `cargo tensor-lint alias`: one overlap decided and explained, or a stream of queries.

pub(crate) mod query;

use std::io::Write;
use std::process::ExitCode;

use crate::error::ToolError;

const VIEW_HELP: &str =
    "a view is `{\"offset\":0,\"shape\":[2,3],\"strides\":[3,1]}` or `0:[2,3]:[3,1]`";

pub fn run(jsonl: bool, views: Vec<String>) -> Result<ExitCode, ToolError> {
    if jsonl {
        if !views.is_empty() {
            return Err(ToolError::usage(
                "`--jsonl` reads its queries from stdin and takes no views",
                None,
            ));
        }
        let stdin = std::io::stdin();
        let stdout = std::io::stdout();
        return match query::run_jsonl(stdin.lock(), stdout.lock()) {
            Ok(()) => Ok(ExitCode::SUCCESS),
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
            Err(err) => Err(ToolError::io("cannot stream alias queries".into(), err)),
        };
    }
    let [a, b] = views.as_slice() else {
        return Err(ToolError::usage(
            "`alias` takes two views, or `--jsonl`",
            Some(VIEW_HELP.into()),
        ));
    };
    let explanation = query::explain_cli(a, b)
        .map_err(|err| ToolError::usage(err.to_string(), Some(VIEW_HELP.into())))?;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(explanation.as_bytes());
    if !explanation.ends_with('\n') {
        let _ = out.write_all(b"\n");
    }
    Ok(ExitCode::SUCCESS)
}
