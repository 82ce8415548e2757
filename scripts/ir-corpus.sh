#!/usr/bin/env bash
# Lowers every function of published crates to the tensor IR, to show that the front
# end never panics on real code. The crates are lintcheck's pinned corpus, downloaded
# from crates.io into the git-ignored `lintcheck/crates/` (nothing is committed); the
# ignored test `corpus_lowers_without_panic` then walks all their `.rs` files.
#
# usage: scripts/ir-corpus.sh
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
python3 "$root/lintcheck/lintcheck.py" --download-only

cd "$root"
TENSOR_LINT_CORPUS="$root/lintcheck/crates" cargo test -p tensor-lint-analyzer --release --test ir_corpus \
    -- --ignored --nocapture corpus_lowers_without_panic
