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


# -- living with a baseline: renames, reworded messages, stale entries, updates ---------------

STORM = """\
import logging

log = logging.getLogger(__name__)


def consume(messages):
    for m in messages:
        try:
            handle(m)
        except Exception:
            log.error("failed to handle %s", m["MessageId"])


def handle(m):
    return m.client.delete(m)
"""


def _storm_count(capsys, *args) -> tuple[int, list[str]]:
    status, found = run(capsys, *args)
    return status, [f"{f['path']}:{f['line']} {f['code']}" for f in found]


def test_baseline_survives_git_mv(tmp_path, monkeypatch, capsys):
    import shutil
    import subprocess

    monkeypatch.chdir(tmp_path)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "worker.py").write_text(STORM, encoding="utf-8")
    assert _storm_count(capsys, "app") == (1, ["app/worker.py:11 BND301"])
    assert main(["check", "--isolated", "--write-baseline", "bl.json", "app"]) == 0
    capsys.readouterr()
    if shutil.which("git"):
        env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@example.invalid", "HOME": str(tmp_path), "PATH": __import__("os").environ["PATH"]}
        for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "x"], ["mv", "app/worker.py", "app/consumer.py"]):
            subprocess.run(["git", *cmd], cwd=tmp_path, check=True, env=env, capture_output=True)
    else:  # pragma: no cover
        (tmp_path / "app" / "worker.py").rename(tmp_path / "app" / "consumer.py")
    assert _storm_count(capsys, "--baseline", "bl.json", "app") == (0, [])
    assert "no longer match" not in capsys.readouterr().err
    # A copy of the hazard in a second file is new: the entry is used up by the renamed file.
    (tmp_path / "app" / "copy.py").write_text(STORM, encoding="utf-8")
    assert _storm_count(capsys, "--baseline", "bl.json", "app") == (1, ["app/copy.py:11 BND301"])


def test_baseline_survives_a_reworded_log_message_but_not_a_changed_hazard(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.py").write_text(STORM, encoding="utf-8")
    assert main(["check", "--isolated", "--write-baseline", "bl.json", "w.py"]) == 0
    capsys.readouterr()
    reworded = STORM.replace('"failed to handle %s"', "f'could not handle message {m!r}: giving up on it'")
    (tmp_path / "w.py").write_text(reworded, encoding="utf-8")
    assert _storm_count(capsys, "--baseline", "bl.json", "w.py") == (0, [])
    # Other arguments are another call: the finding is new, and the old entry no longer matches.
    changed = STORM.replace('log.error("failed to handle %s", m["MessageId"])', 'log.error("failed", m, exc_info=True)')
    (tmp_path / "w.py").write_text(changed, encoding="utf-8")
    status, found = _storm_count(capsys, "--baseline", "bl.json", "w.py")
    assert (status, found) == (1, ["w.py:11 BND301"])


def test_run_reports_baseline_entries_that_no_longer_match(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(OLD, encoding="utf-8")
    main(["check", "--isolated", "--write-baseline", "bl.json", "m.py"])
    capsys.readouterr()
    fixed = OLD.replace("async def other(ids):\n    await asyncio.gather(*(fetch(i) for i in ids))\n",
                        "async def other(ids):\n    return ids\n")
    (tmp_path / "m.py").write_text(fixed, encoding="utf-8")
    assert main(["check", "--isolated", "--baseline", "bl.json", "m.py"]) == 0
    err = capsys.readouterr().err
    assert err == ("boundlint: 1 baseline entry no longer matches (fixed, or the flagged code changed); "
                   "--update-baseline prunes it.\n")
    (tmp_path / "m.py").write_text("x = 1\n", encoding="utf-8")
    assert main(["check", "--isolated", "--baseline", "bl.json", "m.py"]) == 0
    assert capsys.readouterr().err.startswith("boundlint: 2 baseline entries no longer match (")


def test_update_baseline_prunes_and_adds(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.py").write_text(OLD, encoding="utf-8")
    main(["check", "--isolated", "--write-baseline", "bl.json", "m.py"])
    capsys.readouterr()
    # `other` is fixed (one entry to prune), `third` is new (one finding to add), `handler` stays.
    grown = OLD.replace("async def other(ids):\n    await asyncio.gather(*(fetch(i) for i in ids))\n",
                        "async def other(ids):\n    return ids\n\n\nasync def third(ids):\n"
                        "    await asyncio.gather(*(fetch(i) for i in ids))\n")
    (tmp_path / "m.py").write_text(grown, encoding="utf-8")
    assert main(["check", "--isolated", "--baseline", "bl.json", "--update-baseline", "m.py"]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "boundlint: updated baseline bl.json: 1 entry kept, 1 added, 1 pruned.\n"
    data = json.loads((tmp_path / "bl.json").read_text())
    assert [(e["path"], e["line"], e["code"]) for e in data["findings"]] == [("m.py", 5, "BND101"), ("m.py", 13, "BND101")]
    assert main(["check", "--isolated", "--baseline", "bl.json", "m.py"]) == 0
    assert capsys.readouterr().err == ""
    assert main(["check", "--isolated", "--update-baseline", "m.py"]) == 2
    assert "give --baseline FILE" in capsys.readouterr().err


def test_version_1_baselines_still_match(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.py").write_text(STORM, encoding="utf-8")
    lines = STORM.splitlines()
    f = Finding("w.py", 11, 13, "BND301", "m", 11, 60)
    entry = {"path": "w.py", "code": "BND301", "fingerprint": fingerprint(f, lines, version=1), "line": 11, "message": "m"}
    (tmp_path / "bl.json").write_text(json.dumps({"tool": "boundlint", "version": 1, "findings": [entry]}))
    assert fingerprint(f, lines, version=1) != fingerprint(f, lines)
    assert _storm_count(capsys, "--baseline", "bl.json", "w.py") == (0, [])
