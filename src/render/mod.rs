//! Output formats: human, short, json, sarif, github.
