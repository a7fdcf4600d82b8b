"""SARIF 2.1.0: one run, the enabled rules as ``tool.driver.rules``, 1-based regions.

Paths are written relative to the ``%SRCROOT%`` base id: the current
directory (what GitHub code scanning expects from a checkout), or the
common directory of the checked files when some lie outside it.  Columns
count Unicode code points (``columnKind``), as the findings do.  With the
sources at hand, each region carries its snippet and a context region of
the whole flagged lines.
"""
from __future__ import annotations

import re

import json
import os
from pathlib import Path
from typing import Iterable, Mapping
from urllib.parse import quote

from boundlint import __version__
from boundlint.finding import Finding

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
# Where the rule pages (docs/rules/CODE.md) are published; one place to change.
PROJECT_URI = "https://github.com/boundlint/boundlint"
RULE_DOC_URI = PROJECT_URI + "/blob/main/docs/rules/{code}.md"


def rule_doc_uri(code: str) -> str:
    """The URL of rule *code*'s page (``docs/rules/CODE.md``): SARIF's ``helpUri``, the HTML audit and the language server link it."""
    return RULE_DOC_URI.format(code=code)


def _level(code: str, severity: str = "medium") -> str:
    # BND0xx say a file went unchecked: an error of the run, not a hazard in the code.
    if code.startswith("BND0"):
        return "error"
    if code.startswith("BND9"):
        return "warning"
    return {"high": "error", "medium": "warning", "low": "note"}.get(severity, "warning")


def _first_paragraph(doc: str, heading: str) -> str:
    lines = doc.splitlines()
    try:
        start = lines.index(heading) + 1
    except ValueError:
        return ""
    out = []
    for line in lines[start:]:
        if line.startswith("## "):
            break
        if not line.strip():
            if out:
                break
            continue
        out.append(line.strip())
    return " ".join(out)


def _first_sentence(text: str) -> str:
    """The first sentence of *text*: up to the first ``.``, ``:`` or ``;`` that ends a clause (not one inside
    `` `code` `` or parentheses, nor of ``e.g.`` / ``i.e.``), ending with a full stop."""
    import re

    outside = re.sub(r"`[^`]*`", lambda m: "x" * len(m.group()), text)  # no cut inside a code span
    depth = 0
    for i, ch in enumerate(outside):
        depth += (ch == "(") - (ch == ")")
        if depth or ch not in ".:;" or (i + 1 < len(outside) and not outside[i + 1].isspace()):
            continue  # inside parentheses, or not a clause's end (``x.y``)
        if outside[max(i - 3, 0):i + 1].lower() in ("e.g.", "i.e."):
            continue
        return text[:i].rstrip() + "."
    return text.rstrip(".") + "." if text else ""


def rule_descriptor(cls: type) -> dict[str, object]:
    """The ``reportingDescriptor`` of one rule class: id, name, descriptions, help, URI."""
    doc = cls.doc()
    short = _first_sentence(_first_paragraph(doc, "## What it flags")) or cls.name
    return {
        "id": cls.code,
        "name": "".join(part.title() for part in cls.name.split("-")),
        "shortDescription": {"text": short},
        "fullDescription": {"text": _first_paragraph(doc, "## Why is this bad?") or short},
        "help": {"text": "\n".join([cls.hint[0].upper() + cls.hint[1:] + ".",
                                     *(f"{kind}: {hint}" for kind, hint in getattr(cls, "hints", {}).items())]),
                 "markdown": doc},
        "helpUri": rule_doc_uri(cls.code),
        "defaultConfiguration": {"level": _level(cls.code)},
        "properties": {"tags": ["boundlint", cls.family(), cls.name]},
    }


def _inside(path: str, base: str) -> bool:
    rel = os.path.relpath(path, base)
    return rel != ".." and not rel.startswith(".." + os.sep)


def _base(paths: Iterable[str], cwd: str) -> str:
    """*cwd*, or the common directory of *paths* when one lies outside it."""
    full = [os.path.abspath(p) for p in paths]
    if all(_inside(p, cwd) for p in full):
        return cwd
    try:
        return os.path.commonpath([os.path.dirname(p) for p in full])
    except ValueError:  # paths on different drives
        return cwd


def _uri(path: str, base: str) -> tuple[str, str | None]:
    """``(uri, uriBaseId)``: relative under ``%SRCROOT%`` when *path* is under *base*."""
    full = os.path.abspath(path)
    if _inside(full, base):
        # quote() of the name's bytes: a non-UTF-8 name (surrogate escapes) is percent-encoded byte by byte.
        return quote(os.fsencode(os.path.relpath(full, base).replace(os.sep, "/"))), "%SRCROOT%"
    try:
        return Path(full).as_uri(), None
    except UnicodeEncodeError:
        return "file://" + quote(os.fsencode(full.replace(os.sep, "/"))), None


def _snippets(f: Finding, lines: list[str] | None) -> tuple[str | None, str | None]:
    """``(region text, whole flagged lines)`` of *f* in *lines*, or Nones when unknown."""
    if not lines or not 0 < f.line <= f.end_line <= len(lines):
        return None, None
    block = lines[f.line - 1:f.end_line]
    context = "\n".join(block) + "\n"
    if f.end_line == f.line:
        text = block[0][f.column - 1:f.end_column - 1]
    else:
        text = "\n".join([block[0][f.column - 1:], *block[1:-1], block[-1][:f.end_column - 1]])
    return text or None, context


_STEP = re.compile(r"^(?P<what>.*) \((?P<path>[^()]+):(?P<line>\d+)\)$")


def _related(evidence: Iterable[str], cwd: str) -> list[dict[str, object]]:
    """One SARIF related location per evidence step that names ``(path:line)``, its text as the message."""
    out: list[dict[str, object]] = []
    for number, step in enumerate(evidence):
        match = _STEP.match(step)
        if match is None:
            continue
        uri, base = _uri(match["path"], cwd)
        artifact: dict[str, object] = {"uri": uri}
        if base:
            artifact["uriBaseId"] = base
        out.append({"id": number, "message": {"text": match["what"]},
                    "physicalLocation": {"artifactLocation": artifact, "region": {"startLine": int(match["line"])}}})
    return out


def format_sarif(findings: Iterable[Finding], rules: Mapping[str, type], cwd: str | None = None,
                 sources: Mapping[str, list[str]] | None = None, settings: object = None) -> str:
    """A SARIF 2.1.0 log (JSON text) of *findings*; *rules* maps code -> rule class for ``tool.driver.rules``.

    Every code that has a finding is described, whether or not it is in *rules*.
    *sources* optionally maps a path to its lines, for snippets and for the ``fixes`` of findings
    that have one (``boundlint.fixes``; the numbers from *settings*, the run's Settings or set of them).
    """
    from boundlint.rules.base import all_rules

    findings = list(findings)
    cwd = _base({f.path for f in findings}, os.path.abspath(cwd or os.getcwd()))
    sources = sources or {}
    registry = all_rules()
    codes = sorted(set(rules) | {f.code for f in findings if f.code in registry})
    index = {code: i for i, code in enumerate(codes)}
    results = []
    fixes = {}
    if sources and any(f.fix for f in findings):
        from boundlint.fixes.export import sarif_fixes

        def artifact_for(path: str) -> dict:
            uri, base = _uri(path, cwd)
            return {"uri": uri, "uriBaseId": base} if base else {"uri": uri}

        fixes = sarif_fixes(findings, sources, artifact_for, settings)
    for f in findings:
        uri, base = _uri(f.path, cwd)
        artifact: dict[str, object] = {"uri": uri}
        if base:
            artifact["uriBaseId"] = base
        region: dict[str, object] = {"startLine": f.line, "startColumn": f.column}
        if (f.end_line, f.end_column) > (f.line, f.column):
            region.update(endLine=f.end_line, endColumn=f.end_column)
        physical: dict[str, object] = {"artifactLocation": artifact, "region": region}
        snippet, context = _snippets(f, sources.get(f.path))
        if snippet is not None:
            region["snippet"] = {"text": snippet}
        # A context region must be a proper superset of the region (SARIF 3.29.5).
        if context is not None and snippet is not None and snippet != context.rstrip("\n"):
            physical["contextRegion"] = {"startLine": f.line, "endLine": f.end_line, "snippet": {"text": context}}
        result: dict[str, object] = {
            "ruleId": f.code,
            "level": _level(f.code, f.severity),
            "message": {"text": f.message + (f"; {f.hint}" if f.hint else "")},
            "locations": [{"physicalLocation": physical}],
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        # As CodeQL queries do: how far the finding can be trusted, from the evidence behind it.
        result["properties"] = {"precision": f.severity, "severity": f.severity}
        if f.severity_reason:
            result["properties"]["severityReason"] = f.severity_reason
        if f.evidence:
            result["properties"]["evidence"] = list(f.evidence)
            related = _related(f.evidence, cwd)
            if related:
                result["relatedLocations"] = related
        if id(f) in fixes:
            result["fixes"] = fixes[id(f)]
        results.append(result)
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "boundlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": PROJECT_URI,
                "rules": [rule_descriptor(registry[c]) for c in codes],
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": Path(cwd).as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
    return json.dumps(log, indent=2) + "\n"
