#!/usr/bin/env python3
"""Speed of tensor-lint against `cargo check` and `cargo clippy` on the same crates.

For each crate (downloaded by lintcheck into the git-ignored lintcheck/crates/): the
release `cargo tensor-lint` (best of five runs), then `cargo check` and `cargo clippy`
from a clean target directory (dependencies downloaded beforehand, so only compiling is
timed). Prints a Markdown table with times, ratios, lines per second and peak memory,
then the cost on 1x, 2x and 4x copies of the corpus to show it grows linearly.

usage: scripts/bench.py [--no-cargo]    (--no-cargo skips check/clippy)
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ["ndarray-0.16.1", "rayon-1.10.0"]
LINES = re.compile(r"^\s*(\d+) files?, (\d+) lines")


def timed(cmd: list[str], cwd: Path | None = None, env: dict | None = None) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in MiB (of the command and its children, by GNU time), stderr."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        started = time.monotonic()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, *cmd], cwd=cwd, env=env,
                              capture_output=True, text=True, errors="replace")
        elapsed = time.monotonic() - started
        peak_kib = int((report.read().strip().splitlines() or ["0"])[-1])
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return elapsed, peak_kib // 1024, proc.stderr


def lint(binary: Path, manifest: Path, extra: list[str] = ()) -> tuple[float, int, int]:
    best, peak, lines = float("inf"), 0, 0
    for _ in range(5):
        seconds, rss, err = timed([str(binary), "--manifest-path", str(manifest), "--timings", *extra])
        best, peak = min(best, seconds), max(peak, rss)
        for line in err.splitlines():
            if m := LINES.match(line):
                lines = int(m.group(2))
    return best, peak, lines


def cargo_from_clean(sub: str, manifest: Path, target: Path) -> tuple[float, int]:
    shutil.rmtree(target, ignore_errors=True)
    env = dict(os.environ, CARGO_TARGET_DIR=str(target))
    seconds, rss, _ = timed(["cargo", sub, "-q", "--manifest-path", str(manifest)], env=env)
    return seconds, rss


def copies(crate_dir: Path, n: int, into: Path) -> Path:
    """A workspace of `n` copies of a crate's sources as separate packages."""
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    members = []
    for k in range(n):
        member = into / f"copy{k}"
        shutil.copytree(crate_dir / "src", member / "src")
        (member / "Cargo.toml").write_text(f'[package]\nname = "copy{k}"\nversion = "0.1.0"\nedition = "2021"\n')
        members.append(f'"copy{k}"')
    (into / "Cargo.toml").write_text(f"[workspace]\nmembers = [{', '.join(members)}]\nresolver = \"2\"\n")
    return into / "Cargo.toml"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-cargo", action="store_true", help="skip cargo check and cargo clippy")
    args = parser.parse_args()
    subprocess.run([sys.executable, str(ROOT / "lintcheck" / "lintcheck.py"), "--download-only"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
    binary = ROOT / "target" / "release" / "cargo-tensor-lint"
    scratch = Path(tempfile.mkdtemp(prefix="tensor-lint-bench-"))
    print("| crate | lines | tensor-lint | lines/s | peak MiB | cargo check | ratio | peak MiB | cargo clippy | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for crate in CRATES:
        manifest = ROOT / "lintcheck" / "crates" / crate / "Cargo.toml"
        seconds, peak, lines = lint(binary, manifest)
        row = f"| {crate} | {lines} | {seconds:.2f} s | {lines / seconds:,.0f} | {peak} |"
        if args.no_cargo:
            row += " – | – | – | – | – |"
        else:
            subprocess.run(["cargo", "fetch", "-q", "--manifest-path", str(manifest)], check=True)
            check, check_rss = cargo_from_clean("check", manifest, scratch / "target-check")
            clippy, _ = cargo_from_clean("clippy", manifest, scratch / "target-clippy")
            row += (f" {check:.1f} s | {check / seconds:.0f}× | {check_rss} | {clippy:.1f} s"
                    f" | {clippy / seconds:.0f}× |")
        print(row, flush=True)
    print()
    print("| corpus | lines | tensor-lint | lines/s |")
    print("|---|---:|---:|---:|")
    source = ROOT / "lintcheck" / "crates" / CRATES[0]
    for n in (1, 2, 4):
        manifest = copies(source, n, scratch / f"x{n}")
        seconds, _, lines = lint(binary, manifest, ["--workspace"])
        print(f"| {n}× {CRATES[0]} | {lines} | {seconds:.2f} s | {lines / seconds:,.0f} |", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
