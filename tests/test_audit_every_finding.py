"""The audit shows every finding and speaks check's language: the "not reached from a handler" section in
every format, severity counts, the JSON's full finding list, check's flags, cache and paths."""
from __future__ import annotations

import json
import re

import pytest

from boundlint.cli import build_parser, main

WORKER = """\
import logging
import boto3

log = logging.getLogger(__name__)
sqs = boto3.client("sqs")


def consume(queue_url):
    while True:
        messages = sqs.receive_message(QueueUrl=queue_url)["Messages"]
        for m in messages:
            try:
                handle(m)
            except Exception:
                log.error("failed to handle %s", m["MessageId"])


def handle(m):
    sqs.delete_message(ReceiptHandle=m["ReceiptHandle"])
"""

ROUTES = """\
import asyncio
from fastapi import FastAPI

app = FastAPI()


@app.post("/lookup")
async def lookup(ids: list[str]):
    return await asyncio.gather(*(fetch(i) for i in ids))


async def fetch(i):
    return await client.get(i)
"""


@pytest.fixture
def tree(tmp_path, monkeypatch):
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "worker.py").write_text(WORKER, encoding="utf-8")
    (tmp_path / "svc" / "routes.py").write_text(ROUTES, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _audit(capsys, *args) -> str:
    assert main(["audit", "--isolated", "-j", "1", "-q", *args]) == 0
    return capsys.readouterr().out


def test_json_lists_every_finding_check_gives_at_low_severity(tree, capsys):
    assert main(["check", "--isolated", "-j", "1", "--no-cache", "--min-severity", "low", "--output-format", "json",
                 "svc"]) == 1
    checked = json.loads(capsys.readouterr().out)
    data = json.loads(_audit(capsys, "--no-cache", "--output-format", "json", "svc"))
    strip = [{k: v for k, v in f.items() if k != "reached"} for f in data["findings"]]
    assert strip == checked
    assert len(checked) >= 3
    assert {(f["path"], f["code"], f["reached"]) for f in data["findings"]} >= {
        ("svc/worker.py", "BND301", False), ("svc/routes.py", "BND101", True)}
    assert data["summary"]["by_severity"] == {s: sum(f["severity"] == s for f in checked) for s in ("high", "medium", "low")}
    assert data["unreached"][0] == {"path": "svc/worker.py", "line": 15, "column": 17, "code": "BND301",
                                    "severity": "high", "function": None,
                                    "message": "`log.error(...)` logs an error on every failed iteration of a loop "
                                               "over `messages`"}
    # Riskiest first, and nothing the map shows is listed again.
    ranks = [("high", "medium", "low").index(x["severity"]) for x in data["unreached"]]
    assert ranks == sorted(ranks)
    assert not any(x["path"] == "svc/routes.py" and x["code"] == "BND101" for x in data["unreached"])


def test_every_format_has_the_not_reached_section(tree, capsys):
    terminal = _audit(capsys, "--no-cache", "svc")
    section = terminal.split("Not reached from a handler (", 1)[1]
    assert section.splitlines()[1] == "  HIGH    svc/worker.py:15  BND301"
    assert re.search(r"^  findings +\d+ \(high \d+", terminal, re.M)
    markdown = _audit(capsys, "--no-cache", "--output-format", "markdown", "svc")
    assert "## Not reached from a handler" in markdown
    assert "| high | `svc/worker.py:15` | [BND301](" in markdown
    assert "Findings per severity: high " in markdown
    html = _audit(capsys, "--no-cache", "--output-format", "html", "svc")
    assert "<h2>Not reached from a handler</h2>" in html and "svc/worker.py:15" in html
    assert '<span>high</span>' in html


def test_audit_takes_checks_flag_names_and_old_aliases(tree, capsys):
    out = tree / "a.json"
    assert main(["audit", "--isolated", "-q", "--output-format", "json", "--output-file", str(out),
                 "--cache-dir", str(tree / "cache"), "--min-severity", "high", "--timeout", "30", "svc"]) == 0
    data = json.loads(out.read_text())
    assert {f["severity"] for f in data["findings"]} == {"high"}
    assert (tree / "cache").is_dir()  # the result cache, as check keeps it
    assert main(["audit", "--isolated", "-q", "--format", "json", "--output", str(out), "--no-cache", "svc"]) == 0
    assert json.loads(out.read_text())["schema"] == "boundlint-audit/1"
    assert main(["audit", "--isolated", "--timeout", "0", "svc"]) == 2
    assert "--timeout must be a positive number" in capsys.readouterr().err


def test_audit_baseline_leaves_out_recorded_findings(tree, capsys):
    assert main(["check", "--isolated", "--write-baseline", "bl.json", "svc/worker.py"]) == 0
    capsys.readouterr()
    data = json.loads(_audit(capsys, "--no-cache", "--baseline", "bl.json", "--output-format", "json", "svc"))
    assert "svc/worker.py" not in {f["path"] for f in data["findings"]}
    assert "svc/routes.py" in {f["path"] for f in data["findings"]}


def test_audit_and_check_share_the_result_cache(tree, capsys, monkeypatch):
    from boundlint.engine import pool

    cache = str(tree / "cache")
    first = _audit(capsys, "--cache-dir", cache, "--output-format", "json", "svc")
    calls = []
    real = pool.check_files
    monkeypatch.setattr(pool, "check_files", lambda paths, *a, **k: calls.append(list(paths)) or real(paths, *a, **k))
    again = _audit(capsys, "--cache-dir", cache, "--output-format", "json", "svc")
    assert calls == [] or calls == [[]]  # nothing analysed again
    drop = re.compile(r'"(seconds|created)": [^,\n]+')
    assert drop.sub("", again) == drop.sub("", first)
    # check, at the audit's severity, is served from the entries the audit stored.
    assert main(["check", "--isolated", "-j", "1", "--cache-dir", cache, "--min-severity", "low", "svc"]) == 1
    capsys.readouterr()
    assert calls == [] or all(c == [] for c in calls)


def test_paths_are_relative_to_the_working_directory_as_check_prints_them(tree, capsys):
    data = json.loads(_audit(capsys, "--no-cache", "--output-format", "json", "svc"))
    assert {h["path"] for h in data["handlers"]} == {"svc/routes.py"}
    assert data["summary"]["top_files"][0]["path"].startswith("svc/")


COMMON = ("--output-format", "--output-file", "--cache-dir", "--no-cache", "--min-severity", "--baseline", "--timeout")


@pytest.mark.parametrize("command", ["check", "audit"])
def test_both_commands_have_the_shared_flags_and_help_for_every_option(command):
    parser = build_parser(command)
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    flags = {s for a in sub._actions for s in a.option_strings}
    assert set(COMMON) <= flags
    for action in sub._actions:
        assert action.help, f"{command} {action.option_strings or action.dest} has no help text"


def test_every_subcommand_option_has_help():
    parser = build_parser()
    for name, sub in next(a for a in parser._actions if a.dest == "command").choices.items():
        for action in sub._actions:
            assert action.help, f"{name} {action.option_strings or action.dest} has no help text"


def test_a_via_line_that_repeats_the_row_is_left_out():
    from boundlint.audit.cells import shown_chain
    from boundlint.audit.chains import Step
    from boundlint.audit.model import FanOut, Handler
    from boundlint.audit.render_markdown import render_markdown
    from boundlint.audit.model import AuditReport, Summary

    handler = Handler("app/routes.py", 10, "lookup", "fastapi", "POST /lookup", "high", 100)
    # The chain names only the handler's def line and the site itself: the row says both.
    same = FanOut("app/routes.py", 12, 5, "asyncio.gather", "gather", False, None, "ids", "fetch", "ids", None,
                  "BND101", [Step("request input `ids` of `lookup()`", "app/routes.py", 10),
                             Step("one `fetch()` per item of `ids`", "app/routes.py", 12)])
    # This one passes through a helper in another module: worth a via line.
    far = FanOut("app/fan.py", 8, 5, "asyncio.gather", "gather", False, None, "ids", "fetch", None, None, "BND101",
                 [Step("request input `ids` of `lookup()`", "app/routes.py", 10),
                  Step("`run(ids)` called by `lookup()`", "app/routes.py", 11),
                  Step("one `fetch()` per item", "app/fan.py", 8)])
    handler.fanouts = [same, far]
    assert shown_chain(same, handler) == [] and shown_chain(far, handler) == far.chain
    summary = Summary(1, 20, 0.0, 2, {}, {}, [], [], 1, {}, 1)
    text = render_markdown(AuditReport(summary, [handler]))
    assert text.count("via: ") == 1 and "via: request input `ids` of `lookup()` (app/routes.py:10) -> `run(ids)`" in text


PREFIXED = {'svc/api/orders.py': 'from fastapi import APIRouter\n\nrouter = APIRouter(prefix=PREFIX)\n\n\n@router.get("/{order_id}")\nasync def get_order(order_id: str):\n    return {}\n', 'svc/api/stray.py': 'from fastapi import APIRouter\n\nstray = APIRouter()\n\n\n@stray.get("/x")\nasync def stray_x():\n    return {}\n', 'svc/api/users.py': 'from fastapi import APIRouter\n\nrouter = APIRouter(prefix="/users")\n\n\n@router.get("/{user_id}")\nasync def get_user(user_id: str):\n    return {}\n', 'svc/bp.py': 'from flask import Blueprint, Flask\n\nbp = Blueprint("admin", __name__, url_prefix="/admin")\n\n\n@bp.route("/stats")\ndef stats():\n    return "ok"\n\n\napp = Flask(__name__)\napp.register_blueprint(bp, url_prefix="/api")\n', 'svc/lit.py': 'from litestar import Controller, Litestar, Router, get\n\n\nclass UserController(Controller):\n    path = "/accounts"\n\n    @get("/{account_id:int}")\n    async def get_account(self, account_id: int) -> dict:\n        return {}\n\n\napi = Router(path="/api", route_handlers=[UserController])\napp = Litestar(route_handlers=[api])\n', 'svc/main.py': 'from fastapi import FastAPI\nfrom svc.api import users, orders\n\napp = FastAPI()\napp.include_router(users.router, prefix="/v1")\napp.include_router(orders.router, prefix="/v1")\n\n\n@app.get("/health")\nasync def health():\n    return {}\n'}


def test_routes_show_their_router_prefix_or_say_it_is_unknown(tmp_path, monkeypatch, capsys):
    for name, text in PREFIXED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    data = json.loads(_audit(capsys, "--no-cache", "--output-format", "json", "svc"))
    routes = {h["name"]: h["route"] for h in data["handlers"]}
    assert routes == {
        "get_user": "GET /v1/users/{user_id}",  # include_router(prefix=) + APIRouter(prefix=)
        "get_order": "GET /{order_id} (prefix unknown)",  # APIRouter(prefix=PREFIX): not a literal
        "stray_x": "GET /x (prefix unknown)",  # a router mounted nowhere in the audited files
        "health": "GET /health",  # the app itself
        "stats": "/api/stats",  # register_blueprint(url_prefix=) replaces the Blueprint's url_prefix
        "UserController.get_account": "GET /api/accounts/{account_id:int}",  # Router(path=) + Controller.path
    }
