"""boundlint on itself: `boundlint check .` at the repository root reports nothing, a comment that only
quotes a noqa is no suppression, and the queries that follow calls stay fast on a dense call graph."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from boundlint.config import Settings
from boundlint.engine import check_source

ROOT = Path(__file__).resolve().parent.parent


def test_check_at_the_repository_root_reports_nothing():
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--no-cache", "."], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert proc.stdout.startswith("All clear: ") and proc.stdout.count("\n") == 1, proc.stdout[-2000:]


def test_the_examples_still_report_their_hazards():
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--no-cache", "--output-format", "concise",
                           "examples/"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    assert "examples/incident_handler.py:40:23: BND101 [high]" in proc.stdout


def _bnd900(text: str) -> list[tuple[int, int]]:
    return [(f.line, f.column) for f in check_source(text, "m.py", Settings()) if f.code == "BND900"]


def test_a_comment_or_string_that_quotes_a_noqa_is_no_suppression():
    quoted = (
        'x = 1  # flake8 reads "# noqa: BND-101" as a bare noqa\n'
        "y = 2  # write `#noqa: BND101` with a space\n"
        "z = 3  # 'noqa' words: '# noqa: BND1O1'\n"
        's = "# noqa: BND1O1"\n'
        "t = '''\n# noqa: BND1O1\n'''\n"
    )
    assert _bnd900(quoted) == []
    # Written as a directive, the same comment is reported, also after other prose.
    assert _bnd900("x = 1  # noqa: BND1O1\ny = 2  # type: ignore # noqa: BND-101\n") == [(1, 16), (2, 31)]


def test_failure_queries_stay_polynomial_on_a_dense_call_graph(tmp_path, monkeypatch):
    """Each helper calls every later one: without a memo `fails_fast` walks every path (exponential)."""
    from conftest import project_index

    from boundlint.index.queries.limits import fails_fast, pauses

    names = [f"h{i}" for i in range(14)]
    body = ["import time", ""]
    for i, name in enumerate(names):
        body += [f"def {name}(x):", *(f"    {later}(x)" for later in names[i + 1:]), "    return x", ""]
    index = project_index(tmp_path, monkeypatch, {"app/helpers.py": "\n".join(body)})
    calls = []
    real = type(index).function
    monkeypatch.setattr(type(index), "function", lambda self, ref: calls.append(ref) or real(self, ref))
    assert fails_fast(index, "app.helpers.h0") is None and pauses(index, "app.helpers.h0") is None
    assert len(calls) < 2_000, len(calls)


def test_bnd202_help_adds_max_length_to_the_existing_marker():
    source = (
        "from typing import Annotated\n"
        "from fastapi import Body, FastAPI, Query\n"
        "app = FastAPI()\n\n\n"
        '@app.get("/posts")\n'
        "async def get_posts(ids: list[str] = Query(default=[]), tags: Annotated[list[str], Body()] = [],\n"
        "                    raw: list[str] = []):\n"
        "    return ids\n"
    )
    hints = [(f.line, f.column, f.hint) for f in check_source(source, "a.py", Settings()) if f.code == "BND202"]
    assert hints == [
        (7, 21, "add `max_length=N` to its existing `Query(...)`: `Query(..., max_length=50)`"),
        (7, 57, "add `max_length=N` to its existing `Body(...)`: `Body(..., max_length=50)`"),
        (8, 21, "cap it: `Annotated[list[X], Query(max_length=N)]` (or `Body(...)`, `Form(...)`, `Field(...)`)"),
    ]


def test_bnd303_says_how_long_a_too_short_pause_is():
    source = (
        "import time\n\n\n"
        "def poll(client):\n"
        "    while True:\n"
        "        try:\n"
        "            client.fetch()\n"
        "            break\n"
        "        except ConnectionError:\n"
        "            time.sleep(0.01)\n"
    )
    found = [(f.line, f.column, f.message) for f in check_source(source, "a.py", Settings(min_severity="low"))
             if f.code == "BND303"]
    assert found == [(9, 9, "`except ConnectionError` sends `while True` straight back to `client.fetch(...)` with no "
                            "sleep or backoff that paces it: its `time.sleep(0.01)` pauses 0.01 s, less than 0.1 s")]


def test_one_table_entry_is_one_entry(tmp_path, monkeypatch, capsys):
    from boundlint.cli import main

    (tmp_path / "pyproject.toml").write_text('[tool.boundlint.tables]\nsleeps = ["time.sleep"]\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["tables", "sleeps"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(" (1 entry)")


def test_bnd401_recognises_one_client_per_destination():
    source = (
        "import httpx\n\n\n"
        "async def fan(relays, event):\n"
        "    for relay in relays:\n"
        "        async with httpx.AsyncClient(base_url=relay) as client:\n"
        "            await client.post('/events', json=event)\n\n\n"
        "async def same(urls):\n"
        "    for url in urls:\n"
        "        async with httpx.AsyncClient() as client:\n"
        "            await client.get(url)\n"
    )
    found = [(f.line, f.message, f.hint) for f in check_source(source, "a.py", Settings(min_severity="low"))
             if f.code == "BND401"]
    assert found == [
        (6, "`httpx.AsyncClient(...)` opens a new client per item of `relays` (each item is another destination)",
         "each item is another destination: keep one client per destination, built once and reused (a dict by host)"),
        (12, "`httpx.AsyncClient(...)` opens a new client per item of `urls`",
         "build the client once, outside the loop or worker, and reuse it: its pool limits and reuses connections"),
    ]


def test_paths_and_evidence_are_spelled_without_a_dot_slash(tmp_path, monkeypatch, capsys):
    import json
    import shutil

    from boundlint.cli import main

    shutil.copytree(ROOT / "tests" / "fixtures" / "projects" / "lookup_service", tmp_path / "lookup_service")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--isolated", "--no-cache", "-j", "1", "--output-format", "json", "."]) == 1
    found = json.loads(capsys.readouterr().out)
    assert {f["path"] for f in found} == {"lookup_service/core/fanout.py", "lookup_service/schemas.py"}
    evidence = [e for f in found for e in f["evidence"]]
    assert evidence and not any("./" in e for e in evidence)
    assert "(lookup_service/api/routes.py:11)" in evidence[0]
