#!/usr/bin/env python3
"""The ecosystem check: run boundlint over the pinned corpora, label what it reports, measure precision.

The habit of ruff's ecosystem CI and mypy_primer.  For each corpus (built by
``benchmarks/corpus.py``) it runs ``boundlint check --min-severity low``
and keeps every finding with its severity.  Then it:

- compares the run with the snapshot (``benchmarks/ecosystem-snapshot.json``)
  and prints what is new, what is gone and what changed (severity or message);
- reads the labels (``benchmarks/ecosystem-labels.csv``: ``code, path, line,
  label, reason, kind, evidence``; label is ``true``, ``mild``, ``false`` or
  ``unclear``), given by fresh readers as ``../shared/PRECISION.md`` says;
- prints the counts per code and severity, and the precision per code and per
  family of the findings reported at the default severity (mild counts as
  true, unclear as neither);
- exits 1 when a reported finding has no label (``--todo FILE`` writes them
  out for readers), 0 otherwise.

usage:
  python benchmarks/ecosystem.py                       # both corpora, compare, measure
  python benchmarks/ecosystem.py --update-snapshot     # then record this run as the snapshot
  python benchmarks/ecosystem.py --todo todo.jsonl     # write the unlabelled findings
  python benchmarks/ecosystem.py --project prefect-3.9.1   # one project of a corpus (repeatable), to iterate fast

Paths are relative to ``benchmarks/.corpus`` (``full/prefect-3.9.1/...``), so
snapshots and labels do not depend on the machine.  A run over both corpora
takes a few minutes; it stays out of CI (see docs/benchmarks.md).
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPORA = HERE / ".corpus"
SNAPSHOT = HERE / "ecosystem-snapshot.json"
LABELS = HERE / "ecosystem-labels.csv"
NAMES = ("full", "services")
LEVELS = {"low": 0, "medium": 1, "high": 2}
FIELDS = ("code", "path", "line", "label", "reason", "kind", "evidence")


def run(corpus: str, jobs: int | None) -> list[dict]:
    """Every finding of ``boundlint check`` on *corpus* (``full``, or one project of it: ``full/prefect-3.9.1``),
    severities low and up, paths relative to CORPORA."""
    root = CORPORA / corpus
    if not root.is_dir():
        sys.exit(f"ecosystem: {corpus!r} is not built: run benchmarks/corpus.py first (see docs/benchmarks.md)")
    cmd = [sys.executable, "-m", "boundlint", "check", corpus, "--output-format", "json", "--min-severity", "low",
           "--no-cache", "--exit-zero", "--isolated"]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    done = subprocess.run(cmd, cwd=CORPORA, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"ecosystem: boundlint failed on {corpus} (exit {done.returncode}): {done.stderr.strip()[-400:]}")
    out = []
    for f in json.loads(done.stdout):
        out.append({"code": f["code"], "path": f["path"].replace(os.sep, "/"), "line": f["line"],
                    "column": f["column"], "severity": f.get("severity", "medium"), "message": f["message"],
                    "reason": f.get("severity_reason", ""), "evidence": f.get("evidence", [])})
    return out


def key(f: dict) -> tuple[str, str, int]:
    """The identity of a finding across runs: code, path, line (the corpora are pinned)."""
    return f["code"], f["path"], int(f["line"])


def read_labels(path: Path) -> dict[tuple[str, str, int], dict]:
    """The labels file as ``key -> row``; a missing file is empty."""
    if not path.exists():
        return {}
    with path.open(newline="", encoding="utf-8") as fh:
        return {(r["code"], r["path"], int(r["line"])): r for r in csv.DictReader(fh)}


def family(code: str) -> str:
    return {"BND1": "fan-out", "BND2": "request shape", "BND3": "log storms", "BND4": "churn"}.get(code[:4], code[:4])


def precision(rows: list[dict]) -> tuple[int, int, int, str]:
    """``(true incl. mild, false, unclear, "p%")`` of labelled *rows*."""
    good = sum(r["label"] in ("true", "mild") for r in rows)
    bad = sum(r["label"] == "false" for r in rows)
    unclear = sum(r["label"] == "unclear" for r in rows)
    return good, bad, unclear, (f"{100 * good / (good + bad):.1f}%" if good + bad else "-")  # one decimal: 89.6% is not 90%


def diff(old: list[dict], new: list[dict]) -> tuple[list[dict], list[dict], list[tuple[dict, dict]]]:
    """``(new, gone, changed)`` between two runs; changed = same key, other severity or message."""
    before = {key(f): f for f in old}
    after = {key(f): f for f in new}
    added = [after[k] for k in sorted(after.keys() - before.keys())]
    gone = [before[k] for k in sorted(before.keys() - after.keys())]
    changed = [(before[k], after[k]) for k in sorted(after.keys() & before.keys())
               if (before[k]["severity"], before[k]["message"]) != (after[k]["severity"], after[k]["message"])]
    return added, gone, changed


def show(f: dict) -> str:
    return f"  {f['code']} [{f['severity']}] {f['path']}:{f['line']}  {f['message'][:110]}"


def report(findings: list[dict], labels: dict, minimum: str) -> list[dict]:
    """Print counts and precision; return the reported findings that have no label."""
    shown = [f for f in findings if LEVELS[f["severity"]] >= LEVELS[minimum]]
    print(f"\n## Counts (reported at --min-severity {minimum}: {len(shown)} of {len(findings)})\n")
    print("| code | high | medium | low | reported |")
    print("| --- | ---: | ---: | ---: | ---: |")
    by_code: dict[str, Counter] = defaultdict(Counter)
    for f in findings:
        by_code[f["code"]][f["severity"]] += 1
    for code in sorted(by_code):
        c = by_code[code]
        reported = sum(n for level, n in c.items() if LEVELS[level] >= LEVELS[minimum])
        print(f"| {code} | {c['high']} | {c['medium']} | {c['low']} | {reported} |")
    rows_by_code: dict[str, list[dict]] = defaultdict(list)
    rows_by_family: dict[str, list[dict]] = defaultdict(list)
    missing = []
    for f in shown:
        row = labels.get(key(f))
        if row is None:
            missing.append(f)
            continue
        rows_by_code[f["code"]].append(row)
        rows_by_family[family(f["code"])].append(row)
    print("\n## Precision of the reported findings (mild counts as true)\n")
    print("| code or family | labelled | true+mild | false | unclear | precision |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    everything = []
    for name, rows in [*sorted(rows_by_code.items()), *sorted(rows_by_family.items())]:
        good, bad, unclear, p = precision(rows)
        print(f"| {name} | {len(rows)} | {good} | {bad} | {unclear} | {p} |")
    for rows in rows_by_code.values():
        everything += rows
    good, bad, unclear, p = precision(everything)
    print(f"| **all** | {len(everything)} | {good} | {bad} | {unclear} | **{p}** |")
    return missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", choices=(*NAMES, "both"), default="both")
    parser.add_argument("--min-severity", choices=tuple(LEVELS), default="medium", dest="minimum",
                        help="the severity a default run reports (default: medium)")
    parser.add_argument("--snapshot", type=Path, default=SNAPSHOT)
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--update-snapshot", action="store_true", help="record this run as the snapshot")
    parser.add_argument("--from-snapshot", action="store_true", help="measure the snapshot without running boundlint")
    parser.add_argument("--todo", type=Path, help="write the unlabelled reported findings here (JSON lines)")
    parser.add_argument("--jobs", "-j", type=int, default=None)
    parser.add_argument("--project", action="append", default=[], metavar="NAME",
                        help="only this project of a corpus (``prefect-3.9.1``); repeatable; no snapshot update")
    args = parser.parse_args(argv)
    old = json.loads(args.snapshot.read_text(encoding="utf-8")) if args.snapshot.exists() else []
    names = NAMES if args.corpus == "both" else (args.corpus,)
    if args.project:
        found = [f"{name}/{p}" for p in args.project for name in names if (CORPORA / name / p).is_dir()]
        if len(found) != len(args.project):
            sys.exit(f"ecosystem: not every project of {args.project} is in the corpora {list(names)}")
        names, args.update_snapshot = tuple(found), False

    def within(f: dict) -> bool:
        return any(f["path"] == name or f["path"].startswith(name + "/") for name in names)

    if args.from_snapshot:
        findings = [f for f in old if within(f)]
    else:
        findings = [f for name in names for f in run(name, args.jobs)]
        # The whole run, with each finding's severity reason, for reading what changed (not versioned).
        latest = "latest-run.json" if not args.project else f"latest-{'+'.join(sorted(args.project))}.json"
        (CORPORA / latest).write_text(json.dumps(findings, indent=1) + "\n", encoding="utf-8")
        added, gone, changed = diff([f for f in old if within(f)], findings)
        print(f"## Against the snapshot: {len(added)} new, {len(gone)} gone, {len(changed)} changed\n")
        for title, items in (("new", added), ("gone", gone)):
            for f in items:
                print(f"{title}:{show(f)}")
        for before, after in changed:
            print(f"changed: {before['severity']} -> {after['severity']}:{show(after)}")
    missing = report(findings, read_labels(args.labels), args.minimum)
    if args.update_snapshot and not args.from_snapshot:
        kept = [f for f in old if not within(f)] + findings
        args.snapshot.write_text(json.dumps(sorted(kept, key=key), indent=1) + "\n", encoding="utf-8")
        print(f"\nsnapshot written: {args.snapshot.name} ({len(kept)} findings)")
    if args.todo is not None:
        with args.todo.open("w", encoding="utf-8") as fh:
            for f in missing:
                fh.write(json.dumps(f) + "\n")
    if missing:
        print(f"\nFAIL: {len(missing)} reported findings have no label in {args.labels.name}"
              + (f" (written to {args.todo})" if args.todo else " (--todo FILE writes them out)"))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
