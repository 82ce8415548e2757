//! The model tables own every library name: the lowering (`src/lower/`) and the reading
//! of written types (`src/syntax/`) compare names only with what the tables hold. This
//! test reads their sources, lists every name they test for — a string compared with
//! `==` or `!=`, a string pattern of a `match` or `matches!`, the argument of
//! `starts_with`, `ends_with`, `contains` or `is_ident` — and finds each one in the
//! tables. A name found nowhere is library knowledge with a second owner: move it into
//! `src/models/table.rs`.

use std::path::{Path, PathBuf};

use syn::visit::Visit;
use tensor_lint_analyzer::models::table::every_name;

/// Words of the Rust language itself (paths, macros, `cfg` predicates), which no table
/// models.
const LANGUAGE_WORDS: &[&str] = &[
    "self",
    "Self",
    "crate",
    "super",
    "_",
    "macro_rules",
    "cfg",
    "test",
    "feature",
    "not",
    "all",
    "any",
    "mut",
    // Fragment specifiers of `macro_rules!` matchers.
    "expr",
    "ident",
    "ty",
    "path",
    "pat",
    "pat_param",
    "tt",
    "literal",
    "block",
    "lifetime",
];

/// The source files whose name tests are checked.
fn checked_files() -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for dir in ["lower", "syntax"] {
        let Ok(entries) = std::fs::read_dir(src.join(dir)) else {
            panic!("src/{dir} exists");
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // `syntax/mod.rs` reads the module system (`mod.rs`, `#[path]`), not APIs.
            let module_system = dir == "syntax" && path.ends_with("mod.rs");
            let tests = path.ends_with("tests.rs");
            if path.extension().is_some_and(|e| e == "rs") && !module_system && !tests {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Every string a file tests a name against, with its line.
#[derive(Default)]
struct NameTests {
    found: Vec<(String, usize)>,
}

impl NameTests {
    fn literal(&mut self, e: &syn::Expr) {
        let e = match e {
            syn::Expr::Reference(r) => &*r.expr,
            other => other,
        };
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = e
        {
            self.found.push((s.value(), s.span().start().line));
        }
    }

    fn pattern(&mut self, p: &syn::Pat) {
        match p {
            syn::Pat::Lit(syn::PatLit {
                lit: syn::Lit::Str(s),
                ..
            }) => self.found.push((s.value(), s.span().start().line)),
            syn::Pat::Or(o) => o.cases.iter().for_each(|c| self.pattern(c)),
            syn::Pat::Tuple(t) => t.elems.iter().for_each(|c| self.pattern(c)),
            syn::Pat::Slice(s) => s.elems.iter().for_each(|c| self.pattern(c)),
            syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|c| self.pattern(c)),
            syn::Pat::Paren(p) => self.pattern(&p.pat),
            syn::Pat::Reference(r) => self.pattern(&r.pat),
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for NameTests {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // Unit tests name whatever they test.
        let is_test = m.attrs.iter().any(|a| {
            a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
        });
        if !is_test {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        if matches!(b.op, syn::BinOp::Eq(_) | syn::BinOp::Ne(_)) {
            self.literal(&b.left);
            self.literal(&b.right);
        }
        syn::visit::visit_expr_binary(self, b);
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        self.pattern(&arm.pat);
        syn::visit::visit_arm(self, arm);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let method = m.method.to_string();
        if [
            "starts_with",
            "ends_with",
            "contains",
            "is_ident",
            "strip_prefix",
            "eq",
        ]
        .contains(&method.as_str())
        {
            m.args.iter().for_each(|a| self.literal(a));
        }
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if mac.path.is_ident("matches") {
            let parsed = mac.parse_body_with(|input: syn::parse::ParseStream<'_>| {
                let _: syn::Expr = input.parse()?;
                let _: syn::Token![,] = input.parse()?;
                syn::Pat::parse_multi_with_leading_vert(input)
            });
            if let Ok(p) = parsed {
                self.pattern(&p);
            }
        }
        syn::visit::visit_macro(self, mac);
    }
}

fn name_tests(path: &Path) -> Vec<(String, usize)> {
    let text = std::fs::read_to_string(path).expect("a readable source file");
    let file = syn::parse_file(&text).expect("the analyzer's sources parse");
    let mut tests = NameTests::default();
    tests.visit_file(&file);
    tests.found
}

#[test]
fn every_name_the_lowering_tests_for_is_in_the_model_tables() {
    let known = every_name();
    let mut unowned = Vec::new();
    let mut seen = 0;
    for path in checked_files() {
        for (name, line) in name_tests(&path) {
            seen += 1;
            if !known.contains(&name.as_str()) && !LANGUAGE_WORDS.contains(&name.as_str()) {
                unowned.push(format!("{}:{line}: `{name}`", path.display()));
            }
        }
    }
    assert!(
        unowned.is_empty(),
        "names tested outside the model tables (add rows to src/models/table.rs and ask the \
         table instead):\n{}",
        unowned.join("\n")
    );
    // The language words are tested somewhere, so the scan does see comparisons.
    assert!(seen > 0, "no name test found: the scan is broken");
}

#[test]
fn the_scan_finds_every_form_of_name_test() {
    let text = r#"
        fn f(m: &str, p: &syn::Path) {
            if m == "a" {}
            if "b" != m {}
            match m { "c" | "d" => {} _ => {} }
            let _ = matches!(m, "e" | "f");
            let _ = m.starts_with("g") || m.contains("h") || p.is_ident("i");
        }
        #[cfg(test)]
        mod tests { fn t(m: &str) { if m == "z" {} } }
    "#;
    let file = syn::parse_file(text).expect("parses");
    let mut tests = NameTests::default();
    tests.visit_file(&file);
    let names: Vec<&str> = tests.found.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "c", "d", "e", "f", "g", "h", "i"]);
}
