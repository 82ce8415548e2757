//! Each lint on snippets compiled as crates of their own: one behaviour per test, the
//! bug it must report and the correct look-alike it must not. (The UI fixtures show the
//! rendered output; these check one fact of a finding each.)

#[path = "../common/mod.rs"]
mod common;

mod alias_race;
mod alloc_in_loop;
mod double_free;
mod false_sharing;
mod leak;
mod missed_inplace;
mod unsafe_inplace;
mod use_after_free;
