//! Snapshot tests of the IR: each `tests/snapshots/NAME.rs` is lowered and its
//! `dump_ir` text compared with `tests/snapshots/NAME.ir`. `TENSOR_LINT_BLESS=1 cargo test
//! -p tensor-lint-analyzer --test ir_snapshots` rewrites the expected files.

use std::path::{Path, PathBuf};

use tensor_lint_analyzer::ir::dump::dump_ir;
use tensor_lint_analyzer::models::{ApiModel, Effect, Models};
use tensor_lint_analyzer::program::{analyze_crate, AnalysisOptions};
use tensor_lint_analyzer::source::SourceMap;
use tensor_lint_analyzer::syntax::{parse_file, CrateSources, ParsedFile};

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots")
}

/// Lowers one source text as a crate and dumps its IR.
fn dump(name: &str, text: &str) -> String {
    let mut sources = SourceMap::new();
    let file = sources.add(PathBuf::from(name), name.to_string(), text.to_string());
    let ast =
        parse_file(file, text).unwrap_or_else(|e| panic!("{name} does not parse: {}", e.message));
    let krate = CrateSources {
        name: "snapshot".into(),
        files: vec![ParsedFile {
            file,
            module_path: Vec::new(),
            ast,
        }],
    };
    // A first line `// models: [...]` gives extra API models, as tensor-lint.toml would.
    let models = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("// models: "))
        .map(|json| {
            let rows: Vec<serde_json::Value> = serde_json::from_str(json)
                .unwrap_or_else(|e| panic!("{name}: bad models line: {e}"));
            rows.iter().map(api_model).collect::<Vec<_>>()
        })
        .unwrap_or_default();
    let options = AnalysisOptions {
        models: Models::new(&models),
        ..AnalysisOptions::default()
    };
    let ir = analyze_crate(&krate, &sources, &options);
    let mut out = dump_ir(&ir, &sources, None);
    for e in &ir.errors {
        let at = sources.get(e.span.file).line_col(e.span.lo as usize);
        out.push_str(&format!(
            "error @ {}:{}: {} ({})\n",
            at.line, at.column, e.message, e.label
        ));
    }
    out
}

/// One `[[models]]` row of the configuration, written as a JSON object.
fn api_model(row: &serde_json::Value) -> ApiModel {
    let text = |key: &str| row.get(key).and_then(|v| v.as_str()).map(str::to_string);
    let effect = match text("effect").as_deref() {
        Some("alloc") => Effect::Alloc,
        Some("free") => Effect::Free,
        Some("view") => Effect::View,
        Some("inplace") => Effect::Inplace,
        Some("read") => Effect::Read,
        Some("write") => Effect::Write,
        other => panic!("unknown effect {other:?}"),
    };
    ApiModel {
        path: text("path"),
        method: text("method"),
        effect,
        arg: row.get("arg").and_then(|v| v.as_u64()).map(|a| a as usize),
    }
}

fn check(name: &str) {
    let dir = snapshot_dir();
    let src_path = dir.join(format!("{name}.rs"));
    let text = std::fs::read_to_string(&src_path)
        .unwrap_or_else(|e| panic!("{}: {e}", src_path.display()));
    let got = dump(&format!("{name}.rs"), &text);
    let ir_path = dir.join(format!("{name}.ir"));
    if std::env::var_os("TENSOR_LINT_BLESS").is_some_and(|v| v != "0") {
        std::fs::write(&ir_path, &got).unwrap_or_else(|e| panic!("{}: {e}", ir_path.display()));
        return;
    }
    let want = std::fs::read_to_string(&ir_path).unwrap_or_default();
    if want != got {
        let diff = similar::TextDiff::from_lines(&want, &got);
        let mut shown = String::new();
        for change in diff.iter_all_changes() {
            let sign = match change.tag() {
                similar::ChangeTag::Delete => "-",
                similar::ChangeTag::Insert => "+",
                similar::ChangeTag::Equal => " ",
            };
            shown.push_str(sign);
            shown.push_str(change.as_str().unwrap_or(""));
        }
        panic!("IR of {name}.rs differs from {name}.ir (TENSOR_LINT_BLESS=1 to accept):\n{shown}");
    }
}

macro_rules! snapshots {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { check(stringify!($name)); })*
    };
}

snapshots!(
    alloc_release_dealloc,
    branches_and_match,
    loops_break_continue,
    early_return_and_try,
    closures_capture,
    views_ndarray_slices,
    raw_pointer_provenance,
    newtype_send_ptr_summary,
    from_raw_parts_and_shape_ptr,
    parallel_rayon_join_scope,
    parallel_iterators,
    threads_scope_spawn,
    par_azip_and_zip,
    tch_tensors,
    summaries_bottom_up,
    escapes_and_leaks,
    annotations,
    liveness_and_states,
    user_models,
    crossbeam_atomics_and_layout,
);

#[test]
fn every_demo_file_lowers_without_panic() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/demo/src");
    let Ok(entries) = std::fs::read_dir(&demo) else {
        eprintln!("fixtures/demo/src is absent; skipped");
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    // The crate root first, then its modules, as the driver mounts them.
    paths.sort_by_key(|p| (p.file_stem().is_none_or(|s| s != "lib"), p.clone()));
    let mut sources = SourceMap::new();
    let mut krate = CrateSources {
        name: "demo".into(),
        files: Vec::new(),
    };
    for path in &paths {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let file = sources.add(path.clone(), path.display().to_string(), text.clone());
        let Ok(ast) = parse_file(file, &text) else {
            continue;
        };
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let module_path = if stem == "lib" {
            Vec::new()
        } else {
            vec![stem]
        };
        krate.files.push(ParsedFile {
            file,
            module_path,
            ast,
        });
    }
    let ir = analyze_crate(&krate, &sources, &AnalysisOptions::default());
    let dump = dump_ir(&ir, &sources, None);
    assert_eq!(
        dump.matches("\nfn ").count() + usize::from(dump.starts_with("fn ")),
        ir.functions().count()
    );
    if std::env::var_os("DUMP_DEMO").is_some() {
        println!("{dump}");
    }
    eprintln!(
        "lowered {} functions of fixtures/demo",
        ir.functions().count()
    );
}

#[test]
fn deeply_nested_expression_lowers_to_unknown_without_overflow() {
    // Parsing needs a deep stack of its own; the lowering must not add to it beyond
    // its bound.
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(|| {
            let depth = 10_000;
            let text = format!(
                "fn f(a: &mut [f32]) {{ let x = {}a[0]{}; }}",
                "(".repeat(depth),
                ")".repeat(depth)
            );
            let out = dump("deep.rs", &text);
            assert!(out.contains("truncated"), "{out}");
        })
        .expect("thread starts");
    handle.join().expect("no panic");
}

#[test]
fn function_filter_selects_by_name_or_type_path() {
    let text = "struct P; impl P { fn get(&self) {} } fn get() {} fn other() {}";
    let mut sources = SourceMap::new();
    let file = sources.add("f.rs".into(), "f.rs".into(), text.into());
    let ast = parse_file(file, text).expect("parses");
    let krate = CrateSources {
        name: "t".into(),
        files: vec![ParsedFile {
            file,
            module_path: Vec::new(),
            ast,
        }],
    };
    let ir = analyze_crate(&krate, &sources, &AnalysisOptions::default());
    let both = dump_ir(&ir, &sources, Some("get"));
    assert_eq!(
        both.matches("\nfn ").count() + usize::from(both.starts_with("fn ")),
        2,
        "{both}"
    );
    let one = dump_ir(&ir, &sources, Some("P::get"));
    assert!(one.starts_with("fn P::get"), "{one}");
    assert!(!one.contains("fn get"), "{one}");
}
