#!/usr/bin/env python3
"""The corpus bugs in their real releases.

For every case of `lintcheck/real-releases.toml` (a bug of `corpus/` with the crates.io
release it shipped in and the first release with its fix), downloads both releases
(cached beside lintcheck's), checks each as a Cargo project with
`cargo tensor-lint`, and decides:

- the buggy release is *flagged* when a finding of the case's lint points inside the
  function (or item) that holds the bug;
- the fixed release is *clean* when no finding of that lint points inside the function
  that holds the fix.

The results go to `corpus/real-releases.json`, which `tests/corpus.rs` shows beside the
reductions in `corpus/README.md`: recall is what the real releases say.

Build scripts that look for a native library are overridden through the `links` of the
case (a `.cargo/config.toml` written into the extracted crate); every crate shares one
target folder, so common dependencies are built once. A case with `fresh_lock = true`
drops the lockfile a release ships, whose pins today's compiler rejects; `lock_pins`
pins dependencies back (`cargo update --precise`) to releases the crate compiles with.

usage: lintcheck/real_releases.py [--binary PATH] [--only CASE ...] [--jobs N]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lintcheck  # noqa: E402  (the download cache and the release binary)

ROOT = lintcheck.ROOT
CASES = ROOT / "lintcheck" / "real-releases.toml"
RESULTS = ROOT / "corpus" / "real-releases.json"
TARGET = Path(os.environ.get("TENSOR_LINT_REAL_RELEASES_TARGET")
              or lintcheck.CACHE.parent / "real-releases-target")


def function_range(text: str, name: str, line: int) -> tuple[int, int] | None:
    """The lines (1-based, inclusive) of the item `name` whose header is on or near
    `line`: from its `fn`/`struct`/`static` keyword to its closing brace (or `;`)."""
    lines = text.splitlines()
    pattern = re.compile(rf"\b(fn|struct|static|const|impl|enum|type)\b[^\n]*\b{re.escape(name)}\b")
    candidates = [k for k, l in enumerate(lines, start=1) if pattern.search(l)]
    if not candidates:
        return None
    start = min(candidates, key=lambda k: abs(k - line))
    depth, opened = 0, False
    for k in range(start - 1, len(lines)):
        code = re.sub(r"//.*", "", lines[k])
        for ch in code:
            if ch == "{":
                depth += 1
                opened = True
            elif ch == "}":
                depth -= 1
        if opened and depth <= 0:
            return start, k + 1
        if not opened and code.rstrip().endswith(";"):
            return start, k + 1
    return start, len(lines)


def write_links_overrides(crate_dir: Path, links: list[str]) -> None:
    if not links:
        return
    config = crate_dir / ".cargo" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    triple = "x86_64-unknown-linux-gnu"
    config.write_text("".join(f"[target.{triple}.{name}]\nrustc-link-lib = []\n" for name in links))


def why_not_checked(status: int, stderr: str) -> str:
    """One line saying why a run gave no findings, from the tool's error output."""
    text = " ".join(stderr.replace("│", " ").replace("×", " ").split())
    patterns = [
        (r"could not compile `([^`]+)`", "`{}` does not compile"),
        (r"failed to run custom build command for `([^`]+)`", "the build script of `{}` fails"),
        (r"`cargo metadata` failed .*?error: (.*?)(?: Caused by| help:|$)", "cargo cannot load the package: {}"),
    ]
    for pattern, say in patterns:
        found = re.search(pattern, text)
        if found:
            return say.format(found.group(1)[:160])
    return f"exit status {status}: {text[-200:]}"


def check(binary: Path, crate_dir: Path, case: dict) -> tuple[list[dict], str | None, float]:
    """The lint findings of tensor-lint on `crate_dir`, or why there are none."""
    # Old releases meet lints that have become errors since: they stay warnings.
    env = dict(os.environ, CARGO_TARGET_DIR=str(TARGET), RUSTFLAGS="--cap-lints=warn", **case.get("env", {}))
    args = list(case.get("cargo_args", []))
    if case.get("features"):
        args += ["--features", ",".join(case["features"])]
    started = time.monotonic()
    run = subprocess.run([str(binary), "--manifest-path", str(crate_dir / "Cargo.toml"),
                          "--message-format", "json", *args],
                         capture_output=True, text=True, errors="replace", env=env)
    seconds = time.monotonic() - started
    if run.returncode not in (0, 1):
        return [], why_not_checked(run.returncode, run.stderr), seconds
    findings = []
    for line in run.stdout.splitlines():
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue
        if message.get("reason") != "compiler-message":
            continue
        diag = message["message"]
        code = (diag.get("code") or {}).get("code")
        if code is None:
            if diag["level"] == "error":
                return [], f"does not compile: {diag['message']}", seconds
            continue
        findings.append({
            "lint": code.removeprefix("tensor_lint::"),
            "level": diag["level"],
            "message": diag["message"],
            "spans": [(s["file_name"], s["line_start"], s["line_end"]) for s in diag["spans"]],
        })
    return findings, None, seconds


def inside(finding: dict, lint: str, file: str, lines: tuple[int, int]) -> bool:
    """Whether `finding` is of `lint` and points (its primary span or a label) into
    `lines` of `file`."""
    return finding["lint"] == lint and any(
        f == file and lo <= lines[1] and hi >= lines[0] for f, lo, hi in finding["spans"])


def run_case(binary: Path, case: dict) -> dict:
    result = {"crate": case["crate"], "buggy": case.get("buggy", ""), "fixed": case.get("fixed", ""),
              "lint": case["lint"]}
    if not case.get("buggy"):
        result["buggy_result"] = "no release"
        return result
    for side in ("buggy", "fixed"):
        version = case[side]
        crate_dir = lintcheck.download(case["crate"], version)
        write_links_overrides(crate_dir, case.get("links", []))
        # A lockfile of the release that pins dependencies today's compiler rejects
        # (an old proc-macro2): resolved afresh, as a crate without one is.
        if case.get("fresh_lock"):
            (crate_dir / "Cargo.lock").unlink(missing_ok=True)
        # Dependencies pinned back to the releases the crate was written against (a
        # `-sys` crate whose later semver-compatible releases changed its API).
        for name, precise in case.get("lock_pins", []):
            subprocess.run(["cargo", "update", "--quiet", "--manifest-path", str(crate_dir / "Cargo.toml"),
                            "-p", name, "--precise", precise], capture_output=True, text=True,
                           env=dict(os.environ, CARGO_TARGET_DIR=str(TARGET)))
        file = case[f"{side}_file"]
        text = (crate_dir / file).read_text(errors="replace") if (crate_dir / file).is_file() else ""
        # An item with no name (a derive the fix removed) is the line given.
        name, line = case.get(f"{side}_fn", ""), case.get(f"{side}_fn_line", 0)
        lines = function_range(text, name, line) if name else (line, line)
        findings, error, seconds = check(binary, crate_dir, case)
        result[f"{side}_seconds"] = round(seconds, 1)
        if error:
            result[f"{side}_result"] = f"not checked ({error})"
            continue
        if lines is None:
            result[f"{side}_result"] = f"not checked (no `{case[f'{side}_fn']}` in {file})"
            continue
        # Where else the bug shows (the functions writing a badly laid out struct):
        # the same functions, found by name, in either release.
        places = [(file, lines)]
        for also in case.get("buggy_also", []):
            path = crate_dir / also["file"]
            if path.is_file():
                found = function_range(path.read_text(errors="replace"), also["fn"], also["line"])
                if found:
                    places.append((also["file"], found))
        hits = [f for f in findings if any(inside(f, case["lint"], pf, pl) for pf, pl in places)]
        if side == "buggy":
            result["buggy_result"] = "flagged" if hits else "missed"
        else:
            result["fixed_result"] = "flagged" if hits else "clean"
        def shown(f: dict) -> str:
            return f"{f['level']}: {f['message']} ({f['spans'][0][0]}:{f['spans'][0][1]})"
        result[f"{side}_findings"] = [shown(f) for f in hits]
        # Everything else the run reported, to be reviewed for precision.
        result[f"{side}_elsewhere"] = [shown(f) for f in findings if f not in hits and f["spans"]]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", help="the cargo-tensor-lint to run (default: build the release binary)")
    parser.add_argument("--only", nargs="*", default=[], help="cases to run (default: all)")
    args = parser.parse_args()
    binary = lintcheck.binary_path(args.binary)
    cases = tomllib.loads(CASES.read_text())["case"]
    previous = json.loads(RESULTS.read_text()) if RESULTS.is_file() else {}
    results = dict(previous)
    for case in cases:
        if args.only and case["case"] not in args.only:
            continue
        print(f"{case['case']}: {case['crate']} {case.get('buggy') or '-'} / {case.get('fixed') or '-'}",
              flush=True)
        results[case["case"]] = run_case(binary, case)
        r = results[case["case"]]
        print(f"  buggy: {r.get('buggy_result')}, fixed: {r.get('fixed_result', '-')}", flush=True)
    RESULTS.write_text(json.dumps(dict(sorted(results.items())), indent=2) + "\n")
    run = [r for r in results.values() if r.get("buggy_result") not in (None, "no release")]
    flagged = sum(r.get("buggy_result") == "flagged" and r.get("fixed_result") == "clean" for r in run)
    print(f"flagged with the fixed release clean: {flagged} of {len(run)} real releases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
