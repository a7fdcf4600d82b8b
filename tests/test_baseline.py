"""Baselines: recorded findings stay quiet when unrelated edits shift lines; new ones are reported."""
from __future__ import annotations

import json

import pytest

from boundlint.baseline import Baseline, BaselineError, context_lines, fingerprint, write_baseline
from boundlint.cli import main
from boundlint.finding import Finding

OLD = """\
import asyncio


async def handler(ids):
    await asyncio.gather(*(fetch(i) for i in ids))


async def other(ids):
    await asyncio.gather(*(fetch(i) for i in ids))


async def fetch(i):
    return await client.get(i)
"""

# Twelve new lines at the top, an edit inside handler, same hazards on other lines.
SHIFTED = """\
\"\"\"Handlers.\"\"\"
import asyncio
import logging

log = logging.getLogger(__name__)
RETRIES = 3


def helper():
    return RETRIES


async def handler(ids):
    log.info("handling %d", len(ids))
    await asyncio.gather(*(fetch(i) for i in ids))


async def other(ids):
    await asyncio.gather(*(fetch(i) for i in ids))


async def fetch(i):
    return await client.get(i)
"""

# One more hazard: a new function, and a second identical one inside handler.
GREW = SHIFTED.replace('''async def fetch(i):''', '''async def third(ids):
    await asyncio.gather(*(fetch(i) for i in ids))


async def fetch(i):''').replace('''    log.info("handling %d", len(ids))
    await asyncio.gather(*(fetch(i) for i in ids))''', '''    log.info("handling %d", len(ids))
    await asyncio.gather(*(fetch(i) for i in ids))
    await asyncio.gather(*(fetch(i) for i in ids))''')


def run(capsys, *args) -> tuple[int, list[dict]]:
    status = main(["check", "--isolated", "--format", "json", *args])
    return status, json.loads(capsys.readouterr().out or "[]")


def test_line_shifts_do_not_resurrect_and_new_findings_are_reported(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "src").mkdir()
    mod = tmp_path / "src" / "handlers.py"
    mod.write_text(OLD, encoding="utf-8")
    status, before = run(capsys, "src")
    assert status == 1 and [(f["line"], f["code"]) for f in before] == [(5, "BND101"), (9, "BND101")]

    assert main(["check", "--isolated", "--write-baseline", "baseline.json", "src"]) == 0
    assert "Wrote 2 findings to baseline baseline.json." in capsys.readouterr().err
    entries = json.loads((tmp_path / "baseline.json").read_text())["findings"]
    assert [(e["path"], e["code"]) for e in entries] == [("src/handlers.py", "BND101")] * 2

    assert run(capsys, "--baseline", "baseline.json", "src") == (0, [])

    mod.write_text(SHIFTED, encoding="utf-8")
    status, shifted = run(capsys, "src")
    assert [(f["line"], f["code"]) for f in shifted] == [(15, "BND101"), (19, "BND101")]  # lines moved ...
    assert run(capsys, "--baseline", "baseline.json", "src") == (0, [])  # ... and stay baselined

    mod.write_text(GREW, encoding="utf-8")
    status, new = run(capsys, "--baseline", "baseline.json", "src")
    assert status == 1
    assert [(f["line"], f["code"]) for f in new] == [(16, "BND101"), (24, "BND101")]


def test_baseline_works_from_another_directory(tmp_path, monkeypatch, capsys):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "m.py").write_text(OLD, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "proj")
    assert main(["check", "--isolated", "--write-baseline", "bl.json", "."]) == 0
    capsys.readouterr()
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "--baseline", "proj/bl.json", "proj") == (0, [])


def test_summary_counts_baselined_findings(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(OLD, encoding="utf-8")
    main(["check", "--isolated", "--write-baseline", "bl.json", "m.py"])
    capsys.readouterr()
    assert main(["check", "--isolated", "--baseline", "bl.json", "m.py"]) == 0
    assert capsys.readouterr().out == "All clear: 1 file checked; 2 baselined findings not shown.\n"


def test_fingerprint_ignores_line_numbers_and_indentation_but_not_the_function():
    lines = OLD.splitlines()
    first = Finding("m.py", 5, 11, "BND101", "m", 5, 51)
    second = Finding("m.py", 9, 11, "BND101", "m", 9, 51)
    assert context_lines(lines, 5) == ["await asyncio.gather(*(fetch(i) for i in ids))", "async def handler(ids):"]
    assert fingerprint(first, lines) != fingerprint(second, lines)  # same line text, other function
    moved = ["", "", *lines]
    assert fingerprint(Finding("m.py", 7, 11, "BND101", "m", 7, 51), moved) == fingerprint(first, lines)
    assert fingerprint(Finding("m.py", 5, 11, "BND102", "m", 5, 51), lines) != fingerprint(first, lines)


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot read baseline"),
    ("{", "not a boundlint baseline: invalid JSON"),
    ('{"tool": "other"}', "not a boundlint baseline (write one with --write-baseline)"),
    ('{"tool": "boundlint", "version": 99, "findings": []}', "baseline version 99 is not supported"),
    ('{"tool": "boundlint", "version": 1, "findings": [{"path": "x"}]}', "malformed baseline entry"),
])
def test_bad_baseline_exits_2_with_one_line(tmp_path, monkeypatch, capsys, content, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(OLD, encoding="utf-8")
    if content is not None:
        (tmp_path / "bl.json").write_text(content, encoding="utf-8")
    assert main(["check", "--isolated", "--baseline", "bl.json", "m.py"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("boundlint: error: bl.json: ") and message in err and err.count("\n") == 1
    with pytest.raises(BaselineError):
        Baseline.load(str(tmp_path / "bl.json"))


def test_write_baseline_to_unwritable_path(tmp_path):
    with pytest.raises(BaselineError, match="cannot write baseline"):
        write_baseline(str(tmp_path / "missing" / "bl.json"), [])
