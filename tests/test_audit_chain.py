"""The exposure map across modules: findings go to the handler their evidence chain names."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from boundlint.audit import collect, render
from boundlint.audit.chains import Step, parse_step
from boundlint.audit.model import build_report, report_from_dict
from boundlint.config import Settings

ROOT = Path(__file__).resolve().parent.parent
LOOKUP = ROOT / "tests" / "fixtures" / "projects" / "lookup_service"

ROUTES = "lookup_service/api/routes.py"
CHAIN = [
    {"what": "request input `body.ids` of `lookup()` POST /lookup", "path": ROUTES, "line": 11},
    {"what": "`lookup_all(ids)` called by `lookup()`", "path": ROUTES, "line": 12},
    {"what": "one `fetch()` per item of `ids`, passed to `run_all()`", "path": "lookup_service/core/service.py",
     "line": 12},
]
FANOUT = {
    "path": "lookup_service/core/fanout.py", "line": 8, "column": 18, "api": "asyncio.gather", "kind": "",
    "bounded": False, "limit": None, "source": None, "target": None, "request_field": "body.ids", "via": None,
    "code": "BND101", "chain": CHAIN,
}
FIELD = {
    "name": "Lookup.ids", "type": "", "line": 7, "limit": None, "code": "BND201", "path": "lookup_service/schemas.py",
    "chain": [
        {"what": "request field `Lookup.ids`", "path": "lookup_service/schemas.py", "line": 7},
        {"what": "parameter `body` of `lookup()` POST /lookup", "path": ROUTES, "line": 11},
    ],
}


def _audit(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "boundlint", "audit", "--isolated", "-j", "1", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "80", "SOURCE_DATE_EPOCH": "1796135703"})


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of the lookup_service fixture under a temporary folder the audit runs from."""
    where = tmp_path_factory.mktemp("chain")
    shutil.copytree(LOOKUP, where / "lookup_service")
    return where


@pytest.fixture(scope="module")
def lookup_json(project) -> dict:
    proc = _audit(project, "--format", "json", ".")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _handler(data: dict, name: str) -> dict:
    return next(h for h in data["handlers"] if h["name"] == name)


def test_json_chain_across_modules(lookup_json):
    lookup = _handler(lookup_json, "lookup")
    assert (lookup["path"], lookup["line"], lookup["route"], lookup["risk"]) == (ROUTES, 11, "POST /lookup (prefix unknown)", "high")
    assert lookup["fanouts"] == [FANOUT]
    assert lookup["request_fields"] == [FIELD]
    assert lookup["sites"] == []
    assert lookup["score"] == 120  # 100 for the fan-out fed by body.ids, 20 for the unbounded field


def test_finding_with_evidence_is_listed_under_its_handler_only(lookup_json):
    # lookup_first() takes the same Lookup body and calls the same run_all(): the evidence names lookup().
    placed = [(h["name"], e["code"]) for h in lookup_json["handlers"]
              for e in (*h["fanouts"], *h["request_fields"], *h["sites"]) if e["code"]]
    assert placed == [("lookup", "BND101"), ("lookup", "BND201")]
    assert [(h["name"], h["risk"]) for h in lookup_json["handlers"]] == [
        ("lookup", "high"), ("lookup_first", "low"), ("export", "low"), ("report", "low")]
    assert lookup_json["summary"]["unbounded_handlers"] == 1


def test_terminal_via_line(project):
    proc = _audit(project, ".")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    # The router is mounted nowhere in the fixture, so its prefix is not known.
    start = lines.index("HIGH    lookup  fastapi POST /lookup (prefix unknown)")
    assert lines[start:start + 6] == [
        "HIGH    lookup  fastapi POST /lookup (prefix unknown)",
        "        lookup_service/api/routes.py:11",
        "  fan-out  lookup_service/core/fanout.py:8 asyncio.gather UNBOUNDED over",
        "           body.ids [BND101]",
        "  via      lookup_service/api/routes.py:12 -> lookup_service/core/service.py:12",
        "  field    Lookup.ids (lookup_service/schemas.py:7): no size limit [BND201]",
    ]
    assert lines[start + 6] == ""
    assert max(len(line) for line in lines) <= 80


def test_chain_paths_are_spelled_as_check_prints_them(project):
    """Audited as one folder, every path is relative to the working directory, as `check` prints it, the chain's too."""
    proc = _audit(project, "lookup_service")
    lines = proc.stdout.splitlines()
    start = lines.index("HIGH    lookup  fastapi POST /lookup (prefix unknown)")
    assert lines[start + 2:start + 5] == [
        "  fan-out  lookup_service/core/fanout.py:8 asyncio.gather UNBOUNDED over",
        "           body.ids [BND101]",
        "  via      lookup_service/api/routes.py:12 -> lookup_service/core/service.py:12",
    ]
    data = json.loads(_audit(project, "--format", "json", "lookup_service").stdout)
    assert [(s["path"], s["line"]) for s in _handler(data, "lookup")["fanouts"][0]["chain"]] == [
        ("lookup_service/api/routes.py", 11), ("lookup_service/api/routes.py", 12),
        ("lookup_service/core/service.py", 12)]


def test_markdown_and_html_show_the_whole_chain(project):
    md = _audit(project, "--format", "markdown", ".").stdout
    row = next(line for line in md.splitlines() if line.startswith("| high | `lookup`"))
    assert ("lookup_service/core/fanout.py:8 asyncio.gather: UNBOUNDED (request field body.ids) [BND101]<br>"
            "via: request input `body.ids` of `lookup()` POST /lookup (lookup_service/api/routes.py:11) -> "
            "`lookup_all(ids)` called by `lookup()` (lookup_service/api/routes.py:12) -> one `fetch()` per item of "
            "`ids`, passed to `run_all()` (lookup_service/core/service.py:12) |") in row
    page = _audit(project, "--format", "html", ".").stdout
    assert ('<li class="via">via: request input <code>body.ids</code> of <code>lookup()</code> POST /lookup '
            "(lookup_service/api/routes.py:11) -&gt; <code>lookup_all(ids)</code> called by <code>lookup()</code> "
            "(lookup_service/api/routes.py:12) -&gt; one <code>fetch()</code> per item of <code>ids</code>, passed to "
            "<code>run_all()</code> (lookup_service/core/service.py:12)</li>") in page


def test_saved_report_keeps_its_chains(lookup_json):
    again = json.loads(render(report_from_dict(lookup_json), "json"))
    assert _handler(again, "lookup")["fanouts"] == [FANOUT]
    del lookup_json["handlers"][0]["fanouts"][0]["chain"]  # a report saved before chains existed
    old = report_from_dict(lookup_json)
    assert old.handlers[0].fanouts[0].chain == []


def test_examples_single_module_still_mapped():
    proc = _audit(ROOT / "examples", ".")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    start = lines.index("HIGH    PostsServicer.GetPosts  grpc rpc GetPosts  incident_handler.py:39")
    assert lines[start + 1:start + 3] == [
        "  fan-out  L40 asyncio.gather UNBOUNDED over request.uris -> hydrate [BND101]",
        "  field    request.uris (repeated): no size limit [BND203]",
    ]
    assert lines[start + 3].startswith("  site     L27 BND401 (in hydrate): ")
    assert not any(line.startswith("  via") for line in lines)  # no evidence chains in one module here


SHARED = '''import asyncio

from fastapi import FastAPI

app = FastAPI()


async def fetch(i: str) -> dict:
    return {"id": i}


async def fan(ids: list[str]) -> list[dict]:
    return await asyncio.gather(*[fetch(i) for i in ids])


@app.post("/a")
async def first(ids: list[str]) -> list[dict]:
    return await fan(ids)


@app.post("/b")
async def second(ids: list[str]) -> list[dict]:
    return await fan(ids)
'''


def test_evidence_naming_a_decorator_line_claims_the_finding_for_that_handler_only(tmp_path):
    (tmp_path / "shared.py").write_text(SHARED)
    results, _ = collect([str(tmp_path)], Settings(), jobs=1)
    path = str(tmp_path / "shared.py")

    def codes(report):
        return {h.name: [f.code for f in h.fanouts if f.code] for h in report.handlers}

    # Without evidence both handlers reach fan() in their module: both list its BND101.
    assert codes(build_report(results, 0.0, str(tmp_path))) == {"first": ["BND101"], "second": ["BND101"]}
    (result,) = results
    result.findings = [
        f._replace(evidence=(f"request input `ids` of `second()` POST /b ({path}:21)",
                             f"`fan(ids)` called by `second()` ({path}:23)"))
        if f.code == "BND101" else f
        for f in result.findings
    ]
    report = build_report(results, 0.0, str(tmp_path))
    assert codes(report) == {"first": [], "second": ["BND101"]}
    second = next(h for h in report.handlers if h.name == "second")
    # Found by the module's own call graph too: one entry, with the chain, not two.
    assert len(second.fanouts) == 1
    assert second.fanouts[0].via == "fan" and second.fanouts[0].line == 13
    assert second.fanouts[0].chain == [Step("request input `ids` of `second()` POST /b", "shared.py", 21),
                                       Step("`fan(ids)` called by `second()`", "shared.py", 23)]
    first = next(h for h in report.handlers if h.name == "first")
    assert [f.line for f in first.fanouts] == []


def test_parse_step():
    assert parse_step("`f(x)` called by `g()` (a/b.py:12)") == Step("`f(x)` called by `g()`", "a/b.py", 12)
    assert parse_step("no place here") == Step("no place here", "", 0)
