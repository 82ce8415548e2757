#!/usr/bin/env bash
# Fuzzes every reader of user input outside the compiler (the configuration file, alias
# queries, `// tensor-lint:` comments, annotation arguments) for a fixed budget.
#
# The seed corpus is every Rust file of the UI fixtures and the demo crate (comments and
# annotations as users write them), a configuration and alias queries; `fuzz/rust.dict`
# keeps libFuzzer's mutations close to Rust.
# cargo-fuzz needs nightly features; with the stable toolchain RUSTC_BOOTSTRAP enables
# them for this build only. A crash leaves its input in fuzz/artifacts/.
#
# usage: scripts/fuzz.sh [SECONDS]   (default 60)
set -euo pipefail

seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked

corpus="$root/target/fuzz-corpus"
mkdir -p "$corpus"
find fixtures/ui fixtures/demo/src -name '*.rs' -exec cp {} "$corpus/" \;
printf 'cache-line-bytes = 128\nexclude = ["vendor/**"]\n[lints]\nleak = "deny"\n[[models]]\npath = "pool::Pool::take"\neffect = "alloc"\n' > "$corpus/config.toml"
printf '{"a":{"offset":0,"shape":[2,3],"strides":[3,1]},"b":{"offset":2,"shape":[3],"strides":[3]}}\n' > "$corpus/query.jsonl"

RUSTC_BOOTSTRAP=1 cargo fuzz run --fuzz-dir fuzz --sanitizer none inputs "$corpus" -- \
    -dict=fuzz/rust.dict -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=4096
