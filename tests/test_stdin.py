"""``boundlint check --stdin-filename PATH -``: the source from standard input, everything else from PATH."""
from __future__ import annotations

import io
import subprocess
import sys

import pytest

from boundlint.cli import main

SOURCE = "import asyncio\n\nasync def f(ids):\n    await asyncio.gather(*(g(i) for i in ids))\n"
MESSAGE = "BND101 [medium] `asyncio.gather(...)` starts one coroutine per item of `ids` with no concurrency limit"
HELP = "    help: acquire an asyncio.Semaphore inside each coroutine, or gather fixed-size batches"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A git checkout with svc/ under its own [tool.boundlint] table; no file svc/h.py exists."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "svc").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(monkeypatch, capsys, data: bytes, *args: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    status = main(["check", *(() if "--cache-dir" in args else ("--no-cache",)), *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_acceptance_command_reports_the_stdin_filename(project):
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--stdin-filename", "svc/h.py", "-"],
                          input=SOURCE.encode(), capture_output=True, cwd=project)
    assert (proc.returncode, proc.stderr) == (1, b"")
    assert proc.stdout.decode().splitlines() == [f"svc/h.py:4:11: {MESSAGE}", HELP, "Found 1 finding in 1 file checked."]


def test_unnamed_stdin_is_reported_as_dash(project, monkeypatch, capsys):
    status, out, _ = run(monkeypatch, capsys, SOURCE.encode(), "-")
    assert status == 1
    assert out.splitlines()[0] == f"-:4:11: {MESSAGE}"


def test_stdin_filename_alone_reads_stdin(project, monkeypatch, capsys):
    status, out, _ = run(monkeypatch, capsys, SOURCE.encode(), "--quiet", "--stdin-filename", "svc/h.py")
    assert (status, out.splitlines()) == (1, [f"svc/h.py:4:11: {MESSAGE}", HELP])


def test_config_comes_from_the_nearest_pyproject_of_path(project, monkeypatch, capsys):
    (project / "svc" / "pyproject.toml").write_text('[tool.boundlint]\nselect = ["BND3"]\n', encoding="utf-8")
    # svc/new/ does not exist either: the search starts at its nearest existing ancestor.
    for path in ("svc/h.py", "svc/new/deep.py"):
        assert run(monkeypatch, capsys, SOURCE.encode(), "--stdin-filename", path, "-") == (
            0, "All clear: 1 file checked.\n", "")
    status, out, _ = run(monkeypatch, capsys, SOURCE.encode(), "-q", "--stdin-filename", "other/h.py", "-")
    assert (status, out.splitlines()[0]) == (1, f"other/h.py:4:11: {MESSAGE}")


def test_per_file_ignores_and_exclude_match_path(project, monkeypatch, capsys):
    (project / "pyproject.toml").write_text(
        '[tool.boundlint]\nexclude = ["gen/"]\n[tool.boundlint.per-file-ignores]\n"tests/*" = ["BND1"]\n', encoding="utf-8")
    assert run(monkeypatch, capsys, SOURCE.encode(), "--stdin-filename", "tests/t.py", "-") == (
        0, "All clear: 1 file checked.\n", "")
    assert run(monkeypatch, capsys, SOURCE.encode(), "--stdin-filename", "gen/x.py", "-") == (
        0, "All clear: 0 files checked.\n", "")
    status, out, _ = run(monkeypatch, capsys, SOURCE.encode(), "-q", "--stdin-filename", "svc/h.py", "-")
    assert (status, out.splitlines()[0]) == (1, f"svc/h.py:4:11: {MESSAGE}")


def test_show_source_shows_stdin_not_the_file_on_disk(project, monkeypatch, capsys):
    (project / "svc" / "h.py").write_text("# what is saved differs from the buffer\n" * 5, encoding="utf-8")
    _, out, _ = run(monkeypatch, capsys, SOURCE.encode(), "-q", "--show-source", "--stdin-filename", "svc/h.py", "-")
    assert out.splitlines()[:3] == [f"svc/h.py:4:11: {MESSAGE}",
                                    "    4 | await asyncio.gather(*(g(i) for i in ids))",
                                    "      |       " + "^" * 36]


def test_json_and_undecodable_input(project, monkeypatch, capsys):
    _, out, _ = run(monkeypatch, capsys, SOURCE.encode(), "--format", "json", "--stdin-filename", "svc/h.py", "-")
    assert '"path": "svc/h.py"' in out and '"line": 4' in out
    status, out, _ = run(monkeypatch, capsys, b"x = '\xff'\n", "-q", "--stdin-filename", "svc/h.py", "-")
    assert (status, out.splitlines()[0]) == (1, "svc/h.py:1:6: BND001 cannot check this file: cannot decode: invalid "
                                                "utf-8 byte 0xff: invalid start byte (no coding cookie declares another "
                                                "encoding)")


def test_results_are_cached_by_content(project, monkeypatch, capsys):
    cache = project / "cache"
    first = run(monkeypatch, capsys, SOURCE.encode(), "--cache-dir", str(cache), "--stdin-filename", "svc/h.py", "-")
    assert first[0] == 1 and list(cache.rglob("*.json"))
    # The cache stores findings without a path: another PATH for the same bytes gets its own.
    again = run(monkeypatch, capsys, SOURCE.encode(), "--cache-dir", str(cache), "--stdin-filename", "svc/g.py", "-")
    assert again == (1, first[1].replace("svc/h.py", "svc/g.py"), "")


@pytest.mark.parametrize("args, error", [
    (("-", "svc"), "- (standard input) cannot be combined with other paths"),
    (("--stdin-filename", "svc/h.py", "svc"), "--stdin-filename names the source read from standard input; give - as the path"),
    (("--stdin-filename", "", "-"), "--stdin-filename: expected a path, got nothing"),
])
def test_usage_errors(project, monkeypatch, capsys, args, error):
    assert run(monkeypatch, capsys, SOURCE.encode(), *args) == (2, "", f"boundlint: error: {error}\n")


def test_no_stdin_is_a_usage_error(project, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", None)
    assert main(["check", "-"]) == 2
    assert capsys.readouterr().err == "boundlint: error: cannot read standard input: there is none\n"
