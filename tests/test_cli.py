"""``boundlint check``: formats, statistics, output file, config from pyproject, exit codes 0/1/2."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from boundlint.cli import main

HAZARD = """\
import asyncio


async def handler(ids):
    await asyncio.gather(*(fetch(i) for i in ids))


async def fetch(i):
    return await client.get(i)
"""
CLEAN = "x = 1\n"
NO_FILES = "boundlint: warning: No Python files found under the given path(s)\n"
MESSAGE = "`asyncio.gather(...)` starts one coroutine per item of `ids` with no concurrency limit"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A git checkout (so config search stops here) with one hazard and one clean file."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "handler.py").write_text(HAZARD, encoding="utf-8")
    (tmp_path / "pkg" / "clean.py").write_text(CLEAN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["check", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def test_text_output_and_exit_codes(project, capsys):
    status, out, err = check(capsys, "pkg")
    assert status == 1 and err == ""
    assert out.splitlines() == [
        f"pkg/handler.py:5:11: BND101 [medium] {MESSAGE}",
        "    help: acquire an asyncio.Semaphore inside each coroutine, or gather fixed-size batches",
        "Found 1 finding in 2 files checked.",
    ]
    assert check(capsys, "pkg/clean.py") == (0, "All clear: 1 file checked.\n", "")
    assert check(capsys, "--exit-zero", "pkg")[0] == 0
    status, out, err = check(capsys, "missing")
    assert (status, out, err) == (2, "", "boundlint: error: path does not exist: missing\n")


def test_quiet_and_show_source(project, capsys):
    _, out, _ = check(capsys, "--quiet", "--show-source", "pkg")
    assert out.splitlines() == [
        f"pkg/handler.py:5:11: BND101 [medium] {MESSAGE}",
        "    5 | await asyncio.gather(*(fetch(i) for i in ids))",
        "      |       " + "^" * 40,  # the whole span, columns 11 to 51, the indentation trimmed
        "    help: acquire an asyncio.Semaphore inside each coroutine, or gather fixed-size batches",
    ]


def test_json(project, capsys):
    status, out, _ = check(capsys, "--format", "json", "pkg")
    assert status == 1
    assert json.loads(out) == [{
        "code": "BND101", "path": "pkg/handler.py", "line": 5, "column": 11, "end_line": 5, "end_column": 51,
        "message": MESSAGE,
        "hint": "acquire an asyncio.Semaphore inside each coroutine, or gather fixed-size batches",
        "evidence": [],
        "severity": "medium",
        "severity_reason": "per item: `client.get()` in `fetch()`",
    }]


def test_github_annotations(project, capsys):
    status, out, _ = check(capsys, "--format", "github", "./pkg")
    assert status == 1
    assert out == (
        "::warning file=pkg/handler.py,line=5,col=11,endLine=5,endColumn=51,title=BND101 unbounded-gather::"
        f"BND101 {MESSAGE}%0Aacquire an asyncio.Semaphore inside each coroutine, or gather fixed-size batches\n")


def test_github_escapes_properties_and_data():
    from boundlint.finding import Finding
    from boundlint.report.github import format_github

    f = Finding("a,b:c%.py", 1, 1, "BND001", "cannot check this file: 100% bad\r\nreally", 1, 1)
    assert format_github([f]) == "::error file=a%2Cb%3Ac%25.py,line=1,col=1,title=BND001::" \
                                 "BND001 cannot check this file: 100%25 bad%0D%0Areally\n"


def test_statistics(project, capsys):
    (project / "pkg" / "more.py").write_text(HAZARD + HAZARD.replace("handler", "h2").replace("fetch", "f2"),
                                             encoding="utf-8")
    status, out, _ = check(capsys, "--statistics", "pkg")
    assert status == 1
    assert out == "3  BND101  unbounded-gather\nFound 3 findings in 3 files checked.\n"
    _, out, _ = check(capsys, "--statistics", "--format", "json", "pkg")
    assert json.loads(out) == {"total": 3, "files_checked": 3,
                               "statistics": [{"code": "BND101", "name": "unbounded-gather", "count": 3}]}


def test_output_file(project, capsys):
    status, out, err = check(capsys, "--format", "json", "--output-file", "report.json", "pkg")
    assert (status, out, err) == (1, "", "")
    assert json.loads((project / "report.json").read_text())[0]["code"] == "BND101"
    status, out, err = check(capsys, "--output-file", "missing-dir/r.txt", "pkg")
    assert status == 2 and err.startswith("boundlint: error: --output-file: cannot write missing-dir/r.txt")


def test_unknown_format_is_a_usage_error(project, capsys):
    status, _, err = check(capsys, "--format", "xml", "pkg")
    assert status == 2 and err.startswith("boundlint: error: argument --format: invalid choice: 'xml'")


def test_cache_and_jobs_flags_are_accepted(project, capsys):
    assert check(capsys, "--no-cache", "--jobs", "2", "-q", "pkg")[0] == 1
    assert check(capsys, "--jobs", "0", "pkg")[0] == 2


# -- configuration through the command ---------------------------------------------------------

def test_pyproject_select_and_cli_override(project, capsys):
    (project / "pyproject.toml").write_text('[tool.boundlint]\nselect = ["BND2"]\n', encoding="utf-8")
    assert check(capsys, "-q", "pkg") == (0, "", "")
    assert check(capsys, "-q", "--select", "BND1", "pkg")[0] == 1
    assert check(capsys, "-q", "--isolated", "pkg")[0] == 1
    assert check(capsys, "-q", "--extend-select", "BND101", "pkg")[0] == 1


def test_verbose_names_the_config(project, capsys):
    (project / "pyproject.toml").write_text("[tool.boundlint]\n", encoding="utf-8")
    _, _, err = check(capsys, "-q", "--verbose", "pkg")
    assert err == f"boundlint: config: {project / 'pyproject.toml'}\n"


def test_per_file_ignores_from_pyproject(project, capsys):
    (project / "pyproject.toml").write_text('[tool.boundlint.per-file-ignores]\n"pkg/handler.py" = ["BND1"]\n',
                                            encoding="utf-8")
    assert check(capsys, "-q", "pkg") == (0, "", "")
    assert check(capsys, "-q", "pkg/handler.py") == (0, "", "")
    assert check(capsys, "-q", "--isolated", "pkg")[0] == 1


def test_exclude_applies_to_walked_and_named_files(project, capsys):
    for key in ("exclude", "extend-exclude"):
        (project / "pyproject.toml").write_text(f'[tool.boundlint]\n{key} = ["pkg/handler.py"]\n', encoding="utf-8")
        assert check(capsys, "pkg") == (0, "All clear: 1 file checked.\n", "")
        assert check(capsys, "pkg/handler.py") == (0, "All clear: 0 files checked.\n", (
            f"boundlint: warning: pkg/handler.py is not checked: it matches the `{key}` pattern 'pkg/handler.py' "
            f"of pyproject.toml\n{NO_FILES}"))
    assert check(capsys, "-q", "--extend-exclude", "nothing/", "pkg")[0] == 0  # extends the file's
    (project / "pyproject.toml").write_text('[tool.boundlint]\nexclude = ["pkg/handler.py"]\n', encoding="utf-8")
    assert check(capsys, "-q", "--exclude", "nothing/", "pkg")[0] == 1  # replaces the file's


def test_gitignore_is_respected_unless_turned_off(project, capsys):
    (project / ".gitignore").write_text("handler.py\n", encoding="utf-8")
    assert check(capsys, "pkg") == (0, "All clear: 1 file checked.\n", "")
    assert check(capsys, "-q", "--no-respect-gitignore", "pkg")[0] == 1
    assert check(capsys, "-q", "pkg/handler.py")[0] == 1  # a file named explicitly is checked
    (project / "pyproject.toml").write_text("[tool.boundlint]\nrespect-gitignore = false\n", encoding="utf-8")
    assert check(capsys, "-q", "pkg")[0] == 1


def test_an_ignored_directory_named_explicitly_is_checked(project, capsys):
    (project / ".gitignore").write_text("pkg/\n", encoding="utf-8")
    assert check(capsys, ".") == (0, "All clear: 0 files checked.\n", NO_FILES)
    assert check(capsys, "-q", "pkg")[0] == 1


# -- malformed noqa ----------------------------------------------------------------------------

def test_malformed_noqa_is_reported_by_default(project, capsys):
    (project / "pkg" / "handler.py").write_text(HAZARD.replace(
        "for i in ids))", "for i in ids))  # noqa: BND1O1"), encoding="utf-8")
    status, out, _ = check(capsys, "-q", "pkg")  # BND1O1 (letter O) is no code: BND101 still fires
    assert status == 1 and out.splitlines() == [
        f"pkg/handler.py:5:11: BND101 [medium] {MESSAGE}",
        "    help: acquire an asyncio.Semaphore inside each coroutine, or gather fixed-size batches",
        "pkg/handler.py:5:61: BND900 `# noqa` names `BND1O1`, which is no boundlint code or prefix; "
        "did you mean `BND101`?",
        "    help: write the exact code (`boundlint rule --all`): a malformed one hides nothing here, and flake8 may misread it",
    ]
    _, out, _ = check(capsys, "-q", "--format", "json", "--extend-ignore", "BND900", "pkg")
    assert [(f["code"], f["line"], f["column"]) for f in json.loads(out)] == [("BND101", 5, 11)]
    _, out, _ = check(capsys, "-q", "--format", "json", "--select", "BND9", "pkg")
    assert [f["code"] for f in json.loads(out)] == ["BND900"]


def test_internal_errors_are_one_line_unless_verbose(project, capsys, monkeypatch):
    import boundlint.engine

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(boundlint.engine, "check_paths", boom)
    status, _, err = check(capsys, "pkg")
    assert status == 2
    assert err == "boundlint: internal error: RuntimeError: boom (run with --verbose for the traceback)\n"
    status, _, err = check(capsys, "--verbose", "pkg")
    assert status == 2 and "Traceback" in err


def test_console_script_runs(project):
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--format", "sarif", "pkg"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["runs"][0]["results"][0]["ruleId"] == "BND101"


def test_empty_select_is_a_usage_error(tmp_path):
    import subprocess
    import sys

    (tmp_path / "m.py").write_text("x = 1\n")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--select=", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "boundlint: error: argument --select: expected one or more rule codes or prefixes, got nothing"


def test_a_closed_pipe_is_no_internal_error():
    # `boundlint check | head`: the reader is gone before the report is written.
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--no-cache", "--format", "sarif", "examples"],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parent.parent)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (141, "")


def test_a_working_directory_that_was_removed_is_a_usage_error(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()
    code = ("import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); "
            "from boundlint.cli import main; sys.exit(main(['check', sys.argv[2]]))")
    proc = subprocess.run([sys.executable, "-c", code, str(gone), str(tmp_path)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("boundlint: error: the working directory no longer exists: "
                                   "run boundlint from an existing folder")
