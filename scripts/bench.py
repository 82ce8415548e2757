#!/usr/bin/env python3
"""Speed and memory of tensor-lint against `cargo check` and `cargo clippy`.

On ndarray, candle-core and burn-ndarray (downloaded as lintcheck downloads its crates,
into the git-ignored lintcheck/crates/, and copied into a scratch folder so the edits
below never touch them), each of

    cargo check, cargo clippy, cargo tensor-lint

is timed under the pinned toolchain (clippy with `--cap-lints warn`: a crate that
denies one of its lints would stop it, where tensor-lint goes on)

  - cold: from an empty target folder (dependencies downloaded beforehand, so only
    compiling and analysing are timed), and
  - after a one-line edit: one function appended to the crate's `lib.rs`, a new body
    each run, in a target folder the cold run filled.

The three commands run in turn, A B C A B C ..., so that a drift of the machine's
speed falls on all three alike; the table gives each figure's median, the ratio of
tensor-lint to `cargo check` and the peak memory of the largest process (GNU time's
maximum resident set size, over the command and its children).

usage: scripts/bench.py [--crate NAME-VERSION ...] [--cold-runs N] [--edit-runs N]
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ["ndarray-0.16.1", "candle-core-0.8.4", "burn-ndarray-0.22.1"]
EDIT_MARK = "\n// tensor-lint bench edit\n"


def channel() -> str:
    with open(ROOT / "rust-toolchain.toml", "rb") as f:
        return tomllib.load(f)["toolchain"]["channel"]


def timed(cmd: list[str], cwd: Path | None = None, env: dict | None = None) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in MiB (of the largest process, by GNU time), stderr."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        started = time.monotonic()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", report.name, *cmd], cwd=cwd, env=env,
                              capture_output=True, text=True, errors="replace")
        elapsed = time.monotonic() - started
        peak_kib = int((report.read().strip().splitlines() or ["0"])[-1])
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return elapsed, peak_kib // 1024, proc.stderr


class Tool:
    """One of the three commands, in a target folder of its own."""

    def __init__(self, name: str, cmd: list[str], target: Path, env: dict):
        self.name, self.cmd, self.target = name, cmd, target
        self.env = dict(env, CARGO_TARGET_DIR=str(target))
        self.cold: list[tuple[float, int]] = []
        self.edit: list[tuple[float, int]] = []

    def run(self, cwd: Path) -> tuple[float, int]:
        seconds, peak, _ = timed(self.cmd, cwd=cwd, env=self.env)
        return seconds, peak


def edit(lib: Path, original: str, k: int) -> None:
    """The one-line edit: a function with a new body each time."""
    lib.write_text(original + EDIT_MARK + f"pub fn tensor_lint_bench_edit() -> u64 {{ {k} }}\n")


def median(samples: list[tuple[float, int]], index: int) -> float:
    return statistics.median(s[index] for s in samples)


def compiler_table(binary: Path, crates: list[str], cold_runs: int, edit_runs: int, scratch: Path) -> None:
    env = dict(os.environ, RUSTUP_TOOLCHAIN=channel(), CARGO_TERM_COLOR="never")
    print(f"toolchain {channel()}; medians of {cold_runs} cold runs and {edit_runs} runs after an edit;"
          " peak = largest process", flush=True)
    print()
    print("| crate | | cargo check | cargo clippy | tensor-lint | tensor-lint / check |"
          " tensor-lint − check |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for crate in crates:
        source = ROOT / "lintcheck" / "crates" / crate
        work = scratch / crate
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(source, work)
        manifest = work / "Cargo.toml"
        subprocess.run(["cargo", "fetch", "-q", "--manifest-path", str(manifest)], env=env, check=True)
        lib = work / "src" / "lib.rs"
        original = lib.read_text()
        tools = [
            Tool("check", ["cargo", "check", "-q"], scratch / "target-check", env),
            Tool("clippy", ["cargo", "clippy", "-q", "--", "--cap-lints", "warn"], scratch / "target-clippy", env),
            Tool("tensor-lint", [str(binary)], scratch / "target-tl", env),
        ]
        for _ in range(cold_runs):
            lib.write_text(original)
            for tool in tools:
                shutil.rmtree(tool.target, ignore_errors=True)
                tool.cold.append(tool.run(work))
        for k in range(edit_runs):
            edit(lib, original, k)
            for tool in tools:
                tool.edit.append(tool.run(work))
        lib.write_text(original)
        check = tools[0]
        lint = tools[2]
        for label, pick in (("cold, s", lambda t: t.cold), ("after an edit, s", lambda t: t.edit)):
            cells = [f"{median(pick(t), 0):.2f}" for t in tools]
            ratio = median(pick(lint), 0) / median(pick(check), 0)
            extra = median(pick(lint), 0) - median(pick(check), 0)
            print(f"| {crate} | {label} | {' | '.join(cells)} | {ratio:.2f} | {extra:+.2f} s |", flush=True)
        peaks = [max(p for _, p in t.cold + t.edit) for t in tools]
        print(f"| {crate} | peak MiB | {' | '.join(str(p) for p in peaks)} | {peaks[2] / peaks[0]:.2f} | |",
              flush=True)
        for tool in tools:
            shutil.rmtree(tool.target, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--crate", action="append", help="NAME-VERSION of a crate lintcheck pins (repeatable)")
    parser.add_argument("--cold-runs", type=int, default=3)
    parser.add_argument("--edit-runs", type=int, default=5)
    parser.add_argument("--binary", help="a built cargo-tensor-lint (default: build the release one)")
    args = parser.parse_args()
    crates = args.crate or CRATES
    sys.path.insert(0, str(ROOT / "lintcheck"))
    from lintcheck import download
    for crate in crates:
        name, version = crate.rsplit("-", 1)
        download(name, version)
    if args.binary:
        binary = Path(args.binary).resolve()
    else:
        subprocess.run(["cargo", "build", "--release", "--locked", "-q"], cwd=ROOT, check=True)
        binary = ROOT / "target" / "release" / "cargo-tensor-lint"
    scratch = Path(tempfile.mkdtemp(prefix="tensor-lint-bench-"))
    try:
        compiler_table(binary, crates, args.cold_runs, args.edit_runs, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
