#!/usr/bin/env bash
# Builds the book (book/) into book/book/ with mdBook, failing on any build error.
#
# Uses the `mdbook` on PATH when there is one. Otherwise it installs the pinned version
# from crates.io into the git-ignored target/tools/ (once; later runs reuse it), with
# only the `search` feature: `serve` and `watch` are for writers previewing locally and
# would double the build time. Installing takes a few minutes on two cores.
#
# usage: scripts/book.sh
set -euo pipefail

MDBOOK_VERSION=0.5.4

root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/target/tools"

if command -v mdbook >/dev/null 2>&1; then
    mdbook=mdbook
else
    mdbook="$tools/bin/mdbook"
    if ! "$mdbook" --version 2>/dev/null | grep -qxF "mdbook v$MDBOOK_VERSION"; then
        echo "mdbook is not on PATH: installing mdbook $MDBOOK_VERSION into $tools"
        cargo install mdbook --locked --version "$MDBOOK_VERSION" \
            --no-default-features --features search --root "$tools"
    fi
fi

echo "building the book with $("$mdbook" --version)"
"$mdbook" build "$root/book"
echo "the book is in $root/book/book/index.html"
