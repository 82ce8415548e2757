//! tensor-lint: annotations for tensor-lint.
