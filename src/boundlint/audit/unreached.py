"""Findings the endpoint exposure map does not list: "not reached from a handler".

Workers, schedulers, queue consumers and scripts are no request handler's,
yet their findings (a ``high`` log storm of an SQS consumer) matter as much.
``unreached(findings, handlers, root)`` returns the findings that no map
entry shows, riskiest first, so that every renderer can list them and the
JSON report holds every finding of the run.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass

SEVERITIES = ("high", "medium", "low")
_SEVERITY_RANK = {name: rank for rank, name in enumerate(SEVERITIES)}
# Within a severity: fan-out first, then log storms and churn, request shape, meta codes last.
_FAMILY_RANK = {"BND1": 0, "BND3": 1, "BND4": 2, "BND2": 3}


@dataclass
class Loose:
    """A finding no handler of the map reaches: ``path`` as the report shows paths, 1-based ``line`` / ``column``."""

    path: str
    line: int
    column: int
    code: str
    severity: str
    message: str
    function: str | None = None  # the innermost def holding the line, when the audit facts know it


def shown_path(path: str, root: str | None) -> str:
    """*path* as the report shows it: relative to *root* when under it, else as given."""
    if not root:
        return path
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def risk_order(item: Loose) -> tuple:
    """Sort key, riskiest first: severity, then family (fan-out, log storm, churn, request shape, meta), then place."""
    return (_SEVERITY_RANK.get(item.severity, len(SEVERITIES)), _FAMILY_RANK.get(item.code[:4], 9),
            item.path, item.line, item.column, item.code)


def severity_counts(findings) -> dict[str, int]:
    """``{"high": n, "medium": n, "low": n}`` of *findings* (every severity named, zero included)."""
    counts = Counter(f.severity for f in findings)
    return {name: counts.get(name, 0) for name in SEVERITIES}


def placed(handlers) -> set[tuple[str, int, str]]:
    """``(path, line, code)`` of every finding an exposure map entry of *handlers* shows."""
    out = set()
    for h in handlers:
        for entry in (*h.fanouts, *h.fields, *h.sites):
            if entry.code:
                out.add((getattr(entry, "path", "") or h.path, entry.line, entry.code))
    return out


def unreached(results, handlers, root: str | None) -> list[Loose]:
    """The findings of *results* (``FileResult``) that no entry of *handlers* shows, riskiest first."""
    shown = placed(handlers)
    out = []
    for result in results:
        functions = ((result.facts or {}).get("audit") or {}).get("functions") or ()
        for f in result.findings:
            path = shown_path(f.path, root)
            if (path, f.line, f.code) in shown:
                continue
            out.append(Loose(path, f.line, f.column, f.code, f.severity, f.message, _function(functions, f.line)))
    out.sort(key=risk_order)
    return out


def _function(functions, line: int) -> str | None:
    """The qualified name of the innermost function of the audit facts whose span holds *line*."""
    best, best_span = None, None
    for fn in functions:
        if fn["start"] <= line <= fn["end"] and (best_span is None or fn["end"] - fn["start"] < best_span):
            best, best_span = fn["name"], fn["end"] - fn["start"]
    return best


def loose_text(item: Loose) -> str:
    """``app/worker.py:12 BND301 [high] (in consume): message`` for one line of text."""
    where = f" (in {item.function})" if item.function else ""
    return f"{item.path}:{item.line} {item.code} [{item.severity}]{where}: {item.message}"
