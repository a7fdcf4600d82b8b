#!/usr/bin/env python3
"""The fix property over the pinned corpora: ``check --fix-only --unsafe-fixes`` on a copy never breaks code.

For each corpus built by ``benchmarks/corpus.py`` (``benchmarks/.corpus/full`` and
``benchmarks/.corpus/services``, as ``benchmarks/ecosystem.py`` finds them) the
script copies the tree to a temporary directory, then:

1. checks the copy (``--min-severity low``, as the ecosystem check does);
2. applies every fix, unsafe ones too (``check --fix-only --unsafe-fixes``);
3. compiles every file the fixes changed (``compile()``, nothing is imported or run);
4. checks again: a finding that was there and is gone counts as fixed, one that is
   still there as not fixable (split by whether the finding names a fix kind at
   all), and a finding that was not there before is a new finding;
5. fixes again, which must change no byte (idempotence).

It prints, per code, the findings before, fixed, not fixable and new, and exits 1
when a changed file does not compile, a fix added a finding, or the second fix
changed something (0 otherwise; 2 when a corpus is not built).  The corpora
themselves are never written.  It takes minutes: it stays out of the test suite
(``tests/test_fix_property.py`` runs the same property over the fixtures).

usage:
  python benchmarks/fix_corpus.py                    # both corpora
  python benchmarks/fix_corpus.py --corpus services  # one
  python benchmarks/fix_corpus.py --keep DIR         # leave the fixed copy in DIR to read the diffs
  python benchmarks/fix_corpus.py --corpus services --project djoser-2.3.5   # one project (repeatable)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPORA = HERE / ".corpus"
NAMES = ("full", "services")


def _boundlint(root: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "boundlint", "check", ".", "--no-cache", "--min-severity", "low", *args]
    return subprocess.run(cmd, cwd=root, capture_output=True, text=True)


def _findings(root: Path) -> list[dict]:
    done = _boundlint(root, "--output-format", "json", "--exit-zero")
    if done.returncode != 0:
        sys.exit(f"fix_corpus: boundlint check failed (exit {done.returncode}): {done.stderr.strip()[-400:]}")
    return json.loads(done.stdout)


def _digests(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.blake2b(p.read_bytes(), digest_size=16).hexdigest()
            for p in sorted(root.rglob("*.py*"))}


def _key(f: dict) -> tuple[str, str, str]:
    return f["path"], f["code"], f["message"]  # not the line: an added import moves the lines below it


def check_corpus(name: str, keep: Path | None) -> tuple[bool, Counter, Counter, Counter, Counter]:
    """Run the property over corpus *name* (``services``, or one project of it: ``services/djoser-2.3.5``):
    ``(ok, before, fixed, not fixable, new)`` counts by code."""
    source = CORPORA / name
    if not source.is_dir():
        print(f"fix_corpus: {name!r} is not built: run benchmarks/corpus.py first (see docs/benchmarks.md)",
              file=sys.stderr)
        sys.exit(2)
    work = Path(tempfile.mkdtemp(prefix="boundlint-fix-")) / name if keep is None else keep / name
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(source, work)
    ok = True
    try:
        before = _findings(work)
        originals = _digests(work)
        done = _boundlint(work, "--fix-only", "--unsafe-fixes")
        if done.returncode != 0:
            print(f"  fix run failed (exit {done.returncode}): {done.stderr.strip()[-400:]}")
            ok = False
        print(f"  {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else 'no output'}")
        fixed_digests = _digests(work)
        changed = [p for p, d in fixed_digests.items() if originals.get(p) != d]
        broken = []
        for rel in changed:
            try:
                compile((work / rel).read_bytes(), rel, "exec", dont_inherit=True)
            except (SyntaxError, ValueError) as exc:
                broken.append(f"{rel}: {exc}")
        after = _findings(work)
        left, was = Counter(map(_key, after)), Counter(map(_key, before))
        new = left - was
        again = _boundlint(work, "--fix-only", "--unsafe-fixes")
        moved = [p for p, d in _digests(work).items() if fixed_digests.get(p) != d]
        for problem, items in (("does not compile", broken), ("new finding", [" ".join(k) for k in new]),
                               ("changed by a second --fix", moved)):
            for item in items[:20]:
                print(f"  FAIL {problem}: {item}")
            ok = ok and not items
        if again.returncode != 0:
            ok = False
        counts_before = Counter(f["code"] for f in before)
        gone = was - left
        fixed = Counter()
        for (_, code, _), n in gone.items():
            fixed[code] += n
        not_fixable = Counter(f["code"] for f in after if _key(f) in was)
        print(f"  files changed: {len(changed)}; compiled: {len(changed) - len(broken)}")
        return ok, counts_before, fixed, not_fixable, Counter(code for (_, code, _), n in new.items() for _ in range(n))
    finally:
        if keep is None:
            shutil.rmtree(work.parents[len(Path(name).parts) - 1], ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", choices=(*NAMES, "both"), default="both")
    parser.add_argument("--keep", type=Path, help="leave the fixed copies in this directory")
    parser.add_argument("--project", action="append", default=[],
                        help="only this project of the corpus (``djoser-2.3.5``); repeatable")
    args = parser.parse_args(argv)
    names = NAMES if args.corpus == "both" else (args.corpus,)
    if args.project:
        if args.corpus == "both":
            parser.error("--project needs --corpus full or --corpus services")
        names = tuple(f"{args.corpus}/{project}" for project in args.project)
    ok = True
    totals = [Counter(), Counter(), Counter(), Counter()]
    for name in names:
        print(f"{name}:")
        good, *counts = check_corpus(name, args.keep)
        ok = ok and good
        for total, count in zip(totals, counts):
            total.update(count)
    print(f"\n{'code':8} {'before':>7} {'fixed':>7} {'not fixable':>12} {'new':>5}")
    for code in sorted(totals[0]):
        print(f"{code:8} {totals[0][code]:>7} {totals[1][code]:>7} {totals[2][code]:>12} {totals[3][code]:>5}")
    print(f"{'all':8} {sum(totals[0].values()):>7} {sum(totals[1].values()):>7} {sum(totals[2].values()):>12} "
          f"{sum(totals[3].values()):>5}")
    print("property holds" if ok else "property FAILS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
