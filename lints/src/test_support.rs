//! Running one pass over a source text, for the lints' unit tests.

use tensor_lint_analyzer::program::{analyze_crate, AnalysisOptions};
use tensor_lint_analyzer::source::SourceMap;
use tensor_lint_analyzer::syntax::{parse_file, CrateSources, ParsedFile};

use crate::context::{CheckFn, LintContext};
use crate::diagnostic::Diagnostic;

pub(crate) fn findings_of(pass: CheckFn, text: &str) -> Vec<Diagnostic> {
    findings_with(pass, text, AnalysisOptions::default())
}

pub(crate) fn findings_with(
    pass: CheckFn,
    text: &str,
    options: AnalysisOptions,
) -> Vec<Diagnostic> {
    let mut sources = SourceMap::new();
    let file = sources.add("t.rs".into(), "t.rs".into(), text.into());
    let ast = parse_file(file, text).expect("test source parses");
    let krate = CrateSources {
        name: "t".into(),
        files: vec![ParsedFile {
            file,
            module_path: Vec::new(),
            ast,
        }],
    };
    let ir = analyze_crate(&krate, &sources, &options);
    let cx = LintContext {
        ir: &ir,
        sources: &sources,
        cache_line_bytes: 64,
    };
    let mut out = Vec::new();
    pass(&cx, &mut out);
    out.into_iter().map(|f| f.diagnostic).collect()
}
