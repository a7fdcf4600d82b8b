#!/usr/bin/env python3
"""Peer for the benchmark: LibCST parse-only of every ``*.py`` under a folder, on N processes.

usage: python benchmarks/parse_only.py DIR [--jobs N]
Prints the number of files parsed and failed.  The floor any LibCST-based linter
stands on: boundlint's cold run is measured against it.
"""
from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def _parse(paths: list[str]) -> tuple[int, int]:
    import libcst

    ok = bad = 0
    for path in paths:
        try:
            libcst.parse_module(Path(path).read_bytes())
            ok += 1
        except Exception:
            bad += 1
    return ok, bad


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    files = sorted(str(p) for p in Path(args.root).rglob("*.py"))
    chunks = [files[i::args.jobs * 8] for i in range(args.jobs * 8)]
    ok = bad = 0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for a, b in pool.map(_parse, chunks):
            ok += a
            bad += b
    print(f"parsed {ok}, failed {bad}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
