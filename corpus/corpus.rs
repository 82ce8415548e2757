//! The library of the corpus's package: empty. Each `buggy.rs` and `fixed.rs` is
//! compiled as a crate of its own with this package's dependencies.
