//! Every reader of user input outside the compiler (configuration, alias queries,
//! allow comments, annotation arguments) on arbitrary text: it must never panic,
//! whatever the bytes.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    cargo_tensor_lint::fuzz_one(text);
});
