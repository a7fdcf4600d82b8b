"""Baselines: record today's findings so that only new ones are reported.

An entry is ``(path, code, fingerprint)``.  The fingerprint hashes the
flagged line and its context (the headers of the enclosing ``def`` /
``class`` blocks), all whitespace-normalised, with the text of its string
literals left out, and never the line number: lines added or removed
elsewhere, or a better log message on the flagged line, do not resurrect an
entry, while a change to the flagged code itself (or moving it to another
function) does.  Entries are counted, so a second identical hazard in the
same function is new.

Paths are stored relative to the baseline file's directory, so a baseline
works from any working directory.  A finding whose own path has no entry
left matches an entry with its code and fingerprint recorded for a file that
no longer exists: the file was renamed (``git mv``).  ``Baseline.match`` also
counts the entries nothing matched any more (fixed, or changed), which
``--update-baseline`` prunes.  Version 1 baselines (fingerprints with the
string text) are still read and matched.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from typing import Iterable, Mapping, Sequence

from boundlint.finding import Finding

VERSION = 2
READS = (1, 2)  # the versions Baseline.load accepts
_HEADER = re.compile(r"\s*(?:async\s+def|def|class)\s")
# A string literal on one line (any prefix: r, b, f, u...); its text is left out of the fingerprint.
_STRING = re.compile(r"""(?i:[rbuf]{0,2})(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


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


def fingerprint(finding: Finding, lines: Sequence[str], version: int = VERSION) -> str:
    """A hash (20 hex chars) of *finding*'s code, flagged line and enclosing headers, no line numbers.

    From *version* 2 on, the flagged line's string literals count as empty strings: a reworded log
    message keeps the fingerprint.
    """
    context = context_lines(lines, finding.line)
    if version >= 2 and context:
        context[0] = _STRING.sub('""', context[0])
    parts = [finding.code, *context]
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


def _keys(findings: Iterable[Finding], base: str, sources: Mapping[str, list[str]] | None, version: int = VERSION):
    cache: dict[str, list[str]] = dict(sources or {})
    for f in findings:
        yield f, (_key_path(f.path, base), f.code, fingerprint(f, _read_lines(f.path, cache), version))


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


class Match:
    """What a baseline made of a run's findings: ``new`` (not recorded, in their order), ``known`` (matched)
    and ``stale`` (the number of entries no finding matched any more)."""

    def __init__(self, new: list[Finding], known: list[Finding], stale: int) -> None:
        self.new, self.known, self.stale = new, known, stale


class Baseline:
    """The entries of one baseline file, ready to filter findings."""

    def __init__(self, path: str, counts: Counter, version: int = VERSION) -> None:
        self.path = path
        self.counts = counts
        self.version = version

    @classmethod
    def load(cls, path: str) -> "Baseline":
        """Read a baseline written by ``write_baseline`` (this version or an older one); raises BaselineError."""
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
        if data.get("version") not in READS:
            raise BaselineError(f"{path}: baseline version {data.get('version')!r} is not supported "
                                f"(expected {' or '.join(map(str, READS))})")
        counts: Counter = Counter()
        for entry in data["findings"]:
            try:
                counts[(entry["path"], entry["code"], entry["fingerprint"])] += 1
            except (TypeError, KeyError):
                raise BaselineError(f"{path}: malformed baseline entry {entry!r:.60}") from None
        return cls(path, counts, data["version"])

    def match(self, findings: Iterable[Finding], sources: Mapping[str, list[str]] | None = None) -> Match:
        """Sort *findings* into new and known ones, and count the entries left unmatched (see module doc)."""
        base = os.path.dirname(os.path.abspath(self.path))
        findings = list(findings)
        left = Counter(self.counts)
        keys = [key for _, key in _keys(findings, base, sources, self.version)]
        known = [False] * len(findings)
        for i, key in enumerate(keys):
            if left[key] > 0:
                left[key] -= 1
                known[i] = True
        # Renamed files: an entry of a file that is gone matches the same code and fingerprint elsewhere.
        gone: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
        for entry, n in left.items():
            if n > 0 and not os.path.lexists(os.path.join(base, entry[0])):
                gone.setdefault(entry[1:], []).append(entry)
        for i, key in enumerate(keys):
            if known[i]:
                continue
            for entry in gone.get(key[1:], ()):
                if left[entry] > 0:
                    left[entry] -= 1
                    known[i] = True
                    break
        return Match([f for f, k in zip(findings, known) if not k], [f for f, k in zip(findings, known) if k],
                     sum(n for n in left.values() if n > 0))

    def new_findings(self, findings: Iterable[Finding], sources: Mapping[str, list[str]] | None = None) -> list[Finding]:
        """The findings not covered by this baseline, in their original order."""
        return self.match(findings, sources).new


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def apply_baseline(path: str, findings: list[Finding], sources: Mapping[str, list[str]] | None = None,
                   update: bool = False, quiet: bool = False) -> list[Finding] | None:
    """The findings of a run that the baseline *path* does not record; None once *update* rewrote it.

    Says on stderr how many entries no longer match (unless *quiet*); with *update*, rewrites *path*
    with this run's findings (pruning those entries, adding the new findings) and says what changed.
    Raises BaselineError for a baseline that cannot be read or written.
    """
    import sys

    baseline = Baseline.load(path)
    match = baseline.match(findings, sources)
    if update:
        write_baseline(path, findings, sources)
        if not quiet:
            print(f"boundlint: updated baseline {path}: {_plural(len(match.known), 'entry', 'entries')} kept, "
                  f"{len(match.new)} added, {match.stale} pruned.", file=sys.stderr)
        return None
    if match.stale and not quiet:
        verb = "matches" if match.stale == 1 else "match"
        print(f"boundlint: {_plural(match.stale, 'baseline entry', 'baseline entries')} no longer {verb} "
              f"(fixed, or the flagged code changed); --update-baseline prunes "
              f"{'it' if match.stale == 1 else 'them'}.", file=sys.stderr)
    return match.new
