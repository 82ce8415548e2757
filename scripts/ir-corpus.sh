#!/usr/bin/env bash
# Lowers every function of published crates to the tensor IR, to show that the front
# end never panics on real code. The pinned `.crate` files are downloaded from
# crates.io into the git-ignored `lintcheck/crates/` (nothing is committed), then the
# ignored test `corpus_lowers_without_panic` walks all their `.rs` files.
#
# usage: scripts/ir-corpus.sh
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/lintcheck/crates"
mkdir -p "$dest"

# name version: ndarray and rayon, and tch-using crates.
crates=(
    "ndarray 0.16.1"
    "rayon 1.10.0"
    "rayon-core 1.12.1"
    "tch 0.17.0"
    "diffusers 0.3.1"
)

for entry in "${crates[@]}"; do
    read -r name version <<<"$entry"
    if [ -d "$dest/$name-$version" ]; then
        echo "have $name-$version"
        continue
    fi
    echo "downloading $name-$version"
    tmp="$dest/$name-$version.crate"
    # The API endpoint redirects to the static CDN; where the API is not reachable the
    # CDN serves the same file directly.
    curl -sfL -o "$tmp" "https://crates.io/api/v1/crates/$name/$version/download" ||
        curl -sfL -o "$tmp" "https://static.crates.io/crates/$name/$name-$version.crate"
    tar xzf "$tmp" -C "$dest"
    rm -f "$tmp"
done

cd "$root"
TENSOR_LINT_CORPUS="$dest" cargo test -p tensor-lint-analyzer --release --test ir_corpus \
    -- --ignored --nocapture corpus_lowers_without_panic
