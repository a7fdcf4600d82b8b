"""Baselines: record today's findings so that only new ones are reported.

An entry is ``(path, code, fingerprint)``.  The fingerprint hashes the
flagged line and its context (the headers of the enclosing ``def`` /
``class`` blocks), all whitespace-normalised, and never the line number:
lines added or removed elsewhere do not resurrect an entry, while an edit to
the flagged line itself (or moving it to another function) does.  Entries
are counted, so a second identical hazard in the same function is new.

Paths are stored relative to the baseline file's directory, so a baseline
works from any working directory.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from typing import Iterable, Mapping, Sequence

from boundlint.finding import Finding

VERSION = 1
_HEADER = re.compile(r"\s*(?:async\s+def|def|class)\s")


class BaselineError(Exception):
    """The baseline file cannot be read or is not a boundlint baseline; ``str()`` is one line."""


def _norm(line: str) -> str:
    return " ".join(line.split())


def context_lines(lines: Sequence[str], line: int) -> list[str]:
    """The flagged line (1-based *line*) then the headers of the blocks enclosing it, innermost first."""
    if not 0 < line <= len(lines):
        return []
    flagged = lines[line - 1]
    out = [_norm(flagged)]
    indent = len(flagged) - len(flagged.lstrip())
    for prev in reversed(lines[: line - 1]):
        if not prev.strip() or prev.lstrip().startswith("#"):
            continue
        prev_indent = len(prev) - len(prev.lstrip())
        if prev_indent < indent and _HEADER.match(prev):
            out.append(_norm(prev))
            indent = prev_indent
            if indent == 0:
                break
    return out


def fingerprint(finding: Finding, lines: Sequence[str]) -> str:
    """A hash of *finding*'s code, flagged line and enclosing headers (no line numbers)."""
    parts = [finding.code, *context_lines(lines, finding.line)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]


def _key_path(path: str, base: str) -> str:
    full = os.path.abspath(path)
    rel = os.path.relpath(full, base)
    return (full if rel.startswith("..") else rel).replace(os.sep, "/")


def _read_lines(path: str, cache: dict[str, list[str]]) -> list[str]:
    if path not in cache:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                cache[path] = fh.read().splitlines()
        except OSError:
            cache[path] = []
    return cache[path]


def _keys(findings: Iterable[Finding], base: str, sources: Mapping[str, list[str]] | None):
    cache: dict[str, list[str]] = dict(sources or {})
    for f in findings:
        yield f, (_key_path(f.path, base), f.code, fingerprint(f, _read_lines(f.path, cache)))


def write_baseline(path: str, findings: Iterable[Finding], sources: Mapping[str, list[str]] | None = None) -> int:
    """Write *findings* to the baseline file *path*; returns the number of entries.

    *sources* optionally maps a finding's path to its lines (read from disk otherwise).
    Raises BaselineError when the file cannot be written.
    """
    base = os.path.dirname(os.path.abspath(path))
    entries = []
    for f, (rel, code, fp) in _keys(findings, base, sources):
        entries.append({"path": rel, "code": code, "fingerprint": fp, "line": f.line, "message": f.message})
    entries.sort(key=lambda e: (e["path"], e["line"], e["code"]))
    data = {"tool": "boundlint", "version": VERSION, "findings": entries}
    try:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
    except OSError as exc:
        raise BaselineError(f"{path}: cannot write baseline: {exc.strerror or exc}") from None
    return len(entries)


class Baseline:
    """The entries of one baseline file, ready to filter findings."""

    def __init__(self, path: str, counts: Counter) -> None:
        self.path = path
        self.counts = counts

    @classmethod
    def load(cls, path: str) -> "Baseline":
        """Read a baseline written by ``write_baseline``; raises BaselineError."""
        from boundlint.safe_read import BASELINE_CAP, read_regular

        try:
            data = json.loads(read_regular(path, BASELINE_CAP).decode("utf-8"))
        except RecursionError:
            raise BaselineError(f"{path}: not a boundlint baseline: JSON nested too deeply") from None
        except OSError as exc:
            raise BaselineError(f"{path}: cannot read baseline: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise BaselineError(f"{path}: not a boundlint baseline: invalid JSON ({exc})") from None
        if not isinstance(data, dict) or data.get("tool") != "boundlint" or not isinstance(data.get("findings"), list):
            raise BaselineError(f"{path}: not a boundlint baseline (write one with --write-baseline)")
        if data.get("version") != VERSION:
            raise BaselineError(f"{path}: baseline version {data.get('version')!r} is not supported (expected {VERSION})")
        counts: Counter = Counter()
        for entry in data["findings"]:
            try:
                counts[(entry["path"], entry["code"], entry["fingerprint"])] += 1
            except (TypeError, KeyError):
                raise BaselineError(f"{path}: malformed baseline entry {entry!r:.60}") from None
        return cls(path, counts)

    def new_findings(self, findings: Iterable[Finding], sources: Mapping[str, list[str]] | None = None) -> list[Finding]:
        """The findings not covered by this baseline, in their original order."""
        base = os.path.dirname(os.path.abspath(self.path))
        left = Counter(self.counts)
        out = []
        for f, key in _keys(findings, base, sources):
            if left[key] > 0:
                left[key] -= 1
            else:
                out.append(f)
        return out
