"""``boundlint audit``: the endpoint exposure map on a multi-framework app, every format, the CLI contract."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from boundlint.audit import collect, render
from boundlint.audit.cells import fanout_text, field_text
from boundlint.audit.collector import AuditCollector
from boundlint.audit.model import build_report
from boundlint.audit.progress import Progress
from boundlint.audit.render_terminal import render_plain
from boundlint.cli import main
from boundlint.config import Settings
from boundlint.engine import check_files, check_source

HERE = Path(__file__).parent
APP = HERE / "fixtures_audit"
ROOT = HERE.parent


def _report(path: Path = APP, settings: Settings | None = None):
    results, seconds = collect([str(path)], settings or Settings(), root=None, jobs=1)
    return build_report(results, seconds, str(path))


@pytest.fixture(scope="module")
def report():
    return _report()


def _rows(report):
    return [
        (h.path, h.line, h.name, h.framework, h.route, h.risk,
         [fanout_text(f) for f in h.fanouts],
         [field_text(f) for f in h.fields],
         [(s.code, s.line, s.via) for s in h.sites])
        for h in report.handlers
    ]


EXPECTED_MAP = [
    ("grpc_service.py", 24, "PostsServicer.GetPosts", "grpc", "rpc GetPosts", "high",
     ["L25 asyncio.gather over request.uris -> hydrate: UNBOUNDED (request field request.uris) [BND101]"],
     ["request.uris (repeated): no size limit [BND203]"],
     [("BND401", 13, "hydrate"), ("BND302", 17, "hydrate")]),
    ("fastapi_app.py", 28, "lookup", "fastapi", "POST /posts/lookup", "high",
     ["L29 asyncio.gather over req.uris -> fetch: UNBOUNDED (request field req.uris) [BND101]"],
     ["LookupRequest.uris (list[str]): no size limit [BND201]",
      "LookupRequest.tags (list[str]): limited by `Field(max_...)`"],
     [("BND401", 18, "fetch")]),
    ("flask_app.py", 18, "export", "flask", "POST /export", "high",
     ["L21 pool.map over ids -> render: UNBOUNDED (request field query `id`) [BND104]"],
     ["query `id` (list): no size limit"],
     [("BND302", 14, "render")]),
    (os.path.join("shop", "views.py"), 17, "OrderView.post", "django", "POST", "high",
     ['L19 threading.Thread(...).start over request.POST.getlist("order") -> reindex: UNBOUNDED '
      "(request field query `order`) [BND103]"],
     ["query `order` (list): no size limit"],
     []),
    ("sanic_app.py", 14, "notify", "sanic", "POST /notify", "high",
     ['L16 asyncio.ensure_future over request.json["users"] -> send: UNBOUNDED (request field request.json) [BND102]'],
     [], []),
    ("starlette_app.py", 18, "Jobs.post", "starlette", "POST", "high",
     ['L21 asyncio.create_task over data["items"] -> process: UNBOUNDED (request field request.json) [BND102]'],
     [], []),
    ("fastapi_app.py", 33, "get_posts", "fastapi", "GET /posts", "medium",
     ["L34 asyncio.gather over ids -> fetch_limited: bounded: a limiter in `fetch_limited`"],
     ["ids (list[str]): limited by `Query(max_...)`"],
     [("BND401", 18, "fetch")]),
    ("aiohttp_app.py", 18, "upload", "aiohttp", "POST /upload", "low",
     ["L20 executor.map over blobs -> resize: bounded: a pool of `8` workers"], [], []),
    ("fastapi_app.py", 38, "health", "fastapi", "GET /health", "low",
     ["L39 asyncio.gather: bounded: a fixed set of 2 awaitables"], [], []),
    ("litestar_app.py", 17, "batch", "litestar", "POST /batch", "low",
     ["L21 tg.start_soon over data.runs -> execute: bounded: a limiter in `execute`"],
     ["BatchRequest.runs (Annotated[list[str], Meta(max_length=100)]): limited by `Meta(max_...)`"], []),
    ("aiohttp_app.py", 14, "health", "aiohttp", "GET /health", "low", [], [], []),
    ("fastapi_app.py", 51, "me", "fastapi", "GET /me", "low", [], [], []),
    ("grpc_service.py", 28, "PostsServicer.CountPosts", "grpc", "rpc CountPosts", "low", [],
     ["request.uris (repeated): limited by len(request.uris) checked"], []),
    (os.path.join("shop", "views.py"), 11, "order_list", "django", "", "low", [],
     ["query `id` (list): limited by a constant-bound slice"], []),
    ("starlette_app.py", 13, "homepage", "starlette", "/", "low", [], [], []),
]


def test_exposure_map_rows(report):
    assert _rows(report) == EXPECTED_MAP


def test_summary(report):
    s = report.summary
    assert (s.files, s.handlers, s.unbounded_handlers) == (8, 15, 6)
    assert s.handlers_by_framework == {"aiohttp": 2, "django": 2, "fastapi": 4, "flask": 1, "grpc": 2,
                                       "litestar": 1, "sanic": 1, "starlette": 2}
    assert s.by_family["BND1"] == 6
    assert s.top_files[0] == ("grpc_service.py", 4)
    assert s.lines == sum(len(p.read_text().splitlines()) for p in APP.rglob("*.py"))


def test_examples_incident_handler_is_unbounded():
    rep = _report(ROOT / "examples")
    first = rep.handlers[0]
    assert (first.path, first.name, first.risk) == ("incident_handler.py", "PostsServicer.GetPosts", "high")
    [fan] = first.unbounded_fanouts
    assert (fan.line, fan.api, fan.source, fan.request_field, fan.code) == (40, "asyncio.gather", "request.uris", "request.uris", "BND101")
    assert [(f.name, f.limit) for f in first.fields] == [("request.uris", None)]
    fixed = rep.handlers[1]
    assert (fixed.path, fixed.risk, [f.bounded for f in fixed.fanouts]) == ("fixed_handler.py", "low", [True])


def test_collector_facts_cross_worker_processes():
    """Facts come back from forked workers (pickled) and equal the in-process ones."""
    path = str(APP / "grpc_service.py")
    facts: dict = {}
    check_source(Path(path).read_text(), path, Settings(), collectors=(AuditCollector,), facts=facts)
    [result] = check_files([path], Settings(), jobs=1, collectors=(AuditCollector,))
    assert result.facts == facts
    assert [fn["name"] for fn in facts["audit"]["functions"]] == [
        "hydrate", "PostsServicer.GetPosts", "PostsServicer.CountPosts", "PostsServicer._helper"]
    assert [h["route"] for h in facts["audit"]["handlers"]] == ["rpc GetPosts", "rpc CountPosts"]
    # Without collectors nothing changes for the check command.
    assert check_files([path], Settings(), jobs=1)[0].facts is None


CONFIGURED = '''
import asyncio
from myrpc import endpoint, Service

@endpoint("lookup")
async def lookup(ids):
    await asyncio.gather(*(fetch(i) for i in ids))

class Posts(Service):
    async def list_posts(self, ids):
        for i in ids:
            asyncio.create_task(fetch(i))

    def _private(self):
        pass

async def not_a_handler(ids):
    await asyncio.gather(*(fetch(i) for i in ids))
'''


def test_configured_handler_decorators_and_bases(tmp_path):
    (tmp_path / "svc.py").write_text(CONFIGURED)
    settings = Settings(extra=(("handler-decorators", ("myrpc.endpoint",)), ("handler-bases", ("myrpc.Service",))))
    rep = _report(tmp_path, settings)
    assert [(h.name, h.framework, h.route, h.risk, [f.request_field for f in h.fanouts]) for h in rep.handlers] == [
        ("lookup", "configured", "lookup", "high", ["ids"]),
        ("Posts.list_posts", "configured", "list_posts", "high", ["ids"]),
    ]
    assert [h.name for h in _report(tmp_path).handlers] == []


def test_collector_failure_is_isolated(monkeypatch):
    def boom(self, position):
        raise RuntimeError("broken")

    monkeypatch.setattr(AuditCollector, "facts", boom)
    text = (APP / "grpc_service.py").read_text()
    facts: dict = {}
    findings = check_source(text, "grpc_service.py", Settings(), collectors=(AuditCollector,), facts=facts)
    assert "audit" not in facts
    assert [f.code for f in findings if f.code == "BND002"] == ["BND002"]
    assert {"BND101", "BND203"} <= {f.code for f in findings}


# -- formats ----------------------------------------------------------------------------

def test_json_schema_is_stable_and_documented(report):
    data = json.loads(render(report, "json"))
    assert data["schema"] == "boundlint-audit/1"
    assert list(data) == ["schema", "boundlint", "created", "paths", "summary", "handlers", "unreached", "findings"]
    assert list(data["handlers"][0]) == ["path", "line", "name", "framework", "route", "risk", "score",
                                         "fanouts", "request_fields", "sites"]
    first = data["handlers"][0]
    assert first["fanouts"][0] == {
        "path": "grpc_service.py", "line": 25, "column": 23, "api": "asyncio.gather", "kind": "gather",
        "bounded": False, "limit": None, "source": "request.uris", "target": "hydrate",
        "request_field": "request.uris", "via": None, "code": "BND101", "chain": [],
    }
    doc = (ROOT / "docs" / "audit.md").read_text()
    keys = set(data) | set(data["summary"]) | set(first) | set(first["fanouts"][0]) | set(first["request_fields"][0])
    keys |= set(first["sites"][0]) | set(data["summary"]["by_code"][0]) | set(data["summary"]["top_files"][0])
    keys |= {"what"}  # a chain step: what, path, line
    keys |= set(data["findings"][0]) | set(data["summary"]["by_severity"])
    missing = sorted(k for k in keys if f"`{k}`" not in doc)
    assert missing == []


def test_markdown(report):
    text = render(report, "markdown")
    assert text.startswith("# boundlint audit\n")
    row = next(line for line in text.splitlines() if "PostsServicer.GetPosts" in line)
    assert row.startswith("| high | `PostsServicer.GetPosts`<br>grpc_service.py:24 | grpc rpc GetPosts | L25 asyncio.gather")
    assert row.count(" | ") == 5


def test_terminal_rich_and_plain(report):
    pytest.importorskip("rich")
    text = render(report, "terminal", top=3, width=80)
    assert "Endpoint exposure map" in text and "PostsServicer.GetPosts" in text
    assert "12 more handlers (--top 0 shows all)" in text
    assert "\x1b[" not in text  # no colour when not asked
    plain = render_plain(report, top=0, width=80)
    assert "HIGH    PostsServicer.GetPosts  grpc rpc GetPosts  grpc_service.py:24" in plain
    assert "  fan-out  L25 asyncio.gather UNBOUNDED over request.uris -> hydrate [BND101]" in plain
    assert render(report, "terminal", top=3, color=True, width=80).count("\x1b[") > 20


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[str] = []
        self.external: list[str] = []
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None
        self._table = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            # Links (to rule pages) are fine; nothing the page loads may come from elsewhere.
            if (name == "src" or (name == "href" and tag != "a")) and value and not value.startswith("#"):
                self.external.append(value)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_html_parses_self_contained(report):
    page = _Page()
    page.feed(render(report, "html"))
    assert page.external == [] and "link" not in page.tags and "img" not in page.tags
    assert page.tags.count("table") == 5
    header, *rows = page.rows[: 1 + len(report.handlers)]
    assert header == ["risk", "handler", "route", "fan-out sites", "request fields", "log-storm / churn sites"]
    assert [r[1] for r in rows] == [f"{h.name}{h.path}:{h.line}" for h in report.handlers]
    assert rows[0][0] == "high" and "UNBOUNDED (request field request.uris) [BND101]" in rows[0][3]


# The page and the terminal report in headless Chromium: tests/test_audit_render.py.


# -- command line ------------------------------------------------------------------------

def _tree(path: Path) -> list[tuple[str, float]]:
    return sorted((str(p), p.stat().st_mtime) for p in path.rglob("*"))


def test_cli_exit_codes_and_writes_only_output(tmp_path, capsys):
    before = _tree(APP)
    assert main(["audit", "--isolated", "-j", "1", "--format", "json", str(APP)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["handlers"] == 15
    assert main(["audit", "--isolated", "-j", "1", "--fail-on", "BND1", "-q", str(APP)]) == 1
    assert main(["audit", "--isolated", "-j", "1", "--fail-on", "BND9", "-q", str(APP)]) == 0
    capsys.readouterr()
    out = tmp_path / "report.md"
    assert main(["audit", "--isolated", "-j", "1", "--format", "markdown", "--output", str(out), "-q", str(APP)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""
    assert out.read_text().startswith("# boundlint audit")
    assert _tree(APP) == before
    assert not list(APP.rglob("__pycache__"))


def test_cli_errors(capsys):
    assert main(["audit", "--isolated", "no/such/path"]) == 2
    assert main(["audit", "--isolated", "--fail-on", "fanout", str(APP)]) == 2
    err = capsys.readouterr().err
    assert err.count("boundlint: error:") == 2


def test_no_progress_bar_when_piped():
    proc = subprocess.run([sys.executable, "-m", "boundlint", "audit", "--isolated", "-j", "1", str(APP / "grpc_service.py")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""
    assert "PostsServicer.GetPosts" in proc.stdout


def test_progress_line():
    class Sink:
        def __init__(self):
            self.text = ""

        def write(self, s):
            self.text += s

        def flush(self):
            pass

    sink = Sink()
    bar = Progress(sink, width=10)
    line = bar.line(50, 200, bar.started + 10)
    assert line == "auditing [##--------] 50/200 files  5 files/s  ETA 0:30"
    bar(200, 200)
    bar.close()
    assert re.search(r"200/200 files", sink.text) and sink.text.endswith("\r\x1b[K")


def test_collector_skipped_where_no_handler_can_be():
    text = "import asyncio\n\nasync def f(ids):\n    await asyncio.gather(*(g(i) for i in ids))\n"
    facts: dict = {}
    findings = check_source(text, "lib.py", Settings(), collectors=(AuditCollector,), facts=facts)
    assert facts == {} and [f.code for f in findings] == ["BND101"]
    configured = Settings(extra=(("handler-decorators", ("myrpc.endpoint",)),))
    check_source(text + "from myrpc import endpoint\n", "lib.py", configured, collectors=(AuditCollector,), facts=facts)
    assert list(facts) == ["audit"]


def test_json_round_trip(report):
    from boundlint.audit.model import report_from_dict

    data = json.loads(render(report, "json"))
    again = report_from_dict(data)
    assert json.loads(render(again, "json")) == data
    assert render(again, "markdown") == render(report, "markdown")


def test_configured_handlers_from_pyproject(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.boundlint.audit]\nhandler-decorators = ["myrpc.endpoint"]\nhandler-bases = ["myrpc.Service"]\n')
    (tmp_path / "svc.py").write_text(CONFIGURED)
    assert main(["audit", "-j", "1", "--format", "json", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(h["name"], h["framework"]) for h in data["handlers"]] == [("lookup", "configured"), ("Posts.list_posts", "configured")]
