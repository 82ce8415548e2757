//! Compile-time behaviour of the annotations, as users see it: correct uses compile and
//! run unchanged, wrong ones fail with the messages in `ui/fail/*.stderr`.
//!
//! Bless the expected output with `TENSOR_LINT_BLESS=1 cargo test -p tensor-lint --test ui`
//! (the same variable as every snapshot test of the workspace) and review the diff.

#[test]
fn ui() {
    if std::env::var_os("TENSOR_LINT_BLESS").is_some_and(|v| v != "0") {
        // trybuild rewrites its expectations under its own variable.
        std::env::set_var("TRYBUILD", "overwrite");
    }
    // One `TestCases` so trybuild builds every case in a single project.
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
