#!/usr/bin/env python3
"""lintcheck: run tensor-lint on published crates and write a reviewed report.

Downloads pinned `.crate` files from crates.io into the git-ignored `lintcheck/crates/`,
runs `cargo tensor-lint --message-format json --workspace --timings` on each (the
release binary of this repository), and writes `lintcheck/report.md`: lines of Rust
read, time, findings per lint, every finding with file and line, and panics or internal
errors. Each finding is matched against `lintcheck/reviews.toml`, where a person marks
it `real` or `false` with a reason; a finding without a review is listed as unreviewed
and makes `--check` fail.

usage: lintcheck/lintcheck.py [--download-only] [--check] [--binary PATH]
"""

import argparse
import json
import re
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

# name, version: tensor libraries, their parallel runtime, and low-level kernels.
CRATES = [
    ("ndarray", "0.16.1"),
    ("rayon", "1.10.0"),
    ("rayon-core", "1.12.1"),
    ("candle-core", "0.8.4"),
    ("tch", "0.17.0"),
    ("diffusers", "0.3.1"),
    ("nalgebra", "0.33.2"),
    ("matrixmultiply", "0.3.9"),
    ("crossbeam-utils", "0.8.20"),
]


def download(name: str, version: str) -> Path:
    dest = CRATES_DIR / f"{name}-{version}"
    if dest.is_dir():
        return dest
    CRATES_DIR.mkdir(parents=True, exist_ok=True)
    archive = CRATES_DIR / f"{name}-{version}.crate"
    urls = [
        f"https://crates.io/api/v1/crates/{name}/{version}/download",
        f"https://static.crates.io/crates/{name}/{name}-{version}.crate",
    ]
    last_error = None
    for url in urls:
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                archive.write_bytes(response.read())
            break
        except OSError as err:  # unreachable endpoint: try the next one
            last_error = err
    else:
        raise SystemExit(f"cannot download {name} {version}: {last_error}")
    with tarfile.open(archive) as tar:
        tar.extractall(CRATES_DIR, filter="data")
    archive.unlink()
    return dest


def binary_path(explicit: str | None) -> Path:
    if explicit:
        return Path(explicit)
    subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
    return ROOT / "target" / "release" / "cargo-tensor-lint"


TIMINGS_LINE = re.compile(r"^\s*(\d+) files?, (\d+) lines")


def run_crate(binary: Path, crate_dir: Path) -> dict:
    """One run's findings and errors; its time is the best of three runs (the same
    output each time), so that a busy machine disturbs the report less."""
    command = [str(binary), "--manifest-path", str(crate_dir / "Cargo.toml"), "--workspace",
               "--message-format", "json", "--timings"]
    elapsed = float("inf")
    proc = None
    for _ in range(3):
        started = time.monotonic()
        run = subprocess.run(command, capture_output=True, text=True, errors="replace")
        elapsed = min(elapsed, time.monotonic() - started)
        proc = proc or run
    findings, internal = [], []
    for line in proc.stdout.splitlines():
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            internal.append(f"not JSON on stdout: {line[:200]}")
            continue
        if message.get("reason") != "compiler-message":
            continue
        diag = message["message"]
        span = next((s for s in diag["spans"] if s["is_primary"]), diag["spans"][0] if diag["spans"] else None)
        code = (diag.get("code") or {}).get("code")
        entry = {
            "code": code,
            "level": diag["level"],
            "message": diag["message"],
            "file": span["file_name"] if span else "?",
            "line": span["line_start"] if span else 0,
            "text": (span["text"][0]["text"].strip() if span and span["text"] else ""),
        }
        if code is None and diag["message"].startswith("internal error"):
            internal.append(f"{entry['file']}: {diag['message']}")
        findings.append(entry)
    files = lines = 0
    for line in proc.stderr.splitlines():
        match = TIMINGS_LINE.match(line)
        if match:
            files, lines = int(match.group(1)), int(match.group(2))
    if proc.returncode not in (0, 1):
        internal.append(f"exit status {proc.returncode}: {proc.stderr.strip()[-500:]}")
    return {"findings": findings, "internal": internal, "seconds": elapsed, "files": files, "lines": lines}


def load_reviews() -> list[dict]:
    if not REVIEWS.is_file():
        return []
    return tomllib.loads(REVIEWS.read_text()).get("finding", [])


def review_of(reviews: list[dict], crate: str, finding: dict) -> dict | None:
    for review in reviews:
        if (review.get("crate") == crate and review.get("file") == finding["file"]
                and review.get("lint") == finding["code"]
                and review.get("text", "").strip() == finding["text"]):
            return review
    return None


def write_report(results: dict, reviews: list[dict]) -> int:
    unreviewed = 0
    out = ["# lintcheck report", "",
           "Generated by `lintcheck/lintcheck.py` (release build; each time is the best of three",
           "runs). Every finding is reviewed in `lintcheck/reviews.toml` as `real` or `false`;",
           "false ones are fixed in the analyzer.", "",
           "| crate | files | lines | time | lines/s | findings | internal errors |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for crate, result in results.items():
        rate = result["lines"] / result["seconds"] if result["seconds"] else 0
        out.append(f"| {crate} | {result['files']} | {result['lines']} | {result['seconds']:.2f} s "
                   f"| {rate:,.0f} | {len(result['findings'])} | {len(result['internal'])} |")
    total_lines = sum(r["lines"] for r in results.values())
    total_seconds = sum(r["seconds"] for r in results.values())
    out.append(f"| **all** | {sum(r['files'] for r in results.values())} | {total_lines} | {total_seconds:.2f} s "
               f"| {total_lines / total_seconds if total_seconds else 0:,.0f} "
               f"| {sum(len(r['findings']) for r in results.values())} "
               f"| {sum(len(r['internal']) for r in results.values())} |")
    per_lint: dict[str, int] = {}
    for result in results.values():
        for f in result["findings"]:
            key = f["code"] or "(input error)"
            per_lint[key] = per_lint.get(key, 0) + 1
    out += ["", "## Findings per lint", ""]
    if per_lint:
        out += ["| lint | findings |", "|---|---:|"] + [f"| `{k}` | {v} |" for k, v in sorted(per_lint.items())]
    else:
        out.append("None.")
    out += ["", "## Every finding", ""]
    any_finding = False
    for crate, result in results.items():
        for f in result["findings"]:
            any_finding = True
            review = review_of(reviews, crate, f)
            verdict = f"**{review['verdict']}**: {review.get('reason', '')}" if review else "**unreviewed**"
            if review is None:
                unreviewed += 1
            out.append(f"- {crate} `{f['file']}:{f['line']}` {f['level']}[{f['code']}] {f['message']} — {verdict}")
    if not any_finding:
        out.append("None.")
    out += ["", "## Panics and internal errors", ""]
    problems = [f"- {crate}: {p}" for crate, r in results.items() for p in r["internal"]]
    out += problems or ["None."]
    REPORT.write_text("\n".join(out) + "\n")
    return unreviewed + len(problems)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--download-only", action="store_true")
    parser.add_argument("--check", action="store_true", help="fail on unreviewed findings or internal errors")
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
        results[crate] = run_crate(binary, path)
        r = results[crate]
        print(f"{crate}: {r['lines']} lines in {r['seconds']:.2f} s, {len(r['findings'])} findings, "
              f"{len(r['internal'])} internal errors", file=sys.stderr)
    problems = write_report(results, load_reviews())
    print(f"wrote {REPORT.relative_to(ROOT)}; {problems} unreviewed findings or internal errors", file=sys.stderr)
    return 1 if args.check and problems else 0


if __name__ == "__main__":
    sys.exit(main())
