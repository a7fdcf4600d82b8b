"""Severity from evidence: the verdict table, the min-severity filter and severity in every output."""
from __future__ import annotations

import json

from boundlint.cli import main
from boundlint.config import Settings
from boundlint.engine import check_source
from boundlint.analysis.severity import HIGH, LOW, MEDIUM, judge

HANDLER = """\
import asyncio

import httpx
from fastapi import FastAPI

app = FastAPI()
client = httpx.AsyncClient()


@app.post("/lookup")
async def lookup(ids: list[str]):
    return await asyncio.gather(*(client.get(f"/items/{i}") for i in ids))


async def helper(ids):
    return await asyncio.gather(*(client.get(f"/items/{i}") for i in ids))


async def local(ids):
    return await asyncio.gather(*(asyncio.sleep(0) for i in ids))
"""


def test_the_verdict_table():
    assert judge("input", "yes", "request").level == HIGH
    assert judge("unknown", "yes", "unknown").level == MEDIUM
    assert judge("input", "unknown", "request").level == LOW
    assert judge("input", "no", "request").level == LOW
    assert judge("configured", "yes", "request").level == LOW
    assert judge("input", "yes", "once").level == LOW
    assert judge("input", "yes", "test").level == LOW


def test_each_finding_gets_its_severity_and_reason():
    found = {(f.line, f.code): (f.severity, f.severity_reason)
             for f in check_source(HANDLER, "svc/api.py", Settings(min_severity="low"))}
    assert found[(12, "BND101")] == (HIGH, "request input `ids` of `lookup()`; per item: `client.get()`")
    assert found[(16, "BND101")] == (MEDIUM, "per item: `client.get()`")
    assert found[(20, "BND101")] == (LOW, "the per-item work calls no external dependency")
    assert found[(11, "BND202")][0] == MEDIUM


def test_min_severity_filters_and_low_shows_everything(tmp_path, capsys):
    (tmp_path / "api.py").write_text(HANDLER, encoding="utf-8")
    path = str(tmp_path / "api.py")

    def lines(*flags):
        main(["check", "--isolated", "--no-cache", "--output-format", "json", *flags, path])
        return sorted((f["line"], f["code"], f["severity"]) for f in json.loads(capsys.readouterr().out))

    assert lines() == [(11, "BND202", MEDIUM), (12, "BND101", HIGH), (16, "BND101", MEDIUM)]
    assert lines("--min-severity", "high") == [(12, "BND101", HIGH)]
    assert lines("--min-severity", "low")[-1] == (20, "BND101", LOW)


def test_severity_in_text_sarif_and_github(tmp_path, capsys):
    (tmp_path / "api.py").write_text(HANDLER, encoding="utf-8")
    path = str(tmp_path / "api.py")
    main(["check", "--isolated", "--no-cache", "--output-format", "concise", "--quiet", path])
    text = capsys.readouterr().out.splitlines()
    assert text[1].startswith(f"{path}:12:18: BND101 [high] `asyncio.gather(...)`")
    main(["check", "--isolated", "--no-cache", "--output-format", "sarif", path])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert [(r["locations"][0]["physicalLocation"]["region"]["startLine"], r["level"], r["properties"]["precision"])
            for r in results] == [(11, "warning", MEDIUM), (12, "error", HIGH), (16, "warning", MEDIUM)]
    main(["check", "--isolated", "--no-cache", "--output-format", "github", "--min-severity", "low", path])
    kinds = [line.split(" ", 1)[0] for line in capsys.readouterr().out.splitlines()]
    assert kinds == ["::warning", "::error", "::warning", "::notice"]


def test_a_bad_min_severity_in_the_config_is_one_clear_line(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.boundlint]\nmin-severity = "loud"\n', encoding="utf-8")
    (tmp_path / "api.py").write_text(HANDLER, encoding="utf-8")
    assert main(["check", "--no-cache", str(tmp_path / "api.py")]) == 2
    err = capsys.readouterr().err
    assert "min-severity must be one of \"low\", \"medium\", \"high\"" in err and "Traceback" not in err


def test_call_classes_read_the_method_before_the_receiver_name():
    from boundlint.kinds import calls

    # a dict named after a client is still a dict: only a container has `.items()`
    assert calls.classify(None, "self.client_kwargs", "items") == calls.LOCAL
    assert calls.classify(None, "self.http_client", "get") == calls.DEPENDENCY
    assert calls.classify(None, "redis_conn", "keys") == calls.DEPENDENCY  # a Redis command too
    assert calls.classify(None, "settings", "keys") == calls.LOCAL
