"""``--output-format``: full, concise, grouped, json-lines, gitlab (and the ``--format`` alias), colour,
``--show-source`` spans and ``--statistics`` totals."""
from __future__ import annotations

import io
import json

import pytest

from boundlint.cli import main
from boundlint.finding import Finding
from boundlint.report.color import Palette, printable, use_colour
from boundlint.report.text import source_lines

HAZARD = """\
import asyncio


async def handler(ids):
    await asyncio.gather(*(fetch(i) for i in ids))


async def fetch(i):
    return await client.get(i)
"""
# Two hazards, on lines 5 and 14, at columns 11 and 15: grouped aligns both.
TWO = HAZARD + """

class Jobs:
    async def run(self, ids):
        await asyncio.gather(*(fetch(i) for i in ids))
"""
GATHER = "`asyncio.gather(...)` starts one coroutine per item of `ids` with no concurrency limit"
HELP = "acquire an asyncio.Semaphore inside each coroutine, or gather fixed-size batches"


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text(HAZARD, encoding="utf-8")
    (tmp_path / "pkg" / "b.py").write_text(TWO, encoding="utf-8")
    (tmp_path / "pkg" / "clean.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)
    return tmp_path


def check(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["check", "--no-cache", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


FULL = [
    f"pkg/a.py:5:11: BND101 [medium] {GATHER}",
    f"    help: {HELP}",
    f"pkg/b.py:5:11: BND101 [medium] {GATHER}",
    f"    help: {HELP}",
    f"pkg/b.py:14:15: BND101 [medium] {GATHER}",
    f"    help: {HELP}",
    "Found 3 findings in 3 files checked.",
]


def test_full_is_the_default_and_format_text_its_old_name(project, capsys):
    assert check(capsys, "pkg") == (1, "\n".join(FULL) + "\n", "")
    assert check(capsys, "--output-format", "full", "pkg")[1].splitlines() == FULL
    assert check(capsys, "--format", "text", "pkg")[1].splitlines() == FULL
    assert check(capsys, "--format", "full", "pkg")[1].splitlines() == FULL


def test_concise_one_line_per_finding(project, capsys):
    status, out, err = check(capsys, "--output-format", "concise", "pkg")
    assert (status, err) == (1, "")
    assert out.splitlines() == [
        f"pkg/a.py:5:11: BND101 [medium] {GATHER}",
        f"pkg/b.py:5:11: BND101 [medium] {GATHER}",
        f"pkg/b.py:14:15: BND101 [medium] {GATHER}",
        "Found 3 findings in 3 files checked.",
    ]


def test_concise_quiet_prints_exactly_one_line_per_finding(project, capsys):
    _, out, _ = check(capsys, "--output-format", "concise", "--quiet", "pkg")
    _, as_json, _ = check(capsys, "--output-format", "json", "pkg")
    findings = json.loads(as_json)
    assert len(findings) == 3
    assert out.splitlines() == [f"{f['path']}:{f['line']}:{f['column']}: {f['code']} [{f['severity']}] {f['message']}" for f in findings]
    assert out.count("\n") == 3 and out.endswith("\n")
    assert check(capsys, "--output-format", "concise", "--quiet", "pkg/clean.py") == (0, "", "")


def test_grouped(project, capsys):
    status, out, _ = check(capsys, "--output-format", "grouped", "pkg")
    assert status == 1
    assert out == (
        "pkg/a.py:\n"
        f"  5:11 BND101 [medium] {GATHER}\n"
        "\n"
        "pkg/b.py:\n"
        f"   5:11 BND101 [medium] {GATHER}\n"
        f"  14:15 BND101 [medium] {GATHER}\n"
        "\n"
        "Found 3 findings in 3 files checked.\n"
    )


def test_json_lines_one_object_per_line(project, capsys):
    status, out, _ = check(capsys, "--output-format", "json-lines", "pkg")
    assert status == 1
    lines = out.splitlines()
    assert [json.loads(line) for line in lines] == json.loads(check(capsys, "--output-format", "json", "pkg")[1])
    assert json.loads(lines[2]) == {
        "code": "BND101", "path": "pkg/b.py", "line": 14, "column": 15, "end_line": 14, "end_column": 55,
        "message": GATHER, "hint": HELP, "evidence": [], "severity": "medium",
        "severity_reason": "per item: `client.get()` in `fetch()`",
    }
    assert check(capsys, "--output-format", "json-lines", "pkg/clean.py") == (0, "", "")


def test_sarif_and_github_under_the_new_flag(project, capsys):
    _, out, _ = check(capsys, "--output-format", "sarif", "pkg/a.py")
    log = json.loads(out)
    assert log["version"] == "2.1.0" and [r["ruleId"] for r in log["runs"][0]["results"]] == ["BND101"]
    _, out, _ = check(capsys, "--output-format", "github", "pkg/a.py")
    assert out.startswith("::warning file=pkg/a.py,line=5,col=11,endLine=5,endColumn=51,title=BND101 unbounded-gather::")


# -- GitLab Code Quality ------------------------------------------------------------------------

def gitlab(capsys, *paths: str) -> list[dict]:
    status, out, err = check(capsys, "--output-format", "gitlab", *paths)
    assert status in (0, 1) and err == ""
    return json.loads(out)


def test_gitlab_code_quality(project, capsys):
    report = gitlab(capsys, "./pkg")
    assert [{k: v for k, v in e.items() if k != "fingerprint"} for e in report] == [
        {"description": f"BND101 {GATHER}", "check_name": "BND101", "severity": "minor",
         "location": {"path": "pkg/a.py", "lines": {"begin": 5, "end": 5}}},
        {"description": f"BND101 {GATHER}", "check_name": "BND101", "severity": "minor",
         "location": {"path": "pkg/b.py", "lines": {"begin": 5, "end": 5}}},
        {"description": f"BND101 {GATHER}", "check_name": "BND101", "severity": "minor",
         "location": {"path": "pkg/b.py", "lines": {"begin": 14, "end": 14}}},
    ]
    prints = [e["fingerprint"] for e in report]
    assert len(set(prints)) == 3 and all(len(p) == 32 and int(p, 16) >= 0 for p in prints)
    assert [e["fingerprint"] for e in gitlab(capsys, "pkg")] == prints  # stable across runs
    assert gitlab(capsys, "pkg/clean.py") == []


def test_gitlab_fingerprint_survives_a_line_move_but_not_an_edit(project, capsys):
    before = {e["location"]["lines"]["begin"]: e["fingerprint"] for e in gitlab(capsys, "pkg/b.py")}
    (project / "pkg" / "b.py").write_text("import os\n\n\n" + TWO, encoding="utf-8")
    after = {e["location"]["lines"]["begin"]: e["fingerprint"] for e in gitlab(capsys, "pkg/b.py")}
    assert after == {8: before[5], 17: before[14]}
    (project / "pkg" / "b.py").write_text(TWO.replace("async def run(self, ids)", "async def go(self, ids)"),
                                          encoding="utf-8")
    edited = {e["location"]["lines"]["begin"]: e["fingerprint"] for e in gitlab(capsys, "pkg/b.py")}
    assert edited[5] == before[5] and edited[14] != before[14]


def test_gitlab_identical_hazards_get_distinct_fingerprints(project, capsys):
    twice = HAZARD.replace("    await asyncio.gather(*(fetch(i) for i in ids))\n",
                           "    await asyncio.gather(*(fetch(i) for i in ids))\n" * 2)
    (project / "pkg" / "a.py").write_text(twice, encoding="utf-8")
    report = gitlab(capsys, "pkg/a.py")
    assert [e["location"]["lines"]["begin"] for e in report] == [5, 6]
    assert report[0]["fingerprint"] != report[1]["fingerprint"]


def test_gitlab_paths_are_relative_to_ci_project_dir(project, capsys, monkeypatch):
    monkeypatch.setenv("CI_PROJECT_DIR", str(project.parent))
    assert gitlab(capsys, "pkg/a.py")[0]["location"]["path"] == f"{project.name}/pkg/a.py"


def test_unknown_output_format(project, capsys):
    status, out, err = check(capsys, "--output-format", "xml", "pkg")
    assert (status, out) == (2, "")
    assert err.startswith("boundlint: error: argument --output-format: invalid choice: 'xml'")


# -- colour ---------------------------------------------------------------------------------------

BOLD, RED, CYAN, RESET = "\x1b[1m", "\x1b[1;31m", "\x1b[1;36m", "\x1b[0m"
YELLOW = "\x1b[33m"  # the [medium] tag; [high] is RED, [low] green


def test_force_colour_styles_path_code_and_help(project, capsys, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = check(capsys, "pkg/a.py")
    assert out.splitlines() == [
        f"{BOLD}pkg/a.py{RESET}:5:11: {RED}BND101{RESET} {YELLOW}[medium]{RESET} {GATHER}",
        f"    {CYAN}help:{RESET} {HELP}",
        "Found 1 finding in 1 file checked.",
    ]
    _, out, _ = check(capsys, "--output-format", "grouped", "pkg/a.py")
    assert out.splitlines()[:2] == [f"{BOLD}pkg/a.py{RESET}:", f"  5:11 {RED}BND101{RESET} {YELLOW}[medium]{RESET} {GATHER}"]


def test_no_colour_wins_and_machine_formats_and_files_are_never_coloured(project, capsys, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b" not in check(capsys, "--output-format", "json", "pkg")[1]
    assert "\x1b" not in check(capsys, "--output-format", "github", "pkg")[1]
    assert check(capsys, "--output-file", "report.txt", "pkg")[1] == ""
    assert (project / "report.txt").read_text(encoding="utf-8").splitlines() == FULL
    monkeypatch.setenv("NO_COLOR", "1")
    assert check(capsys, "pkg")[1].splitlines() == FULL


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_use_colour_decision():
    tty, pipe = _Tty(), io.StringIO()
    assert use_colour(tty, {}) is True
    assert use_colour(pipe, {}) is False
    assert use_colour(pipe, {"FORCE_COLOR": "1"}) is True
    assert use_colour(tty, {"NO_COLOR": "1"}) is False
    assert use_colour(tty, {"NO_COLOR": "1", "FORCE_COLOR": "1"}) is False
    assert use_colour(tty, {"NO_COLOR": ""}) is True  # only a non-empty value disables
    assert use_colour(pipe, {"FORCE_COLOR": ""}) is False
    assert use_colour(tty, {"TERM": "dumb"}) is False
    closed = io.StringIO()
    closed.close()
    assert use_colour(closed, {}) is False  # isatty raises ValueError
    assert use_colour(object(), {}) is False  # no isatty at all


def test_control_characters_from_the_file_are_not_sent_to_the_terminal():
    assert printable("`log(\"\x1b[2J\")`") == "`log(\"\\x1b[2J\")`"
    assert printable("tab\tstays") == "tab\tstays"


# -- --show-source --------------------------------------------------------------------------------

def _at(line: int, column: int, end_line: int, end_column: int) -> Finding:
    return Finding("m.py", line, column, "BND101", "m", end_line, end_column)


def test_show_source_underlines_the_span():
    lines = ["x = 1", "    result = await asyncio.gather(*jobs)  "]
    # A line-number gutter, the indentation trimmed, the carets under the span.
    assert source_lines(_at(2, 20, 2, 41), lines) == [
        "    2 | result = await asyncio.gather(*jobs)",
        "      | " + " " * 15 + "^" * 21,
    ]
    # A span that goes on below is underlined to the end of its first line (trailing spaces not).
    assert source_lines(_at(2, 14, 4, 2), lines)[1] == "      | " + " " * 9 + "^" * 27
    assert source_lines(_at(1, 6, 1, 6), lines)[1] == "      |      ^"  # an empty span: one caret
    assert source_lines(_at(3, 1, 3, 2), lines) == []
    # A span that starts in the indentation is underlined from the code on.
    assert source_lines(_at(2, 1, 2, 11), lines) == ["    2 | result = await asyncio.gather(*jobs)", "      | ^^^^^^"]
    # The gutter is as wide as the line number.
    many = ["x = 1"] * 119 + ["        go()"]
    assert source_lines(_at(120, 9, 120, 13), many) == ["    120 | go()", "        | ^^^^"]


def test_show_source_lines_up_after_tabs_and_wide_characters():
    tabbed = source_lines(_at(1, 2, 1, 5), ["\tfoo(x)"])
    assert tabbed == ["    1 | foo(x)", "      | ^^^"]
    wide = source_lines(_at(1, 11, 1, 15), ['s = "日本"; f(x)'])
    assert wide[1] == "      | " + " " * 12 + "^^^^"  # each of 日本 takes two columns


def test_show_source_colours_the_carets():
    assert source_lines(_at(1, 1, 1, 4), ["abc"], Palette(True))[1] == f"    {CYAN}  |{RESET} {RED}^^^{RESET}"


def test_severity_is_coloured_on_a_terminal():
    from boundlint.report.text import severity_tag

    tags = [severity_tag(Finding("m.py", 1, 1, "BND101", "m", 1, 2, severity=level), Palette(True))
            for level in ("high", "medium", "low")]
    assert tags == [f"{RED}[high]{RESET} ", f"{YELLOW}[medium]{RESET} ", "\x1b[32m[low]\x1b[0m "]
    assert severity_tag(Finding("m.py", 1, 1, "BND101", "m", 1, 2, severity="high")) == "[high] "


# -- --statistics -----------------------------------------------------------------------------------

def test_statistics_end_with_the_total(project, capsys):
    expected = "3  BND101  unbounded-gather\nFound 3 findings in 3 files checked.\n"
    assert check(capsys, "--statistics", "pkg") == (1, expected, "")
    assert check(capsys, "--statistics", "--quiet", "--output-format", "concise", "pkg")[1] == expected
    assert check(capsys, "--statistics", "pkg/clean.py") == (0, "All clear: 1 file checked.\n", "")
    _, out, _ = check(capsys, "--statistics", "--output-format", "json-lines", "pkg")
    assert [json.loads(line) for line in out.splitlines()] == [
        {"code": "BND101", "name": "unbounded-gather", "count": 3}, {"total": 3, "files_checked": 3}]


def test_statistics_cannot_be_sarif(project, capsys):
    status, out, err = check(capsys, "--statistics", "--output-format", "sarif", "pkg")
    assert (status, out) == (2, "")
    assert err == ("boundlint: error: --statistics prints a table; it cannot be combined with --output-format sarif "
                   "(use full, concise, grouped, json, json-lines)\n")


@pytest.mark.skipif(not hasattr(__import__("os"), "openpty"), reason="needs a pseudo-terminal")
def test_colour_on_a_real_terminal_by_default(project):
    import os
    import subprocess
    import sys

    primary, secondary = os.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    try:
        status = subprocess.run([sys.executable, "-m", "boundlint", "check", "--no-cache", "-q", "pkg/a.py"],
                                stdout=secondary, env=env, timeout=120).returncode
        os.close(secondary)
        out = b""
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # EIO once the terminal is closed and drained
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(primary)
    assert status == 1
    assert out.decode().splitlines()[0] == f"{BOLD}pkg/a.py{RESET}:5:11: {RED}BND101{RESET} {YELLOW}[medium]{RESET} {GATHER}"
