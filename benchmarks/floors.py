#!/usr/bin/env python3
"""What any LibCST-based checker must spend, measured against two targets of issue 12.

usage: python benchmarks/floors.py [--small] [--repeat N] [--largest K]

Two of the speed targets are ratios whose numerator has a floor that owes
nothing to boundlint's analysis:

- *five changed files in a warm project, at most 1.5 times* ``import libcst``.
  A run that checks five files with LibCST must import LibCST and parse them.
  Timed here, interleaved and repeated like ``bench.py``, on the five files
  ``bench.py`` changes: ``import libcst``; that import plus the parse of the
  five files (boundlint's own parse, ``engine.parse.parse_module``, the
  cheapest there is); and both plus loading boundlint's checker and rules.
  No index, no rule run, no worker process, no output.
- *peak memory per process, at most 250 MB*.  A process that parses a module
  holds its whole tree.  Measured here: the peak RSS of a process that
  imports LibCST and parses one file, for each of the *K* largest files of
  the corpus.

Each floor is printed as the ratio the target uses, next to its limit: a
floor over the limit means no LibCST checker can meet the target on this
corpus.  Reuses ``bench.py``'s corpus and timer; needs only the package index.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from bench import ensure_corpus, run_timed, spread

_PARSE = (
    "import sys, libcst\n"
    "from boundlint.engine.parse import parse_module\n"
    "{load}"
    "for path in sys.argv[1:]:\n"
    "    with open(path, 'rb') as fh:\n"
    "        data = fh.read()\n"
    "    try:\n"
    "        parse_module(data.decode('utf-8'))\n"
    "    except Exception:\n"
    "        pass\n"
)
_RULES = (
    "from boundlint.config import Settings\n"
    "from boundlint.engine.check import enabled_rules\n"
    "enabled_rules(Settings())\n"
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="the fixed small subset instead of the full corpus")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--largest", type=int, default=3, metavar="K", help="files whose parse peak is measured")
    args = ap.parse_args()

    corpus = ensure_corpus(args.small)
    files = sorted(corpus.rglob("*.py"))
    five = [str(p) for p in spread(files)]
    python = sys.executable
    timed = {
        'python -c "import libcst"': [python, "-c", "import libcst"],
        "import libcst, parse the five files": [python, "-c", _PARSE.format(load=""), *five],
        "the same, and load boundlint's checker and rules": [python, "-c", _PARSE.format(load=_RULES), *five],
    }
    walls: dict[str, list[float]] = {name: [] for name in timed}
    for rep in range(args.repeat):
        for name, argv in timed.items():
            walls[name].append(run_timed(argv)[0])
        print(f"[{rep + 1}/{args.repeat}] timed", file=sys.stderr)
    med = {name: statistics.median(w) for name, w in walls.items()}
    base = med['python -c "import libcst"']

    largest = sorted(files, key=lambda p: p.stat().st_size, reverse=True)[: args.largest]
    peaks = [(run_timed([python, "-c", _PARSE.format(load=""), str(p)])[1], p) for p in largest]

    print(f"Corpus: {corpus.name}; the five files: {', '.join(str(Path(f).relative_to(corpus)) for f in five)}; "
          f"median of {args.repeat}, interleaved.")
    print()
    print("| floor | median wall (s) | / import libcst | limit |")
    print("| --- | ---: | ---: | ---: |")
    for name in timed:
        limit = "" if name.startswith("python") else "1.5"
        print(f"| {name} | {med[name]:.3f} | {med[name] / base:.2f} | {limit} |")
    print()
    print("| bare LibCST parse of one file | size (KB) | peak RSS (MB) | limit |")
    print("| --- | ---: | ---: | ---: |")
    for peak, path in peaks:
        print(f"| {path.relative_to(corpus)} | {path.stat().st_size / 1024:,.0f} | {peak:.0f} | 250 |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
