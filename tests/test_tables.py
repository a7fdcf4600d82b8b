"""The name tables: listed by ``boundlint tables``, replaced or extended from ``[tool.boundlint.tables]``."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from boundlint import tables
from boundlint.cli import main

SRC = Path(__file__).resolve().parents[1] / "src" / "boundlint"

GATHER_UNDER_GATE = """\
import asyncio

from gates import Gate

GATE = Gate(10)


async def one(i):
    async with GATE:
        return await fetch(i)


async def handler(ids):
    return await asyncio.gather(*(one(i) for i in ids))
"""

CLIENT_PER_ITEM = """\
import httpx


def fetch_all(urls):
    for url in urls:
        client = httpx.Client()
        client.get(url)
"""

RETRY = """\
import requests

from pacing import breathe


def poll(url):
    while True:
        try:
            return requests.get(url, timeout=5)
        except requests.RequestException:
            breathe()
"""

REFUSED_ITEMS = """\
import logging

from fastapi import HTTPException

log = logging.getLogger(__name__)


async def check(item, db):
    if not await db.fetchval("select allowed from items where id = $1", item):
        raise HTTPException(status_code=403)


async def keep_allowed(items, db):
    for item in items:
        try:
            await check(item, db)
        except HTTPException:
            log.warning("refused %s", item)
"""


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out = capsys.readouterr()
    return status, out.out, out.err


def codes(capsys, path: Path) -> list[tuple[int, str]]:
    status, out, err = run(capsys, "check", "--no-cache", "--format", "json", str(path))
    assert status in (0, 1), err
    return [(f["line"], f["code"]) for f in json.loads(out)]


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_tables_lists_every_table(capsys, project):
    status, out, _ = run(capsys, "tables")
    assert status == 0
    headers = [line.split(":", 1)[0] for line in out.splitlines() if line and not line.startswith(" ")]
    assert headers == tables.names()
    assert "  asyncio.Semaphore" in out and "(default)" in out


def test_every_table_is_read_by_the_analysis():
    code = "\n".join(p.read_text(encoding="utf-8") for p in SRC.rglob("*.py") if "tables" not in p.parts)
    for name in tables.names():
        assert re.search(rf"""table\(\s*["']{re.escape(name)}["']|TABLES\[["']{re.escape(name)}["']\]""", code), name


def test_every_table_is_named_in_the_configuration_docs():
    docs = (SRC.parents[1] / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert [name for name in tables.names() if f"`{name}`" not in docs] == []


def test_replacing_the_limiters_table_bounds_a_project_gate(capsys, project):
    (project / "h.py").write_text(GATHER_UNDER_GATE, encoding="utf-8")
    assert codes(capsys, project / "h.py") == [(14, "BND101")]
    (project / "pyproject.toml").write_text('[tool.boundlint.tables]\nextend-limiters = ["gates.Gate"]\n', encoding="utf-8")
    assert codes(capsys, project / "h.py") == []


def test_replacing_client_constructors_changes_findings(capsys, project):
    (project / "c.py").write_text(CLIENT_PER_ITEM, encoding="utf-8")
    assert codes(capsys, project / "c.py") == [(6, "BND401")]
    (project / "pyproject.toml").write_text('[tool.boundlint.tables]\nclient-constructors = ["redis.Redis"]\n', encoding="utf-8")
    assert codes(capsys, project / "c.py") == []


def test_extending_sleeps_paces_a_retry_loop(capsys, project):
    (project / "r.py").write_text(RETRY, encoding="utf-8")
    assert (10, "BND303") in codes(capsys, project / "r.py")
    (project / "pyproject.toml").write_text('[tool.boundlint.tables]\nextend-sleeps = ["pacing.breathe"]\n', encoding="utf-8")
    assert (10, "BND303") not in codes(capsys, project / "r.py")


def test_emptying_http_error_responses_reports_a_verdict_catch_again(capsys, project):
    (project / "v.py").write_text(REFUSED_ITEMS, encoding="utf-8")
    assert codes(capsys, project / "v.py") == []  # the 403 its own check raises: low, hidden
    (project / "pyproject.toml").write_text('[tool.boundlint.tables]\nhttp-error-responses = []\n', encoding="utf-8")
    assert codes(capsys, project / "v.py") == [(18, "BND301")]


def test_tables_show_where_each_entry_came_from(capsys, project):
    (project / "pyproject.toml").write_text(
        '[tool.boundlint.tables]\nsleeps = ["time.sleep"]\nextend-sleeps = ["pacing.breathe"]\n'
        '[tool.boundlint.churn]\nclient-factories = ["app.make_client"]\n', encoding="utf-8")
    status, out, _ = run(capsys, "tables", "sleeps")
    assert (status, out.splitlines()) == (0, [
        "sleeps: Calls that pause the caller: a pause of 0.1 s or more paces a failing loop. (2 entries)",
        "  pacing.breathe  (tables.extend-sleeps)",
        "  time.sleep      (tables.sleeps)",
    ])
    _, out, _ = run(capsys, "tables", "--format", "json", "client-constructors")
    entries = json.loads(out)["client-constructors"]["entries"]
    assert {"entry": "app.make_client", "origin": "client-factories"} in entries
    assert {"entry": "httpx.Client", "origin": "default"} in entries


def test_unknown_table_is_a_one_line_error(capsys, project):
    (project / "pyproject.toml").write_text('[tool.boundlint.tables]\nlimitrs = ["x.Y"]\n', encoding="utf-8")
    (project / "a.py").write_text("x = 1\n", encoding="utf-8")
    status, out, err = run(capsys, "check", "a.py")
    assert (status, out) == (2, "")
    assert err == ("boundlint: error: pyproject.toml: unknown table 'limitrs' in [tool.boundlint.tables]; "
                   "did you mean 'limiters'?; `boundlint tables` lists them\n")
    status, _, err = run(capsys, "tables", "limitrs", "--isolated")
    assert status == 2 and "did you mean 'limiters'?" in err


SETUP_STATE = """\
import logging

import httpx
from registry import discover

log = logging.getLogger(__name__)


class Shipper:
    def __init__(self):
        self.targets = []

    def warm_up(self):
        self.targets = discover("targets")

    def ship(self):
        for target in self.targets:
            try:
                httpx.post(target)
            except httpx.HTTPError:
                log.error("target %s down", target)
"""


def test_extending_setup_methods_makes_state_they_set_configured(capsys, project):
    (project / "s.py").write_text(SETUP_STATE, encoding="utf-8")
    assert (21, "BND301") in codes(capsys, project / "s.py")
    (project / "pyproject.toml").write_text('[tool.boundlint.tables]\nextend-setup-methods = ["warm_up"]\n',
                                            encoding="utf-8")
    assert (21, "BND301") not in codes(capsys, project / "s.py")
