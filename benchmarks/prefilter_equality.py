#!/usr/bin/env python3
"""Prove the pre-filter lossless on a whole corpus: findings with and without it are identical.

usage: python benchmarks/prefilter_equality.py [DIR] [--jobs N]

DIR defaults to the full corpus (``benchmarks/.corpus/full``, built by
``benchmarks/corpus.py``).  Every file is checked twice in worker processes,
once with the rule prefilters and the parse skip and once without; the script
prints the counts and every file whose findings differ, and exits 1 if any does.
(tests/test_prefilter.py runs the same comparison on the small subset in CI.)
"""
from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from boundlint.config import Settings
from boundlint.engine import check_file
from boundlint.files import discover

DEFAULT = Path(__file__).resolve().parent / ".corpus" / "full"


def _compare(paths: list[str]) -> tuple[int, int, list[str]]:
    settings = Settings()
    skipped = findings = 0
    differ = []
    for path in paths:
        on = check_file(path, settings).findings
        off = check_file(path, settings, prefilter=False).findings
        findings += len(off)
        skipped += not off
        if on != off:
            differ.append(path)
    return skipped, findings, differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    files = discover([str(args.root)])
    chunks = [files[i::args.jobs * 16] for i in range(args.jobs * 16)]
    total_findings = 0
    differ: list[str] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for _, found, bad in pool.map(_compare, chunks):
            total_findings += found
            differ.extend(bad)
    print(f"{len(files)} files, {total_findings} findings without the pre-filter, {len(differ)} files differ")
    for path in sorted(differ):
        print(f"  differs: {path}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
