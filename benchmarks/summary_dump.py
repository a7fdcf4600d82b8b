#!/usr/bin/env python3
"""Dump the project index's module summaries of a tree, to prove a change to the index pass leaves them identical.

usage: python benchmarks/summary_dump.py DIR OUT.pickle
       python benchmarks/summary_dump.py --compare A.pickle B.pickle

The first form summarises every ``*.py`` file under DIR in this process, as
module name, package or not, from the same ``index.project`` helpers the index
uses, and pickles ``{relative path: summary}`` (an empty summary for a file
``ast`` cannot read, as the index keeps).  The second form compares two dumps:
it prints the count of modules, and every path whose summary differs, as a
value or in the JSON text (so also in the order of its keys and lists), and
exits 1 if any does.
"""
from __future__ import annotations

import json
import os
import pickle
import sys
import time
from pathlib import Path


def dump(directory: str, out: str) -> int:
    from boundlint.index.build import summary_of
    from boundlint.index.project import find_root, module_names

    summaries = {}
    started = time.perf_counter()
    for path in sorted(str(p) for p in Path(directory).rglob("*.py")):
        root, _ = find_root(path)
        names = module_names(path, root)
        if not names:
            continue
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        is_package = os.path.basename(path) == "__init__.py"
        summaries[os.path.relpath(path, directory)] = summary_of(text, names[0], is_package)
    with open(out, "wb") as fh:
        pickle.dump(summaries, fh)
    print(f"{len(summaries)} modules summarised in {time.perf_counter() - started:.1f} s")
    return 0


def compare(first: str, second: str) -> int:
    with open(first, "rb") as fh:
        a = pickle.load(fh)
    with open(second, "rb") as fh:
        b = pickle.load(fh)
    differ = sorted(p for p in a.keys() | b.keys()
                    if a.get(p) != b.get(p) or json.dumps(a.get(p)) != json.dumps(b.get(p)))
    print(f"{len(a)} / {len(b)} modules, {len(differ)} differ")
    for path in differ:
        print(f"  {path}")
    return 1 if differ else 0


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "--compare":
        return compare(argv[1], argv[2])
    if len(argv) == 2:
        return dump(argv[0], argv[1])
    print(__doc__.strip().splitlines()[2], file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
