"""Which handler a finding belongs to, read from the evidence chain the finding carries.

A finding's ``evidence`` (see ``boundlint.findings.Finding``) is the chain that
makes it a hazard, outermost first, each step ``"what (path:line)"`` with the
path relative to the working directory.  When a step names the file and line
of a recognised request handler, the finding belongs to that handler's entry
in the exposure map, whatever module it is reported in.  The audit does not
judge again: it only matches the locations the rules wrote down.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

# Only these families have map entries (fan-out, request fields, log-storm and churn sites).
MAPPED = ("BND1", "BND2", "BND3", "BND4")
_STEP = re.compile(r"^(?P<what>.*) \((?P<path>[^()]+):(?P<line>\d+)\)$")
_NAMED = re.compile(r"^(?:request input|request field|parameter) `(?P<name>[^`]+)`")


@dataclass
class Step:
    """One step of an evidence chain: what happens, at *path* (shown as in the report) and 1-based *line*.

    *path* is "" and *line* 0 for a step that names no place.
    """

    what: str
    path: str
    line: int


@dataclass
class Claim:
    """A finding that belongs to a handler: ``handler`` is ``(absolute path, index in the file's handlers)``."""

    handler: tuple[str, int]
    steps: list[Step]  # paths as written in the evidence (relative to the working directory)
    at: int  # index of the step that names the handler


Claims = dict  # id(finding) -> Claim


def parse_step(text: str) -> Step:
    """``"what (path:line)"`` -> ``Step(what, path, line)``; text without a place -> ``Step(text, "", 0)``."""
    m = _STEP.match(text)
    if m is None:
        return Step(text, "", 0)
    return Step(m["what"], m["path"], int(m["line"]))


def key(path: str) -> str:
    """The form paths are compared in: absolute and normalised (``./a/../b.py`` -> ``/cwd/b.py``)."""
    return os.path.normcase(os.path.abspath(os.path.normpath(path)))


def handler_places(results: list) -> dict[tuple[str, int], tuple[str, int]]:
    """``(key(path), line) -> (key(path), handler index)`` for every handler in *results*.

    A handler is found at its ``def`` line (what the evidence names), the first line of its
    node and its first decorator's line, so a chain that names any of them matches.
    """
    places: dict[tuple[str, int], tuple[str, int]] = {}
    for result in results:
        facts = (result.facts or {}).get("audit")
        if not facts:
            continue
        path = key(result.path)
        for i, h in enumerate(facts["handlers"]):
            fn = facts["functions"][h["function"]]
            for line in (fn["line"], fn["start"], fn.get("top", fn["start"])):
                places.setdefault((path, line), (path, i))
    return places


def claim_findings(results: list) -> Claims:
    """The findings of *results* whose evidence names a handler: ``id(finding) -> Claim``.

    The outermost step naming a handler wins, so each finding belongs to one handler at most.
    Findings without evidence, or whose chain names no handler, are not claimed.
    """
    places = handler_places(results)
    claims: Claims = {}
    if not places:
        return claims
    for result in results:
        for f in result.findings:
            evidence = getattr(f, "evidence", ()) or ()
            if not evidence or not f.code.startswith(MAPPED):
                continue
            steps = [parse_step(text) for text in evidence]
            for at, step in enumerate(steps):
                handler = places.get((key(step.path), step.line)) if step.path else None
                if handler is not None:
                    claims[id(f)] = Claim(handler, steps, at)
                    break
    return claims


def request_name(step: Step) -> str | None:
    """The request input a step names: ``body.ids`` of "request input `body.ids` of `lookup()` ..."."""
    m = _NAMED.match(step.what)
    return m["name"] if m else None


def api_name(message: str) -> str:
    """The call a fan-out message starts with: ``asyncio.gather`` of "`asyncio.gather(...)` starts ...", else ""."""
    m = re.match(r"`([^`(]+)", message)
    return m.group(1) if m else ""
