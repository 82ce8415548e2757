#!/usr/bin/env python3
"""lintcheck: run tensor-lint on published crates and write a reviewed report.

Runs the release binary of this repository on `CRATES`, published crates heavy in
macros, generics, unsafe code and foreign bindings that the corpus does not use, as a
user would (`cargo tensor-lint --manifest-path CRATE/Cargo.toml --workspace`: `cargo
check` with tensor-lint's driver); their dependencies are built once into a cache
outside the checkout. Downloads the pinned `.crate` files from crates.io (kept in a cache
outside the repository, so a second run needs no network) and extracts them into the
git-ignored `lintcheck/crates/`. Writes `lintcheck/report.md`: lines read, time,
findings per lint, every lint finding with its review.

Each lint finding is matched against `lintcheck/reviews.toml`, where a person marks it
`true` (a bug), `intended` (deliberate, with the suppression a user would write) or
`false` (a false positive), with a one-line reason. With `--check` the run fails on a
finding without a review, on a false finding at error level, on more false findings
than one per 200,000 lines, on an input problem at error level, on a review that
matches no finding (its history belongs in the comment of the reviews), and on any
internal error.

usage: lintcheck/lintcheck.py [--download-only] [--check] [--binary PATH]
"""

import argparse
import json
import os
import subprocess
import sys
import tarfile
import time
import tomllib
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES_DIR = ROOT / "lintcheck" / "crates"
REPORT = ROOT / "lintcheck" / "report.md"
REVIEWS = ROOT / "lintcheck" / "reviews.toml"
CACHE = Path(os.environ.get("TENSOR_LINT_LINTCHECK_CACHE")
             or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tensor-lint" / "lintcheck")

# The crates checked (see the module's text).
CRATES = [
    ("arc-swap", "1.9.5"),
    ("arrayvec", "0.7.8"),
    ("ash", "0.38.0+1.3.281"),
    ("async-task", "4.7.1"),
    ("bumpalo", "3.20.4"),
    ("bytes", "1.12.2"),
    ("concurrent-queue", "2.5.0"),
    ("crossbeam-deque", "0.8.8"),
    ("crossbeam-queue", "0.3.14"),
    ("crossbeam-utils", "0.8.20"),
    ("cudarc", "0.19.10"),
    ("dashmap", "6.2.1"),
    ("half", "2.7.1"),
    ("lockfree", "0.5.1"),
    ("matrixmultiply", "0.3.9"),
    ("memmap2", "0.9.12"),
    ("ndarray", "0.16.1"),
    ("parking_lot", "0.13.0"),
]
# cudarc binds the CUDA driver API of the version a feature names; checking needs no GPU.
CRATE_ARGS = {"cudarc-0.19.10": ["--features", "cuda-12080"]}
TARGET = CACHE.parent / "lintcheck-compiler-target"

# At most this many false findings per line read.
FALSE_PER_LINES = 200_000

def download(name: str, version: str) -> Path:
    dest = CRATES_DIR / f"{name}-{version}"
    if dest.is_dir():
        return dest
    CRATES_DIR.mkdir(parents=True, exist_ok=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    archive = CACHE / f"{name}-{version}.crate"
    if not archive.is_file():
        urls = [
            f"https://static.crates.io/crates/{name}/{name}-{version}.crate",
            f"https://crates.io/api/v1/crates/{name}/{version}/download",
        ]
        last_error = None
        for url in urls:
            try:
                with urllib.request.urlopen(url, timeout=60) as response:
                    partial = archive.with_suffix(".part")
                    partial.write_bytes(response.read())
                    partial.replace(archive)
                break
            except OSError as err:  # unreachable endpoint: try the next one
                last_error = err
        else:
            raise SystemExit(f"cannot download {name} {version}: {last_error}")
    with tarfile.open(archive) as tar:
        tar.extractall(CRATES_DIR, filter="data")
    return dest


def binary_path(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit).resolve()
    subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
    return ROOT / "target" / "release" / "cargo-tensor-lint"


def parse_stream(stdout: str, internal: list[str]) -> tuple[list[dict], dict | None]:
    """The compiler messages of a JSON stream, and its run summary."""
    messages, summary = [], None
    for line in stdout.splitlines():
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            internal.append(f"not JSON on stdout: {line[:200]}")
            continue
        if message.get("reason") == "build-finished":
            summary = message.get("tensor_lint")
        if message.get("reason") != "compiler-message":
            continue
        diag = message["message"]
        span = next((s for s in diag["spans"] if s["is_primary"]), diag["spans"][0] if diag["spans"] else None)
        code = (diag.get("code") or {}).get("code")
        if code is None and diag["message"].startswith("internal error"):
            internal.append(f"{span['file_name'] if span else '?'}: {diag['message']}")
        messages.append({
            "code": code,
            "level": diag["level"],
            "message": diag["message"],
            "file": span["file_name"] if span else "?",
            "line": span["line_start"] if span else 0,
            "text": (span["text"][0]["text"].strip() if span and span["text"] else ""),
        })
    return messages, summary


def crate_result(messages: list[dict], internal: list[str], seconds: float, summary: dict | None) -> dict:
    """One crate's run: lint findings, input problems, notes, internal errors, time, size."""
    return {
        "findings": [m for m in messages if m["code"]],
        "inputs": [m for m in messages if not m["code"] and m["level"] != "note"],
        "notes": [m for m in messages if not m["code"] and m["level"] == "note"],
        "internal": internal,
        "seconds": seconds,
        "files": (summary or {}).get("analysed_files", 0),
        "lines": (summary or {}).get("analysed_lines", 0),
    }


def run_crate(binary: Path, crate_dir: Path) -> dict:
    """tensor-lint on a crate, in crate mode."""
    internal: list[str] = []
    extra = CRATE_ARGS.get(crate_dir.name, [])
    # Published crates may deny warnings the pinned nightly adds; rustc's own lints are
    # not what is checked here.
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET), RUSTFLAGS="--cap-lints=warn")
    started = time.monotonic()
    run = subprocess.run([str(binary), "--manifest-path", str(crate_dir / "Cargo.toml"),
                          "--workspace", "--message-format", "json", *extra],
                         capture_output=True, text=True, errors="replace", env=env)
    seconds = time.monotonic() - started
    messages, summary = parse_stream(run.stdout, internal)
    if run.returncode not in (0, 1):
        internal.append(f"exit status {run.returncode}: {run.stderr.strip()[-500:]}")
    return crate_result(messages, internal, seconds, summary)


def load_reviews(path: Path = REVIEWS) -> list[dict]:
    if not path.is_file():
        return []
    return tomllib.loads(path.read_text()).get("finding", [])


def review_of(reviews: list[dict], crate: str, finding: dict) -> dict | None:
    for review in reviews:
        if (review.get("crate") == crate and review.get("file") == finding["file"]
                and review.get("lint") == finding["code"]
                and review.get("text", "").strip() == finding["text"]):
            return review
    return None


def write_report(results: dict, reviews: list[dict]) -> list[str]:
    """Writes the report; returns what makes `--check` fail."""
    failures: list[str] = []
    total_lines = sum(r["lines"] for r in results.values())
    total_seconds = sum(r["seconds"] for r in results.values())
    head = ["# lintcheck report", "",
            "Generated by `lintcheck/lintcheck.py`: the release build (`cargo check` with tensor-lint's",
            "driver) on published crates, in crate mode (`--workspace`); the time includes building each",
            "crate's dependencies once. Every lint finding is reviewed in `lintcheck/reviews.toml` as",
            "`true` (a bug), `intended` (deliberate; the suppression a user would write) or `false` (a",
            "false positive, a bug of tensor-lint to fix).", ""]
    out = head + [
           "| crate | files | lines | time | lines/s | findings | input problems | internal errors |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for crate, r in results.items():
        rate = r["lines"] / r["seconds"] if r["seconds"] else 0
        out.append(f"| {crate} | {r['files']} | {r['lines']} | {r['seconds']:.2f} s | {rate:,.0f} "
                   f"| {len(r['findings'])} | {len(r['inputs'])} | {len(r['internal'])} |")
    out.append(f"| **all** | {sum(r['files'] for r in results.values())} | {total_lines} | {total_seconds:.2f} s "
               f"| {total_lines / total_seconds if total_seconds else 0:,.0f} "
               f"| {sum(len(r['findings']) for r in results.values())} "
               f"| {sum(len(r['inputs']) for r in results.values())} "
               f"| {sum(len(r['internal']) for r in results.values())} |")
    verdicts: dict[str, int] = {}
    per_lint: dict[tuple[str, str], int] = {}
    rows = []
    for crate, r in results.items():
        for f in r["findings"]:
            review = review_of(reviews, crate, f)
            verdict = review["verdict"] if review else "unreviewed"
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            per_lint[(f["code"], f["level"])] = per_lint.get((f["code"], f["level"]), 0) + 1
            where = f"{crate} `{f['file']}:{f['line']}`"
            if review is None:
                failures.append(f"unreviewed: {where} {f['code']}")
            elif verdict == "false" and f["level"] == "error":
                failures.append(f"false at error level: {where} {f['code']}")
            elif verdict not in ("true", "intended", "false"):
                failures.append(f"unknown verdict `{verdict}`: {where}")
            reason = f": {review.get('reason', '')}" if review else ""
            rows.append(f"- {where} {f['level']}[{f['code']}] {f['message']} "
                        f"— **{verdict}**{reason}")
    allowed_false = total_lines // FALSE_PER_LINES
    if verdicts.get("false", 0) > allowed_false:
        failures.append(f"{verdicts['false']} false findings, more than one per {FALSE_PER_LINES:,} lines "
                        f"({allowed_false} for {total_lines:,} lines)")
    out += ["", "## Totals", "",
            f"- {total_lines:,} lines in {len(results)} crates",
            "- findings by verdict: " + (", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())) or "none"),
            f"- false findings allowed: {allowed_false} (one per {FALSE_PER_LINES:,} lines)"]
    out += ["", "## Findings per lint", ""]
    if per_lint:
        out += ["| lint | level | findings |", "|---|---|---:|"]
        out += [f"| `{code}` | {level} | {n} |" for (code, level), n in sorted(per_lint.items())]
    else:
        out.append("None.")
    out += ["", "## Every finding", ""] + (rows or ["None."])
    out += ["", "## Input problems", "",
            "Files or modules tensor-lint could not read (as warnings: rustc may accept them).", ""]
    inputs = []
    for crate, r in results.items():
        for f in r["inputs"]:
            inputs.append(f"- {crate} `{f['file']}:{f['line']}` {f['level']}: {f['message']}")
            if f["level"] == "error":
                failures.append(f"input problem at error level: {crate} `{f['file']}:{f['line']}`")
    out += inputs or ["None."]
    out += ["", "## Notes", ""]
    notes = [f"- {crate}: {f['message']}" for crate, r in results.items() for f in r["notes"]]
    out += notes or ["None."]
    out += ["", "## Reviews that match no finding", "",
            "A review whose finding is gone belongs in the history comment of `reviews.toml`.", ""]
    matched = {id(review_of(reviews, crate, f)) for crate, r in results.items() for f in r["findings"]}
    stale = [f"- {rv.get('crate')} `{rv.get('file')}` {rv.get('lint')}: `{rv.get('text', '').strip()}`"
             for rv in reviews if id(rv) not in matched]
    failures += [f"review matches no finding: {line[2:]}" for line in stale]
    out += stale or ["None."]
    out += ["", "## Panics and internal errors", ""]
    problems = [f"- {crate}: {p}" for crate, r in results.items() for p in r["internal"]]
    failures += problems
    out += problems or ["None."]
    REPORT.write_text("\n".join(out) + "\n")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--download-only", action="store_true")
    parser.add_argument("--check", action="store_true",
                        help="fail on unreviewed or false-at-error-level findings, too many false ones, "
                             "input problems at error level, reviews that match no finding, or internal errors")
    parser.add_argument("--binary", help="use this cargo-tensor-lint instead of building the release binary")
    args = parser.parse_args()
    dirs = {f"{n}-{v}": download(n, v) for n, v in CRATES}
    if args.download_only:
        for d in dirs.values():
            print(d)
        return 0
    binary = binary_path(args.binary)
    results = {}
    for crate, path in dirs.items():
        results[crate] = r = run_crate(binary, path)
        print(f"{crate}: {r['lines']} lines in {r['seconds']:.2f} s, {len(r['findings'])} findings, "
              f"{len(r['inputs'])} input problems, {len(r['internal'])} internal errors", file=sys.stderr)
    failures = write_report(results, load_reviews())
    print(f"wrote {REPORT.relative_to(ROOT)}", file=sys.stderr)
    for failure in failures:
        print(f"lintcheck: {failure}", file=sys.stderr)
    return 1 if args.check and failures else 0


if __name__ == "__main__":
    sys.exit(main())
