#!/usr/bin/env python3
"""lintcheck: run tensor-lint on published crates and write a reviewed report.

Runs the release binary of this repository on `COMPILER_CRATES`, published crates heavy
in macros, generics, unsafe code and foreign bindings that the corpus does not use, as a
user would (`cargo tensor-lint --manifest-path CRATE/Cargo.toml --workspace`: `cargo
check` with tensor-lint's driver); their dependencies are built once into a cache
outside the checkout. Downloads the pinned `.crate` files from crates.io (kept in a cache
outside the repository, so a second run needs no network) and extracts them into the
git-ignored `lintcheck/crates/`. Writes `lintcheck/report-compiler.md`: lines read,
time, findings per lint, every lint finding with its review.

Each lint finding is matched against `lintcheck/reviews-compiler.toml`, where a person
marks it `true` (a bug), `intended` (deliberate, with the suppression a user would
write) or `false` (a false positive), with a one-line reason. With `--check` the run
fails on a finding without a review, on a false finding at error level, on more false
findings than one per 200,000 lines, on an input problem at error level, on a review
that matches no finding (its history belongs in the comment of the reviews), and on any
internal error.

With `--front-end syntax` it runs the syntax front end (which reads the code as text
without compiling it, until it is removed) on the crates of `CRATES`, each twice: in
crate mode and on every `.rs` file as loose files; it writes `lintcheck/report.md` from
`lintcheck/reviews.toml`, with the same checks. `.ci/run` runs both.

usage: lintcheck/lintcheck.py [--download-only] [--check] [--binary PATH] [--runs N]
                              [--front-end syntax]
"""

import argparse
import json
import os
import re
import shutil
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

# The compiler front end's crates (see the module's text).
COMPILER_CRATES = [
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
COMPILER_CRATE_ARGS = {"cudarc-0.19.10": ["--features", "cuda-12080"]}
COMPILER_TARGET = CACHE.parent / "lintcheck-compiler-target"

# At most this many false findings per line read.
FALSE_PER_LINES = 200_000

# name, version. Tensor and linear-algebra libraries, their parallel runtimes and kernels;
# lock-free queues, channels, epoch GC, async runtimes and unsafe containers; GPU and ML
# framework bindings.
CRATES = [
    ("ndarray", "0.16.1"),
    ("rayon", "1.10.0"),
    ("rayon-core", "1.12.1"),
    ("candle-core", "0.8.4"),
    ("candle-nn", "0.8.4"),
    ("tch", "0.17.0"),
    ("diffusers", "0.3.1"),
    ("nalgebra", "0.33.2"),
    ("matrixmultiply", "0.3.9"),
    ("burn-tensor", "0.22.1"),
    ("burn-ndarray", "0.22.1"),
    ("faer", "0.24.4"),
    ("faer-traits", "0.24.0"),
    ("pulp", "0.22.3"),
    ("gemm", "0.19.0"),
    ("gemm-common", "0.19.0"),
    ("gemm-f32", "0.19.0"),
    ("gemm-f16", "0.19.0"),
    ("half", "2.7.1"),
    ("rustfft", "6.4.1"),
    ("image", "0.25.10"),
    ("safetensors", "0.8.0"),
    ("crossbeam-utils", "0.8.20"),
    ("crossbeam-queue", "0.3.14"),
    ("crossbeam-channel", "0.5.17"),
    ("crossbeam-epoch", "0.9.21"),
    ("crossbeam-deque", "0.8.8"),
    ("concurrent-queue", "2.5.0"),
    ("flume", "0.12.0"),
    ("lockfree", "0.5.1"),
    ("tokio", "1.54.1"),
    ("async-task", "4.7.1"),
    ("async-executor", "1.14.1"),
    ("parking_lot", "0.13.0"),
    ("parking_lot_core", "0.10.0"),
    ("triomphe", "0.1.17"),
    ("bytes", "1.12.2"),
    ("smallvec", "1.16.6"),
    ("arrayvec", "0.7.8"),
    ("memmap2", "0.9.12"),
    ("hashbrown", "0.17.2"),
    ("dashmap", "6.2.1"),
    ("arc-swap", "1.9.5"),
    ("sharded-slab", "0.1.7"),
    ("thread_local", "1.1.10"),
    ("bumpalo", "3.20.4"),
    ("cudarc", "0.19.10"),
    ("ash", "0.38.0+1.3.281"),
    ("ocl", "0.19.7"),
    ("ort", "2.0.0-rc.15"),
    ("tensorflow", "0.21.0"),
    ("wgpu-core", "30.0.2"),
    ("wgpu-hal", "30.0.2"),
    ("pyo3", "0.30.1"),
    ("numpy", "0.30.0"),
    # Releases with a bug of corpus/ and the first release with its fix: the real code
    # is checked too (corpus/memory/rulinalg-swap-rows-alias).
    ("rulinalg", "0.3.7"),
    ("rulinalg", "0.4.0"),
    # corpus/memory/cudarc-cublaslt-descriptor-leak: the cuBLASLt wrappers are behind the
    # `cublaslt` feature, so these two are checked with every feature on.
    ("cudarc", "0.9.15"),
    ("cudarc", "0.10.0"),
    # corpus/memory/arrow2-ffi-clone-double-release and pyo3-from-py-double-decref.
    ("arrow2", "0.9.1"),
    ("arrow2", "0.9.2"),
    ("pyo3", "0.12.3"),
    ("pyo3", "0.12.4"),
    # corpus/memory/numpy-npy-dims-temporary-uaf.
    ("numpy", "0.17.0"),
    ("numpy", "0.17.1"),
    # corpus/memory/ort-metadata-string-leak.
    ("ort", "1.16.3"),
    ("ort", "2.0.0-alpha.1"),
    # corpus/concurrency/burn-unsafe-shared-ref: the kernels reach rayon through the
    # crate's `run_par!` / `iter_range_par!` macros.
    ("burn-ndarray", "0.21.0"),
    ("burn-ndarray", "0.22.0-pre.3"),
    # corpus/memory/tch-jit-forward-ivalue-leak and tch-jit-tuple-elements-leak.
    ("tch", "0.1.1"),
    ("tch", "0.1.3"),
    # corpus/concurrency/atomic-rs-spinlock-array and crossbeam-atomiccell-lock-array:
    # tables of locks picked by address.
    ("atomic", "0.3.4"),
    ("atomic", "0.4.0"),
    ("crossbeam-utils", "0.8.17"),
    ("crossbeam-utils", "0.8.18"),
    # corpus/concurrency/ggblas-matmul-k-split: worker runs that split an output row.
    ("ggblas", "0.1.0"),
    ("ggblas", "0.1.1"),
    # corpus/concurrency/dashmap-packed-shards: the packed `submaps` locks of 1.x.
    ("dashmap", "1.2.1"),
    ("dashmap", "2.0.0"),
    # corpus/concurrency/polars-window-validity-bits: a validity bitmap written from
    # parallel row ranges.
    ("polars-lazy", "0.27.2"),
    ("polars-lazy", "0.28.0"),
    # corpus/concurrency/bevy-sparse-batches-ignore-offset.
    ("bevy_ecs", "0.5.0"),
    ("bevy_ecs", "0.6.0"),
    # corpus/concurrency/crossbeam-epoch-local-epoch (not detected: see corpus/README.md).
    ("crossbeam-epoch", "0.9.15"),
    ("crossbeam-epoch", "0.9.16"),
    # corpus/concurrency/gix-in-parallel-whole-slice.
    ("gix-features", "0.36.0"),
    ("gix-features", "0.36.1"),
    # corpus/concurrency/legion-split-at-relative-index (bug in 0.3.0) and
    # legion-par-chunks-whole-index (bug in 0.3.1, fixed in 0.4.0).
    ("legion", "0.3.0"),
    ("legion", "0.3.1"),
    ("legion", "0.4.0"),
    # corpus/concurrency/neuronika-col2im-overlapping-windows.
    ("neuronika", "0.1.0"),
    ("neuronika", "0.2.0"),
    # corpus/concurrency/polars-perfect-groups-whole-slice.
    ("polars-core", "0.43.1"),
    ("polars-core", "0.44.0"),
    # corpus/concurrency/tokio-mpsc-chan-fields and tokio-threadpool-worker-entries.
    ("tokio", "1.29.1"),
    ("tokio", "1.30.0"),
    ("tokio-threadpool", "0.1.5"),
    ("tokio-threadpool", "0.1.6"),
]

# Crates checked with extra command-line arguments in crate mode.
CRATE_ARGS = {
    "cudarc-0.9.15": ["--all-features"],
    "cudarc-0.10.0": ["--all-features"],
    # The window functions of corpus/concurrency/polars-window-validity-bits are behind
    # features.
    "polars-lazy-0.27.2": ["--all-features"],
    "polars-lazy-0.28.0": ["--all-features"],
    # The channels of corpus/concurrency/tokio-mpsc-chan-fields are behind `sync`, the
    # parallel group-by of polars-core and legion's parallel iterators behind features.
    "tokio-1.29.1": ["--all-features"],
    "tokio-1.30.0": ["--all-features"],
    "polars-core-0.43.1": ["--all-features"],
    "polars-core-0.44.0": ["--all-features"],
    "legion-0.3.0": ["--all-features"],
    "legion-0.3.1": ["--all-features"],
    "legion-0.4.0": ["--all-features"],
}


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


def timed(command: list[str], runs: int, cwd: Path | None = None) -> tuple[subprocess.CompletedProcess, float]:
    """The first run's output and the best time of `runs` runs."""
    best, first = float("inf"), None
    for _ in range(runs):
        started = time.monotonic()
        run = subprocess.run(command, capture_output=True, text=True, errors="replace", cwd=cwd)
        best = min(best, time.monotonic() - started)
        first = first or run
    return first, best


def run_crate(binary: Path, crate_dir: Path, runs: int) -> dict:
    internal: list[str] = []
    extra = CRATE_ARGS.get(crate_dir.name, [])
    crate_run, seconds = timed([str(binary), "--front-end", "syntax", "--manifest-path", str(crate_dir / "Cargo.toml"), "--workspace",
                                "--message-format", "json", *extra], runs)
    crate_messages, summary = parse_stream(crate_run.stdout, internal)
    files = sorted(str(p.relative_to(crate_dir)) for p in crate_dir.rglob("*.rs"))
    loose_run, _ = timed([str(binary), "--front-end", "syntax", "--message-format", "json", *files], 1, cwd=crate_dir)
    loose_messages, _ = parse_stream(loose_run.stdout, internal)
    for run, mode in ((crate_run, "crate"), (loose_run, "loose")):
        if run.returncode not in (0, 1):
            internal.append(f"{mode} mode: exit status {run.returncode}: {run.stderr.strip()[-500:]}")
    # One entry per finding, with the modes that reported it.
    merged: dict[tuple, dict] = {}
    for mode, messages in (("crate", crate_messages), ("loose", loose_messages)):
        for m in messages:
            key = (m["code"], m["level"], m["file"], m["line"], m["message"])
            merged.setdefault(key, {**m, "modes": []})["modes"].append(mode)
    return crate_result(list(merged.values()), internal, seconds, summary)


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


def run_crate_compiled(binary: Path, crate_dir: Path) -> dict:
    """The compiler front end on a crate, in crate mode."""
    internal: list[str] = []
    extra = COMPILER_CRATE_ARGS.get(crate_dir.name, [])
    # Published crates may deny warnings the pinned nightly adds; rustc's own lints are
    # not what is checked here.
    env = dict(os.environ, CARGO_TARGET_DIR=str(COMPILER_TARGET), RUSTFLAGS="--cap-lints=warn")
    started = time.monotonic()
    run = subprocess.run([str(binary), "--front-end", "compiler", "--manifest-path", str(crate_dir / "Cargo.toml"),
                          "--workspace", "--message-format", "json", *extra],
                         capture_output=True, text=True, errors="replace", env=env)
    seconds = time.monotonic() - started
    messages, summary = parse_stream(run.stdout, internal)
    if run.returncode not in (0, 1):
        internal.append(f"exit status {run.returncode}: {run.stderr.strip()[-500:]}")
    for m in messages:
        m["modes"] = ["crate"]
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


def write_report(results: dict, reviews: list[dict], report: Path = REPORT, compiler: bool = False) -> list[str]:
    """Writes the report; returns what makes `--check` fail."""
    failures: list[str] = []
    total_lines = sum(r["lines"] for r in results.values())
    total_seconds = sum(r["seconds"] for r in results.values())
    if compiler:
        head = ["# lintcheck report: the compiler front end", "",
                "Generated by `lintcheck/lintcheck.py --front-end compiler`: the release build's compiler front",
                "end (`cargo check` with tensor-lint's driver) on published crates, in crate mode",
                "(`--workspace`); the time includes building each crate's dependencies once. Every lint",
                "finding is reviewed in `lintcheck/reviews-compiler.toml` as `true` (a bug), `intended`",
                "(deliberate; the suppression a user would write) or `false` (a false positive, a bug of",
                "tensor-lint to fix).", ""]
    else:
        head = ["# lintcheck report", "",
                "Generated by `lintcheck/lintcheck.py`: the release build on published crates, in crate mode",
                "(`--workspace`) and on every `.rs` file as loose files. Lines are those crate mode read",
                "(each file once); the time is crate mode's. Every lint finding is reviewed in",
                "`lintcheck/reviews.toml` as `true` (a bug), `intended` (deliberate; the suppression a user",
                "would write) or `false` (a false positive, a bug of tensor-lint to fix).", ""]
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
            rows.append(f"- {where} {f['level']}[{f['code']}] {f['message']} ({', '.join(f['modes'])}) "
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
            inputs.append(f"- {crate} `{f['file']}:{f['line']}` {f['level']}: {f['message']} ({', '.join(f['modes'])})")
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
    report.write_text("\n".join(out) + "\n")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--download-only", action="store_true")
    parser.add_argument("--check", action="store_true",
                        help="fail on unreviewed or false-at-error-level findings, too many false ones, "
                             "input problems at error level, reviews that match no finding, or internal errors")
    parser.add_argument("--binary", help="use this cargo-tensor-lint instead of building the release binary")
    parser.add_argument("--runs", type=int, default=3, help="crate-mode runs per crate; the best time is kept")
    parser.add_argument("--front-end", choices=["syntax", "compiler"], default="compiler")
    args = parser.parse_args()
    compiler = args.front_end == "compiler"
    dirs = {f"{n}-{v}": download(n, v) for n, v in (COMPILER_CRATES if compiler else CRATES)}
    if args.download_only:
        for d in dirs.values():
            print(d)
        return 0
    binary = binary_path(args.binary)
    results = {}
    for crate, path in dirs.items():
        if compiler:
            results[crate] = r = run_crate_compiled(binary, path)
        else:
            results[crate] = r = run_crate(binary, path, max(args.runs, 1))
        print(f"{crate}: {r['lines']} lines in {r['seconds']:.2f} s, {len(r['findings'])} findings, "
              f"{len(r['inputs'])} input problems, {len(r['internal'])} internal errors", file=sys.stderr)
    if compiler:
        report = ROOT / "lintcheck" / "report-compiler.md"
        failures = write_report(results, load_reviews(ROOT / "lintcheck" / "reviews-compiler.toml"), report, True)
    else:
        report = REPORT
        failures = write_report(results, load_reviews())
    print(f"wrote {report.relative_to(ROOT)}", file=sys.stderr)
    for failure in failures:
        print(f"lintcheck: {failure}", file=sys.stderr)
    return 1 if args.check and failures else 0


if __name__ == "__main__":
    sys.exit(main())
