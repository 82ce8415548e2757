#!/usr/bin/env bash
# Moves the nightly tensor-lint is built with and checks code with (its driver links
# that compiler) to the nightly of DATE, then builds and tests the workspace.
#
# usage: scripts/bump-nightly.sh YYYY-MM-DD
set -euo pipefail
cd "$(dirname "$0")/.."

date="${1:?usage: scripts/bump-nightly.sh YYYY-MM-DD}"
if ! [[ "$date" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]]; then
    echo "error: expected a date like 2026-10-30, got \`$date\`" >&2
    exit 2
fi
sed -i.bak -E "s/^channel = \"nightly-[0-9-]+\"/channel = \"nightly-$date\"/" rust-toolchain.toml
rm -f rust-toolchain.toml.bak
grep -q "nightly-$date" rust-toolchain.toml
rustup toolchain install
cargo build --workspace --locked
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked
echo "nightly-$date builds and passes; commit rust-toolchain.toml with the fixes"
