//! A crate analysed with its files spread over threads gives what one thread gives:
//! the same files in the same order, the same errors, the same IR.

use std::path::{Path, PathBuf};

use tensor_lint_analyzer::ir::dump::dump_ir;
use tensor_lint_analyzer::pipeline::{analyze_files, Analyzed, CrateRoot, InternalError};
use tensor_lint_analyzer::program::AnalysisOptions;

/// A crate of `modules` files, each with a few functions that call into the next
/// module (so summaries flow across files and threads), one recursive pair, one file
/// that does not parse and one missing module file.
fn write_crate(dir: &Path, modules: usize) -> PathBuf {
    let _ = std::fs::remove_dir_all(dir);
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("nested")).unwrap();
    let mut lib = String::from("mod broken;\nmod missing;\nmod nested;\n");
    for m in 0..modules {
        lib.push_str(&format!("pub mod m{m};\n"));
        let next = (m + 1) % modules;
        let text = format!(
            "use std::alloc::{{alloc, dealloc, Layout}};\n\
             pub fn fill{m}(v: &mut [f32]) {{ for x in v.iter_mut() {{ *x = 1.0; }} }}\n\
             pub fn make{m}(n: usize) -> *mut f32 {{\n\
                 unsafe {{ alloc(Layout::array::<f32>(n).unwrap()) as *mut f32 }}\n\
             }}\n\
             pub fn leaky{m}(n: usize, v: &mut [f32]) -> f32 {{\n\
                 let p = make{m}(n);\n\
                 crate::m{next}::fill{next}(v);\n\
                 if n == 0 {{ return 0.0; }}\n\
                 unsafe {{ dealloc(p as *mut u8, Layout::array::<f32>(n).unwrap()) }};\n\
                 v[0]\n\
             }}\n\
             pub fn ping{m}(n: usize, v: &mut [f32]) {{ if n > 0 {{ pong{m}(n - 1, v) }} }}\n\
             pub fn pong{m}(n: usize, v: &mut [f32]) {{ v[0] = 0.0; if n > 0 {{ ping{m}(n - 1, v) }} }}\n"
        );
        std::fs::write(src.join(format!("m{m}.rs")), text).unwrap();
    }
    std::fs::write(src.join("lib.rs"), lib).unwrap();
    std::fs::write(src.join("broken.rs"), "fn ( {\n").unwrap();
    std::fs::write(src.join("nested/mod.rs"), "mod leaf;\n").unwrap();
    std::fs::write(src.join("nested/leaf.rs"), "pub fn leaf() {}\n").unwrap();
    src.join("lib.rs")
}

fn analyze(root: &Path, threads: usize) -> Analyzed<(String, usize)> {
    let base = root.parent().unwrap().parent().unwrap().to_path_buf();
    let display = move |p: &Path| p.strip_prefix(&base).unwrap_or(p).display().to_string();
    let krate = CrateRoot {
        name: "spread",
        root,
        edition: Default::default(),
        display: &display,
        excluded: &|_| false,
    };
    analyze_files(
        &krate,
        &AnalysisOptions::default(),
        threads,
        &|file, ast| (file.display.clone(), ast.items.len()),
    )
}

fn fingerprint(a: &Analyzed<(String, usize)>) -> String {
    let files: Vec<String> = (0..a.sources.len() as u32)
        .map(|f| {
            a.sources
                .get(tensor_lint_analyzer::source::FileId(f))
                .display
                .clone()
        })
        .collect();
    format!(
        "files {files:?}\nper file {:?}\nerrors {:?}\nindex errors {:?}\n{} files, {} lines\n{}",
        a.per_file,
        a.load_errors,
        a.ir.errors,
        a.files,
        a.lines,
        dump_ir(&a.ir, &a.sources, None)
    )
}

#[test]
fn any_number_of_threads_gives_the_result_of_one() {
    let dir = std::env::temp_dir().join(format!("tensor-lint-pipeline-{}", std::process::id()));
    let root = write_crate(&dir, 24);
    let one = analyze(&root, 1);
    let expected = fingerprint(&one);
    assert_eq!(one.files, 24 + 3, "lib, nested, leaf and the modules");
    assert_eq!(one.load_errors.len(), 2, "{:?}", one.load_errors);
    assert!(expected.contains("fn m3::leaky3"), "{expected}");
    // Summaries crossed files: `leaky0` calls `fill1`, which writes its argument.
    assert!(one.ir.functions().any(|f| f.path == "m0::leaky0"));
    for threads in [2, 3, 8] {
        for _ in 0..3 {
            let spread = analyze(&root, threads);
            let got = fingerprint(&spread);
            if got != expected {
                let diff = similar::TextDiff::from_lines(&expected, &got)
                    .unified_diff()
                    .to_string();
                panic!("{threads} threads differ from one:\n{diff}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_panic_on_a_worker_reaches_the_caller() {
    let dir =
        std::env::temp_dir().join(format!("tensor-lint-pipeline-panic-{}", std::process::id()));
    let root = write_crate(&dir, 6);
    let base = dir.clone();
    let display = move |p: &Path| p.strip_prefix(&base).unwrap_or(p).display().to_string();
    let krate = CrateRoot {
        name: "spread",
        root: &root,
        edition: Default::default(),
        display: &display,
        excluded: &|_| false,
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        analyze_files(&krate, &AnalysisOptions::default(), 2, &|file, _| {
            assert!(!file.display.ends_with("m4.rs"), "injected failure");
        })
    }));
    let payload = outcome.err().expect("the worker's panic is raised again");
    let error = payload
        .downcast_ref::<InternalError>()
        .expect("raised as an internal error");
    assert!(error.message.contains("injected failure"), "{error:?}");
    assert!(
        error
            .path
            .as_ref()
            .is_some_and(|p| p.ends_with("src/m4.rs")),
        "names the file: {error:?}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Each file mounts the next one twice, 24 levels deep: read naively, that is 2^24
/// loads; each file must be read once, for the first mount, as rustc would.
#[test]
fn a_file_mounted_again_and_again_is_read_once() {
    let dir = std::env::temp_dir().join(format!("tensor-lint-remount-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let levels = 24;
    for k in 0..levels {
        let name = if k == 0 {
            "lib.rs".to_string()
        } else {
            format!("f{k}.rs")
        };
        let text = format!(
            "#[path = \"f{next}.rs\"] mod a;\n#[path = \"f{next}.rs\"] mod b;\npub fn g{k}() {{}}\n",
            next = k + 1
        );
        std::fs::write(src.join(name), text).unwrap();
    }
    std::fs::write(src.join(format!("f{levels}.rs")), "pub fn leaf() {}\n").unwrap();
    let root = src.join("lib.rs");
    for threads in [1, 2] {
        let analyzed = analyze(&root, threads);
        assert_eq!(analyzed.files, levels + 1, "{threads} threads");
        assert!(
            analyzed.load_errors.is_empty(),
            "{:?}",
            analyzed.load_errors
        );
        let mounted: Vec<String> = analyzed.ir.functions().map(|f| f.path.clone()).collect();
        // Every file is mounted at its first path, through `a` each time.
        assert_eq!(
            mounted.last().map(String::as_str),
            Some(&*format!("{}leaf", "a::".repeat(levels)))
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}
