"""``gitlab``: GitLab Code Quality report (a JSON array in the Code Climate issue shape).

GitLab matches an entry to the merge request by ``location.path`` (relative to the
repository root: ``$CI_PROJECT_DIR`` in a pipeline, else the working directory) and
tracks it across pipelines by ``fingerprint``.  The fingerprint hashes the path, the
code and the flagged line with the ``def`` / ``class`` lines around it (as a baseline
entry does), never the line number: a finding moved by edits elsewhere keeps it,
so GitLab does not show it as fixed and reintroduced.  Identical hazards in one
function get distinct fingerprints by their order.
"""
from __future__ import annotations

import hashlib
import json
import os
from typing import Iterable, Mapping, Sequence

from boundlint.baseline import context_lines
from boundlint.finding import Finding


def severity(code: str, level: str = "high") -> str:
    """GitLab severity: ``critical`` for a file that went unchecked (BND0xx), ``minor`` for
    the noqa check (BND9xx); a hazard's by its *level*: ``major`` (high), ``minor`` (medium),
    ``info`` (low)."""
    if code.startswith("BND0"):
        return "critical"
    if code.startswith("BND9"):
        return "minor"
    return {"high": "major", "medium": "minor", "low": "info"}.get(level, "minor")


def report_path(path: str, root: str) -> str:
    """*path* relative to *root* with ``/`` separators; kept absolute when outside *root*."""
    full = os.path.abspath(path)
    rel = os.path.relpath(full, root) if os.path.splitdrive(full)[0] == os.path.splitdrive(root)[0] else full
    return (full if rel == ".." or rel.startswith(".." + os.sep) else rel).replace(os.sep, "/")


def format_gitlab(findings: Iterable[Finding], sources: Mapping[str, Sequence[str]] | None = None,
                  root: str | None = None) -> str:
    """The Code Quality JSON array: ``description``, ``check_name``, ``fingerprint`` (32 hex
    digits), ``severity`` and ``location`` (``path``, ``lines.begin`` / ``lines.end``, 1-based).

    *sources* maps a finding's path to its lines (read from disk when missing); *root*
    defaults to ``$CI_PROJECT_DIR``, else the working directory.
    """
    root = os.path.abspath(root or os.environ.get("CI_PROJECT_DIR") or os.getcwd())
    cache: dict[str, Sequence[str]] = dict(sources or {})
    seen: set[str] = set()
    out = []
    for f in findings:
        path = report_path(f.path, root)
        if f.path not in cache:
            cache[f.path] = _read(f.path)
        base = "\0".join([path, f.code, *context_lines(cache[f.path], f.line)])
        n = 0
        while True:  # a second identical hazard in the same place gets the next free fingerprint
            fp = hashlib.sha256(f"{base}\0{n}".encode("utf-8", "surrogatepass")).hexdigest()[:32]
            if fp not in seen:
                break
            n += 1
        seen.add(fp)
        out.append({
            "description": f"{f.code} {f.message}",
            "check_name": f.code,
            "fingerprint": fp,
            "severity": severity(f.code, f.severity),
            "location": {"path": path, "lines": {"begin": f.line, "end": max(f.end_line, f.line)}},
        })
    return json.dumps(out, indent=2) + "\n"


def _read(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read().splitlines()
    except OSError:
        return []
