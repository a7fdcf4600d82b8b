"""The audit report: summary and endpoint exposure map, built from the engine's results.

``build_report(results, seconds, root)`` takes the ``FileResult`` list of a
run with ``AuditCollector`` facts and returns an ``AuditReport``: a finding
whose evidence names a handler (``chains``) is that handler's, from any
module; the rest are linked through each module's own call graph.  Every
renderer reads only this.  ``AuditReport.to_dict()`` is the JSON schema
documented in ``docs/audit.md`` (``schema: "boundlint-audit/1"``).
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import asdict, dataclass, field

from boundlint.audit.chains import Claim, Claims, Step, api_name, claim_findings, key, request_name
from boundlint.audit.prefixes import full_route, prefix_of
from boundlint.audit.unreached import Loose, severity_counts, shown_path, unreached

SCHEMA = "boundlint-audit/1"
FAMILIES = {
    "BND0": "meta",
    "BND1": "unbounded fan-out",
    "BND2": "unbounded request shape",
    "BND3": "failure amplification",
    "BND4": "connection churn",
    "BND9": "meta",
}
# How far the same-module call graph is followed from a handler.
CALL_DEPTH = 3
RISK_RANK = {"high": 3, "medium": 2, "low": 1}
TOP = 10


@dataclass
class FanOut:
    """A fan-out site reachable from a handler; ``limit`` says what bounds it (None: unbounded)."""

    path: str
    line: int
    column: int
    api: str
    kind: str
    bounded: bool
    limit: str | None
    source: str | None
    target: str | None
    request_field: str | None  # the handler input the items come from, when known
    via: str | None  # the function it is in, when not the handler itself
    code: str | None  # the BND1xx finding on that line, if reported
    chain: list[Step] = field(default_factory=list)  # the finding's evidence, outermost first (see chains)


@dataclass
class RequestField:
    """A request collection a handler accepts; ``limit`` None means no size limit was found."""

    name: str
    type: str
    line: int
    limit: str | None
    code: str | None
    path: str = ""  # the file the field is declared in ("" in reports saved before chains: the handler's)
    chain: list[Step] = field(default_factory=list)


@dataclass
class Site:
    """A log-storm (BND3xx) or connection-churn (BND4xx) finding reachable from a handler."""

    code: str
    line: int
    message: str
    via: str | None
    path: str = ""  # the file of the finding ("" in reports saved before chains: the handler's)
    chain: list[Step] = field(default_factory=list)


@dataclass
class Handler:
    """One request handler in the exposure map, with its risk score (higher is riskier)."""

    path: str
    line: int
    name: str
    framework: str
    route: str
    risk: str
    score: int
    fanouts: list[FanOut] = field(default_factory=list)
    fields: list[RequestField] = field(default_factory=list)
    sites: list[Site] = field(default_factory=list)

    @property
    def unbounded_fanouts(self) -> list[FanOut]:
        """Fan-out sites with no limit."""
        return [f for f in self.fanouts if not f.bounded]

    @property
    def unbounded_fields(self) -> list[RequestField]:
        """Request fields with no size limit."""
        return [f for f in self.fields if f.limit is None]


@dataclass
class Summary:
    """Run totals: files, lines, seconds, findings per family and code, top files and folders."""

    files: int
    lines: int
    seconds: float
    findings: int
    by_family: dict[str, int]
    by_code: dict[str, int]
    top_files: list[tuple[str, int]]
    top_folders: list[tuple[str, int]]
    handlers: int
    handlers_by_framework: dict[str, int]
    unbounded_handlers: int
    by_severity: dict[str, int] = field(default_factory=dict)  # {"high": n, "medium": n, "low": n}


@dataclass
class AuditReport:
    """Summary plus the endpoint exposure map, riskiest handler first."""

    summary: Summary
    handlers: list[Handler]
    rule_names: dict[str, str] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)  # the audited paths, as given
    created: str = ""  # when the audit ran: ISO 8601 UTC, ``2026-12-01T14:21:43Z``
    unreached: list[Loose] = field(default_factory=list)  # findings no handler reaches, riskiest first
    findings: list[dict] = field(default_factory=list)  # every finding of the run (``Finding.as_dict`` + ``reached``)

    def to_dict(self) -> dict:
        """The stable JSON form (see docs/audit.md)."""
        from boundlint import __version__

        s = self.summary
        return {
            "schema": SCHEMA,
            "boundlint": __version__,
            "created": self.created,
            "paths": list(self.paths),
            "summary": {
                "files": s.files,
                "lines": s.lines,
                "seconds": round(s.seconds, 3),
                "findings": s.findings,
                "by_severity": dict(s.by_severity),
                "by_family": [{"family": k, "name": FAMILIES.get(k, ""), "count": v} for k, v in s.by_family.items()],
                "by_code": [{"code": k, "name": self.rule_names.get(k, ""), "count": v} for k, v in s.by_code.items()],
                "top_files": [{"path": p, "count": n} for p, n in s.top_files],
                "top_folders": [{"path": p, "count": n} for p, n in s.top_folders],
                "handlers": s.handlers,
                "handlers_by_framework": dict(s.handlers_by_framework),
                "unbounded_handlers": s.unbounded_handlers,
            },
            "handlers": [
                {
                    "path": h.path, "line": h.line, "name": h.name, "framework": h.framework, "route": h.route,
                    "risk": h.risk, "score": h.score,
                    "fanouts": [asdict(f) for f in h.fanouts],
                    "request_fields": [asdict(f) for f in h.fields],
                    "sites": [asdict(x) for x in h.sites],
                }
                for h in self.handlers
            ],
            "unreached": [asdict(x) for x in self.unreached],
            "findings": [dict(f) for f in self.findings],
        }


def report_from_dict(data: dict) -> AuditReport:
    """Rebuild an AuditReport from its JSON form (``to_dict()``), e.g. to render a saved audit again."""
    if data.get("schema") != SCHEMA:
        raise ValueError(f"not a {SCHEMA} report: schema {data.get('schema')!r}")
    s = data["summary"]
    summary = Summary(
        files=s["files"], lines=s["lines"], seconds=s["seconds"], findings=s["findings"],
        by_family={x["family"]: x["count"] for x in s["by_family"]},
        by_code={x["code"]: x["count"] for x in s["by_code"]},
        top_files=[(x["path"], x["count"]) for x in s["top_files"]],
        top_folders=[(x["path"], x["count"]) for x in s["top_folders"]],
        handlers=s["handlers"], handlers_by_framework=dict(s["handlers_by_framework"]),
        unbounded_handlers=s["unbounded_handlers"], by_severity=dict(s.get("by_severity", {})),
    )
    handlers = [
        Handler(h["path"], h["line"], h["name"], h["framework"], h["route"], h["risk"], h["score"],
                [FanOut(**_with_chain(f)) for f in h["fanouts"]],
                [RequestField(**_with_chain(f)) for f in h["request_fields"]],
                [Site(**_with_chain(x)) for x in h["sites"]])
        for h in data["handlers"]
    ]
    return AuditReport(summary, handlers, {x["code"]: x["name"] for x in s["by_code"]},
                       list(data.get("paths", [])), data.get("created", ""),
                       [Loose(**x) for x in data.get("unreached", ())], list(data.get("findings", ())))


def _with_chain(entry: dict) -> dict:
    """*entry* (a map entry's JSON) with its ``chain`` as ``Step`` objects."""
    return {**entry, "chain": [Step(**step) for step in entry.get("chain", ())]}


def _family(code: str) -> str:
    return code[:4]


def _innermost(functions: list[dict], line: int) -> int | None:
    """Index of the innermost function whose span holds *line*."""
    best, best_span = None, None
    for i, fn in enumerate(functions):
        if fn["start"] <= line <= fn["end"]:
            span = fn["end"] - fn["start"]
            if best_span is None or span < best_span:
                best, best_span = i, span
    return best


def _reachable(functions: list[dict], start: int) -> dict[int, int]:
    """Function index -> call depth, for the same-module functions *start* reaches within CALL_DEPTH calls."""
    seen = {start: 0}
    frontier = [start]
    for depth in range(1, CALL_DEPTH + 1):
        nxt = []
        for i in frontier:
            for callee in functions[i]["callees"]:
                if callee not in seen:
                    seen[callee] = depth
                    nxt.append(callee)
        frontier = nxt
    return seen


def _request_field(origin: str | None, params: list[str], fields: list[RequestField]) -> str | None:
    """The handler input a fan-out iterates: a parameter or one of its attributes."""
    if not origin:
        return None
    for f in fields:
        if f.name == origin:
            return f.name
    root = origin.split(".", 1)[0]
    if root not in params:
        return None
    for f in fields:
        if f.name == origin or origin.startswith(f.name + "."):
            return f.name
    parts = origin.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else origin


def _score(h: Handler) -> tuple[int, str]:
    score = 0
    for f in h.fanouts:
        if not f.bounded:
            score += 100 if f.request_field else 60
        else:
            score += 1
    score += 20 * len(h.unbounded_fields)
    score += 10 * len(h.sites)
    if h.unbounded_fanouts:
        risk = "high"
    elif h.unbounded_fields or h.sites:
        risk = "medium"
    else:
        risk = "low"
    return score, risk


_relative = shown_path


def build_report(results: list, seconds: float, root: str | None = None, rule_names: dict[str, str] | None = None) -> AuditReport:
    """The AuditReport for *results* (``FileResult`` with ``facts["audit"]``), paths shown relative to *root*."""
    findings = [f for r in results for f in r.findings]
    by_code = Counter(f.code for f in findings)
    by_family = Counter(_family(f.code) for f in findings)
    by_file = Counter(_relative(f.path, root) for f in findings)
    by_folder = Counter(os.path.dirname(_relative(f.path, root)) or "." for f in findings)
    claims = claim_findings(results)
    by_handler: dict[tuple[str, int], list[tuple[object, Claim]]] = {}
    for result in results:
        for f in result.findings:
            claim = claims.get(id(f))
            if claim is not None:
                by_handler.setdefault(claim.handler, []).append((f, claim))
    handlers: list[Handler] = []
    project = [(r.path, (r.facts or {}).get("audit") or {}) for r in results]
    for result in results:
        facts = (result.facts or {}).get("audit")
        if not facts or not facts["handlers"]:
            continue
        handlers.extend(_file_handlers(result, facts, root, claims, by_handler, project))
    handlers.sort(key=lambda h: (-RISK_RANK[h.risk], -h.score, h.path, h.line))
    summary = Summary(
        files=len(results),
        lines=sum(r.lines for r in results),
        seconds=seconds,
        findings=len(findings),
        by_family=dict(sorted(by_family.items())),
        by_code=dict(sorted(by_code.items())),
        top_files=sorted(by_file.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP],
        top_folders=sorted(by_folder.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP],
        handlers=len(handlers),
        handlers_by_framework=dict(sorted(Counter(h.framework for h in handlers).items())),
        unbounded_handlers=sum(1 for h in handlers if h.unbounded_fanouts),
        by_severity=severity_counts(findings),
    )
    loose = unreached(results, handlers, root)
    outside = {(x.path, x.line, x.column, x.code) for x in loose}
    every = [{**f.as_dict(), "path": shown_path(f.path, root),
              "reached": (shown_path(f.path, root), f.line, f.column, f.code) not in outside}
             for f in sorted(findings)]
    return AuditReport(summary, handlers, dict(rule_names or {}), unreached=loose, findings=every)


def _file_handlers(result, facts: dict, root: str | None, claims: Claims, by_handler: dict,
                   project: list | None = None) -> list[Handler]:
    """The map entries of the handlers in one file.

    Findings whose evidence names a handler (*claims*) go to that handler only, from any file,
    with their chain; the others are linked through the file's own call graph (CALL_DEPTH).
    """
    shown = _relative(result.path, root)
    home = key(result.path)
    functions = facts["functions"]
    out = []
    for number, h in enumerate(facts["handlers"]):
        me = (home, number)
        # Findings another handler's evidence claims are that handler's, not this one's.
        own = [f for f in result.findings if claims.get(id(f)) is None or claims[id(f)].handler == me]
        codes_at: dict[int, list] = {}
        for f in own:
            codes_at.setdefault(f.line, []).append(f)
        taken = {f.line for f in result.findings if f.code.startswith("BND1") and id(f) in claims
                 and claims[id(f)].handler != me}
        index = h["function"]
        fn = functions[index]
        reach = _reachable(functions, index)
        fields = []
        field_lines = set()
        for item in h["fields"]:
            code = next((f.code for f in codes_at.get(item["line"], ()) if f.code.startswith("BND2")), None)
            limit = item["limit"]
            fields.append(RequestField(item["name"], item["type"], item["line"], None if code else limit, code, shown))
            field_lines.add(item["line"])
        # BND2xx findings on the handler's own lines that no field record explains (e.g. its signature).
        for f in own:
            if f.code.startswith("BND2") and fn["start"] <= f.line <= fn["end"] and f.line not in field_lines:
                if _innermost(functions, f.line) == index:
                    fields.append(RequestField(f.message, "", f.line, None, f.code, shown))
                    field_lines.add(f.line)
        fanouts = []
        for s in facts["spawns"]:
            if s["function"] is None or s["function"] not in reach or s["line"] in taken:
                continue
            via = functions[s["function"]]["name"] if s["function"] != index else None
            code = next((f.code for f in codes_at.get(s["line"], ()) if f.code.startswith("BND1")), None)
            bounded = s["bounded"] and code is None
            request_field = _request_field(s["origin"], h["params"], fields) if via is None else None
            fanouts.append(FanOut(shown, s["line"], s["column"], s["api"], s["kind"], bounded,
                                  s["limit"] if bounded else None, s["source"], s["target"], request_field, via, code))
        sites = []
        for f in own:
            if not f.code.startswith(("BND3", "BND4")):
                continue
            owner = _innermost(functions, f.line)
            if owner is not None and owner in reach:
                sites.append(Site(f.code, f.line, f.message, functions[owner]["name"] if owner != index else None, shown))
        route = h["route"]
        if h.get("receiver") or h.get("controller"):  # a route decorator's router: its prefixes, or "unknown"
            route = full_route(route, prefix_of(result.path, facts, h, project or []))
        handler = Handler(shown, fn["line"], fn["name"], h["framework"], route, "", 0, fanouts, fields, sites)
        for f, claim in by_handler.get(me, ()):
            _place(handler, f, claim, root)
        fanouts.sort(key=lambda x: (x.bounded, x.path != shown, x.path, x.line, x.column))
        handler.score, handler.risk = _score(handler)
        out.append(handler)
    return out


def _place(handler: Handler, f, claim: Claim, root: str | None) -> None:
    """Put the claimed finding *f* in *handler*'s entry, with its chain: on the entry already there
    for its file and line (the same-module call graph found it), else as a new entry."""
    path = _relative(f.path, root)
    chain = [Step(s.what, _relative(s.path, root) if s.path else "", s.line) for s in claim.steps]
    family = f.code[:4]
    if family == "BND1":
        for x in handler.fanouts:
            if x.path == path and x.line == f.line and x.code == f.code:
                x.chain = chain
                return
        handler.fanouts.append(FanOut(path, f.line, f.column, api_name(f.message) or f.code, "", False, None, None,
                                      None, request_name(claim.steps[claim.at]), None, f.code, chain))
    elif family == "BND2":
        for x in handler.fields:
            if (x.path or handler.path) == path and x.line == f.line and x.code == f.code:
                x.chain = chain
                return
        handler.fields.append(RequestField(request_name(claim.steps[0]) or f.message, "", f.line, None, f.code, path,
                                           chain))
    else:
        for x in handler.sites:
            if (x.path or handler.path) == path and x.line == f.line and x.code == f.code:
                x.chain = chain
                return
        handler.sites.append(Site(f.code, f.line, f.message, None, path, chain))
