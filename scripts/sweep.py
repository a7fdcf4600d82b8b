"""Whole-ecosystem sweep: ``boundlint check`` over the standard library and the corpus.

Usage (from the repository root)::

    .venv/bin/python scripts/sweep.py                  # stdlib + benchmarks/.corpus/full
    .venv/bin/python scripts/sweep.py --jobs 2 PATH... # other roots instead

Each root is checked by the installed ``boundlint`` console script in a
subprocess (``--isolated --no-cache``, JSON output), exactly as CI would run
it.  The sweep then:

- counts findings per code and files per root;
- fails on any BND002 (an internal error or a time-limit skip), any
  traceback on stderr, or an exit status other than 0/1;
- checks that every file reported BND001 (unparseable) is also rejected by
  CPython's own ``compile()``, and lists each mismatch with boundlint's reason;
- for information, counts files CPython's ``compile()`` rejects that
  boundlint parsed (LibCST is a concrete-syntax parser: it does not apply
  CPython's later compile-time checks, such as ``return`` outside a function).

Exit status 0 when the sweep holds, 1 otherwise.  The standard library's
test folders are included: they hold deliberately broken files (bad
encodings, Python 2 syntax, syntax-error samples).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import sysconfig
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(os.path.dirname(HERE), "benchmarks", ".corpus", "full")


def _boundlint() -> list[str]:
    exe = os.path.join(os.path.dirname(sys.executable), "boundlint")
    return [exe] if os.path.exists(exe) else [sys.executable, "-m", "boundlint"]


def cpython_verdict(path: str) -> str | None:
    """None when CPython's ``compile()`` accepts the file, else the reason it rejects it."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"SyntaxError: {exc.msg}"
    except (ValueError, RecursionError, MemoryError, OverflowError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def pruned_dirs(root: str) -> list[str]:
    """Folders under *root* that discovery skips by name (the stdlib's own ``venv`` package, ``build``...).

    Named explicitly, they are walked, so the sweep covers every source file
    (installed packages and caches excepted).
    """
    from boundlint.files import SKIP_DIRS

    keep_skipping = {"site-packages", "__pycache__", ".git", ".hg", ".svn", "node_modules"}
    out = []
    for dirpath, dirnames, _ in os.walk(root):
        for d in list(dirnames):
            if d in SKIP_DIRS and d not in keep_skipping:
                out.append(os.path.join(dirpath, d))
                dirnames.remove(d)
            elif d in keep_skipping:
                dirnames.remove(d)
    return sorted(out)


def sweep_root(root: str, jobs: int | None) -> dict:
    """Run ``boundlint check`` over *root*; return counts, problems and timings."""
    from boundlint.files import discover

    paths = [root] + pruned_dirs(root)
    files = discover(paths)
    cmd = _boundlint() + ["check", "--isolated", "--no-cache", "--no-respect-gitignore", "--format", "json",
                          "--exit-zero", "-q"] + (["--jobs", str(jobs)] if jobs else []) + paths
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    seconds = time.monotonic() - start
    problems: list[str] = []
    if proc.returncode not in (0, 1):
        problems.append(f"exit status {proc.returncode}: {proc.stderr.strip()[-400:]}")
    if "Traceback" in proc.stderr:
        problems.append("traceback on stderr:\n" + proc.stderr[-2000:])
    try:
        findings = json.loads(proc.stdout or "[]")
    except ValueError:
        problems.append("stdout is not JSON: " + proc.stdout[:400])
        findings = []
    codes = collections.Counter(f["code"] for f in findings)
    for f in findings:
        if f["code"] == "BND002":
            problems.append(f"BND002 {f['path']}:{f['line']}: {f['message']}")
    unparseable = sorted({f["path"]: f["message"] for f in findings if f["code"] == "BND001"}.items())
    mismatches = []
    for path, message in unparseable:
        if cpython_verdict(path) is None:
            mismatches.append(f"{path}: CPython compiles it; boundlint said: {message}")
    reported = {path for path, _ in unparseable}
    rejected_only_by_cpython = []
    for path in files:
        if path not in reported:
            verdict = cpython_verdict(path)
            if verdict is not None:
                rejected_only_by_cpython.append(f"{path}: {verdict}")
    lines = 0
    for path in files:
        try:
            with open(path, "rb") as fh:
                lines += fh.read().count(b"\n")
        except OSError:
            pass
    return {
        "root": root, "also": paths[1:], "files": len(files), "lines": lines, "seconds": round(seconds, 1),
        "exit": proc.returncode, "codes": dict(sorted(codes.items())), "problems": problems,
        "bnd001_cpython_accepts": mismatches, "cpython_rejects_boundlint_parsed": rejected_only_by_cpython,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="*", help="folders to sweep (default: the stdlib and the corpus)")
    parser.add_argument("--jobs", "-j", type=int, default=None)
    parser.add_argument("--json", dest="json_out", help="also write the full report to this file")
    args = parser.parse_args(argv)
    roots = args.roots or [sysconfig.get_paths()["stdlib"], CORPUS]
    ok = True
    reports = []
    for root in roots:
        if not os.path.isdir(root):
            print(f"sweep: no such folder: {root} (build the corpus with benchmarks/corpus.py)", file=sys.stderr)
            ok = False
            continue
        report = sweep_root(root, args.jobs)
        reports.append(report)
        print(f"== {root}")
        if report["also"]:
            print(f"   also the folders discovery skips by name: {', '.join(report['also'])}")
        print(f"   {report['files']} files, {report['lines']} lines, {report['seconds']} s, exit {report['exit']}")
        print("   findings per code: " + (", ".join(f"{c} {n}" for c, n in report["codes"].items()) or "none"))
        for problem in report["problems"]:
            print(f"   PROBLEM {problem}")
        for mismatch in report["bnd001_cpython_accepts"]:
            print(f"   MISMATCH {mismatch}")
        extra = report["cpython_rejects_boundlint_parsed"]
        print(f"   files CPython's compile() rejects but LibCST parses (not reported, informational): {len(extra)}")
        for line in extra[:20]:
            print(f"     {line}")
        ok = ok and not report["problems"] and not report["bnd001_cpython_accepts"]
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as fh:
            json.dump(reports, fh, indent=2)
    print("sweep: OK" if ok else "sweep: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
