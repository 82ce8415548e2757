//! The command line: `cargo tensor-lint [OPTIONS] [FILE.rs…]` and `cargo tensor-lint alias`.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Arg, ArgAction, ArgMatches, Command};
use tensor_lint_lints::diagnostic::Level;
use tensor_lint_lints::registry::{self, Status};

use crate::config::suggest_lint;
use crate::error::ToolError;
use crate::levels::LevelFlag;
use crate::render::MessageFormat;
use crate::run::{self, Invocation};
use crate::workspace::{Features, Inputs};

fn command() -> Command {
    let level_arg = |id: &'static str, short: char, long: &'static str, help: &'static str| {
        Arg::new(id)
            .short(short)
            .long(long)
            .value_name("LINT")
            .action(ArgAction::Append)
            .help(help)
    };
    Command::new("cargo-tensor-lint")
        .bin_name("cargo tensor-lint")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Finds memory bugs in Rust tensor programs: leaks, races on overlapping views, false sharing, unsafe in-place ops")
        .args_conflicts_with_subcommands(true)
        .arg(Arg::new("files").value_name("FILE.rs").num_args(0..).value_parser(clap::value_parser!(PathBuf))
            .help("Check these files on their own, without a Cargo project"))
        .arg(Arg::new("manifest-path").long("manifest-path").value_name("PATH").value_parser(clap::value_parser!(PathBuf))
            .help("Path to Cargo.toml"))
        .arg(Arg::new("package").short('p').long("package").value_name("NAME").action(ArgAction::Append)
            .help("Package to check (repeatable)"))
        .arg(Arg::new("workspace").long("workspace").action(ArgAction::SetTrue)
            .help("Check every package of the workspace"))
        .arg(Arg::new("all-targets").long("all-targets").action(ArgAction::SetTrue)
            .help("Check tests, benches and examples too (as `cargo check --all-targets`)"))
        .arg(Arg::new("features").short('F').long("features").value_name("FEATURES").action(ArgAction::Append)
            .help("Features to take as enabled, space or comma separated (as cargo's `--features`)"))
        .arg(Arg::new("all-features").long("all-features").action(ArgAction::SetTrue)
            .help("Take every feature as enabled"))
        .arg(Arg::new("no-default-features").long("no-default-features").action(ArgAction::SetTrue)
            .help("Do not take the `default` feature as enabled"))
        .arg(Arg::new("message-format").long("message-format").value_name("FMT")
            .value_parser(["human", "short", "json", "sarif", "github"]).default_value("human")
            .help("Output format"))
        .arg(Arg::new("color").long("color").value_name("WHEN").value_parser(["auto", "always", "never"]).default_value("auto")
            .help("Coloured output (auto honours NO_COLOR and CLICOLOR_FORCE)"))
        .arg(level_arg("warn", 'W', "warn", "Set lint warnings (`-W LINT`)"))
        .arg(level_arg("allow", 'A', "allow", "Set lint allowed (`-A LINT`, `-A warnings`)"))
        .arg(level_arg("deny", 'D', "deny", "Set lint denied (`-D LINT`, `-D warnings`)"))
        .arg(Arg::new("explain").long("explain").value_name("LINT").help("Explain a lint"))
        .arg(Arg::new("list").long("list").action(ArgAction::SetTrue).help("List every lint with its default level"))
        .arg(Arg::new("fix").long("fix").action(ArgAction::SetTrue)
            .help("Apply machine-applicable suggestions (only where every edit of a file applies)"))
        .arg(Arg::new("baseline").long("baseline").value_name("FILE").value_parser(clap::value_parser!(PathBuf))
            .help("Report only findings that are not in this baseline"))
        .arg(Arg::new("write-baseline").long("write-baseline").value_name("FILE").value_parser(clap::value_parser!(PathBuf))
            .conflicts_with("baseline")
            .help("Record every current finding in a baseline file and exit 0"))
        .arg(Arg::new("timings").long("timings").action(ArgAction::SetTrue)
            .help("Print where the time went and which oracle paths decided the queries"))
        .arg(Arg::new("dump-ir").long("dump-ir").value_name("FILE.rs[:FUNCTION]")
            .conflicts_with_all(["files", "manifest-path", "package", "workspace", "all-targets", "fix", "baseline", "write-baseline"])
            .help("Print the analyzer's IR of a file (or of one function)"))
        .subcommand(
            Command::new("alias")
                .about("Decide whether two strided views of one buffer overlap, and explain why")
                .arg(Arg::new("jsonl").long("jsonl").action(ArgAction::SetTrue)
                    .help("Read one query per line on stdin, write one answer per line"))
                .arg(Arg::new("views").value_name("VIEW").num_args(0..=2)
                    .help("`{\"offset\":0,\"shape\":[2,3],\"strides\":[3,1]}` or `0:[2,3]:[3,1]`")),
        )
}

/// Runs the command line; `args` as the process got them (with `tensor-lint` after the
/// program name when cargo runs us as a subcommand).
pub fn run(mut args: Vec<OsString>) -> Result<ExitCode, ToolError> {
    if args.get(1).is_some_and(|a| a == "tensor-lint") {
        args.remove(1);
    }
    let matches = match command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(err) => {
            let _ = err.print();
            return Ok(ExitCode::from(if err.use_stderr() { 2 } else { 0 }));
        }
    };
    if let Some(("alias", sub)) = matches.subcommand() {
        return alias(sub);
    }
    if matches.get_flag("list") {
        print_list();
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(name) = matches.get_one::<String>("explain") {
        return explain(name);
    }
    let invocation = invocation(&matches)?;
    run::run(&invocation)
}

fn invocation(matches: &ArgMatches) -> Result<Invocation, ToolError> {
    let files: Vec<PathBuf> = matches
        .get_many::<PathBuf>("files")
        .map(|f| f.cloned().collect())
        .unwrap_or_default();
    let packages: Vec<String> = matches
        .get_many::<String>("package")
        .map(|p| p.cloned().collect())
        .unwrap_or_default();
    let manifest_path = matches.get_one::<PathBuf>("manifest-path").cloned();
    if !files.is_empty()
        && (manifest_path.is_some()
            || !packages.is_empty()
            || matches.get_flag("workspace")
            || matches.get_flag("all-targets")
            || matches.contains_id("features")
            || matches.get_flag("all-features")
            || matches.get_flag("no-default-features"))
    {
        return Err(ToolError::usage(
            "loose files cannot be combined with `--manifest-path`, `-p`, `--workspace` or features",
            Some("either check files on their own, or check a Cargo project".into()),
        ));
    }
    if let Some(bad) = files
        .iter()
        .find(|f| f.extension().is_none_or(|e| e != "rs"))
    {
        return Err(ToolError::usage(
            format!("`{}` is not a Rust file", bad.display()),
            Some("loose files must end in `.rs`; use `--manifest-path` for a Cargo project".into()),
        ));
    }
    let inputs = if files.is_empty() {
        Inputs::Cargo {
            manifest_path,
            packages,
            workspace: matches.get_flag("workspace"),
            all_targets: matches.get_flag("all-targets"),
            features: Features {
                named: matches
                    .get_many::<String>("features")
                    .into_iter()
                    .flatten()
                    .flat_map(|f| f.split([' ', ',']))
                    .filter(|f| !f.is_empty())
                    .map(str::to_string)
                    .collect(),
                all: matches.get_flag("all-features"),
                no_default: matches.get_flag("no-default-features"),
            },
        }
    } else {
        Inputs::Files(files)
    };
    let format: MessageFormat = matches
        .get_one::<String>("message-format")
        .and_then(|f| f.parse().ok())
        .unwrap_or(MessageFormat::Human);
    Ok(Invocation {
        inputs,
        levels: level_flags(matches)?,
        format,
        color: color_choice(
            matches
                .get_one::<String>("color")
                .map_or("auto", String::as_str),
            format,
        ),
        dump_ir: matches.get_one::<String>("dump-ir").cloned(),
        fix: matches.get_flag("fix"),
        baseline: matches.get_one::<PathBuf>("baseline").cloned(),
        write_baseline: matches.get_one::<PathBuf>("write-baseline").cloned(),
        timings: matches.get_flag("timings"),
    })
}

/// `-W/-A/-D` in the order given: later flags win, as in rustc.
fn level_flags(matches: &ArgMatches) -> Result<Vec<LevelFlag>, ToolError> {
    let mut flags = Vec::new();
    for (id, level) in [
        ("warn", Level::Warn),
        ("allow", Level::Allow),
        ("deny", Level::Deny),
    ] {
        let (Some(values), Some(indices)) =
            (matches.get_many::<String>(id), matches.indices_of(id))
        else {
            continue;
        };
        for (name, index) in values.zip(indices) {
            let flag = if name == "warnings" {
                LevelFlag::Warnings(level)
            } else {
                match registry::find(name) {
                    Some(lint) => LevelFlag::Lint(lint.name, level),
                    None => {
                        return Err(ToolError::usage(
                            format!("unknown lint `{name}`"),
                            Some(suggest_lint(name)),
                        ));
                    }
                }
            };
            flags.push((index, flag));
        }
    }
    flags.sort_by_key(|(index, _)| *index);
    Ok(flags.into_iter().map(|(_, flag)| flag).collect())
}

/// Colour for human and short output: `--color`, then `CLICOLOR_FORCE`, then `NO_COLOR`,
/// then whether stderr is a terminal.
fn color_choice(when: &str, format: MessageFormat) -> bool {
    if !matches!(format, MessageFormat::Human | MessageFormat::Short) {
        return false;
    }
    let set = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty() && v != "0");
    match when {
        "always" => true,
        "never" => false,
        _ if set("CLICOLOR_FORCE") => true,
        _ if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) => false,
        _ => std::io::stderr().is_terminal(),
    }
}

fn print_list() {
    let mut out = String::new();
    out.push_str(&format!(
        "{:<16} {:<7} {:<12} {}\n",
        "lint", "default", "group", "what it finds"
    ));
    for lint in registry::lints() {
        let status = match lint.status {
            Status::Active => String::new(),
            Status::Planned => " (not yet checked: no pass reports it, it never fires)".to_string(),
        };
        let level = if lint.possible_is_warn {
            "deny*"
        } else {
            lint.default_level.as_str()
        };
        out.push_str(&format!(
            "{:<16} {:<7} {:<12} {}{}\n",
            lint.name,
            level,
            lint.group.as_str(),
            lint.summary,
            status
        ));
    }
    out.push_str(
        "\n* deny when the overlap is proven for all inputs, warn when it is only possible\n",
    );
    out.push_str(
        "Use `cargo tensor-lint --explain LINT` for what a lint finds and how to fix it.\n",
    );
    let _ = std::io::stdout().write_all(out.as_bytes());
}

fn explain(name: &str) -> Result<ExitCode, ToolError> {
    let Some(lint) = registry::find(name) else {
        return Err(ToolError::usage(
            format!("unknown lint `{name}`"),
            Some(suggest_lint(name)),
        ));
    };
    let mut text = format!(
        "# `{}` ({}, {} by default)\n\n{}\n",
        lint.code(),
        lint.group.as_str(),
        lint.default_level.as_str(),
        lint.explanation()
    );
    if lint.status == Status::Planned {
        text.push_str("\nNote: this lint is declared but not checked yet; it never fires.\n");
    }
    let _ = std::io::stdout().write_all(text.as_bytes());
    Ok(ExitCode::SUCCESS)
}

fn alias(matches: &ArgMatches) -> Result<ExitCode, ToolError> {
    crate::alias::run(
        matches.get_flag("jsonl"),
        matches
            .get_many::<String>("views")
            .map(|v| v.cloned().collect())
            .unwrap_or_default(),
    )
}
