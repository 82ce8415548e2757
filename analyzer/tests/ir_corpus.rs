//! Lowers every `.rs` file under `$TENSOR_LINT_CORPUS` (published crates fetched by
//! `scripts/ir-corpus.sh`) and reports what was built. Ignored by default: it needs the
//! downloaded sources.

use std::path::{Path, PathBuf};
use std::time::Instant;

use tensor_lint_analyzer::ir::dump::dump_ir;
use tensor_lint_analyzer::program::{analyze_crate, AnalysisOptions};
use tensor_lint_analyzer::source::SourceMap;
use tensor_lint_analyzer::syntax::{parse_file, CrateSources, ParsedFile};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let path = e.path();
        // `symlink_metadata` so that a symlink loop is not followed.
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            rust_files(&path, out);
        } else if meta.is_file() && path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

#[test]
#[ignore = "needs the crates downloaded by scripts/ir-corpus.sh"]
fn corpus_lowers_without_panic() {
    let Some(dir) = std::env::var_os("TENSOR_LINT_CORPUS") else {
        panic!("set TENSOR_LINT_CORPUS to the directory scripts/ir-corpus.sh fills");
    };
    // syn's parser recurses on nesting; give it room, as the driver does.
    let worker = std::thread::Builder::new().stack_size(256 * 1024 * 1024).spawn(move || {
        let mut files = Vec::new();
        rust_files(Path::new(&dir), &mut files);
        let (mut parsed, mut unparsed, mut functions, mut stmts, mut truncated, mut dumped) = (0, 0, 0, 0, 0, 0);
        let start = Instant::now();
        for path in &files {
            let Ok(bytes) = std::fs::read(path) else { continue };
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let mut sources = SourceMap::new();
            let file = sources.add(path.clone(), path.display().to_string(), text.clone());
            let Ok(ast) = parse_file(file, &text) else {
                unparsed += 1;
                continue;
            };
            parsed += 1;
            let krate = CrateSources { name: "corpus".into(), files: vec![ParsedFile { file, module_path: Vec::new(), ast }] };
            let ir = analyze_crate(&krate, &sources, &AnalysisOptions::default());
            for f in ir.functions() {
                functions += 1;
                stmts += f.stmts().count();
                truncated += usize::from(f.truncated);
            }
            dumped += dump_ir(&ir, &sources, None).len();
        }
        println!(
            "corpus: {} files ({parsed} parsed, {unparsed} rejected by syn), {functions} functions, \
             {stmts} ops, {truncated} truncated, {dumped} bytes of dump, in {:.2?}",
            files.len(),
            start.elapsed()
        );
        assert!(parsed > 0, "no Rust files found");
    });
    worker
        .expect("thread starts")
        .join()
        .expect("lowering the corpus panicked");
}
