//! Compile-time behaviour of the annotations, as users see it: correct uses compile and
//! run unchanged, wrong ones fail with the messages in `ui/fail/*.stderr`.
//!
//! Bless the expected output with `TRYBUILD=overwrite cargo test -p tensor-lint --test ui`
//! and review the diff.

#[test]
fn ui() {
    // One `TestCases` so trybuild builds every case in a single project.
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
