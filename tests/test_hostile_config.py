"""Config values and numeric options are validated, not trusted (issue 32): one line, exit 2, key and source named."""
from __future__ import annotations

import time

import pytest

from boundlint.cli import main
from boundlint.patterns import _compile, calm

GATHER = "import asyncio\n\n\nasync def handler(ids):\n    await asyncio.gather(*[fetch(i) for i in ids])\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text(GATHER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def one_error(capsys, argv) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "internal error" not in err, err
    return err.rstrip("\n")


@pytest.mark.parametrize(("value", "shown"), [("inf", "inf"), ("-inf", "-inf"), ("nan", "nan"), ("1e308", "1e+308"),
                                              ("9223372036854775807", "9223372036854775807"), ("0", "0"),
                                              ("-5", "-5"), ("86401", "86401")])
def test_timeout_in_config_out_of_range(project, capsys, value, shown):
    (project / "pyproject.toml").write_text(f"[tool.boundlint]\ntimeout = {value}\n", encoding="utf-8")
    assert one_error(capsys, ["check", "--no-cache", "."]) == (
        "boundlint: error: pyproject.toml: tool.boundlint.timeout must be a positive number of seconds up to 86400, "
        f"got {shown}")


def test_timeout_in_range_is_taken(project, capsys):
    (project / "pyproject.toml").write_text("[tool.boundlint]\ntimeout = 86400\n", encoding="utf-8")
    assert main(["check", "--no-cache", "--output-format", "concise", "."]) == 1
    assert capsys.readouterr().out.startswith("a.py:5:11: BND101 [medium]")


@pytest.mark.parametrize(("value", "shown"), [("inf", "inf"), ("nan", "nan"), ("1e308", "1e+308"),
                                              ("9223372036854775807", "9.223372036854776e+18"), ("-1", "-1.0")])
def test_timeout_on_the_command_line_out_of_range(project, capsys, value, shown):
    assert one_error(capsys, ["check", "--no-cache", "--timeout", value, "."]) == (
        f"boundlint: error: --timeout must be a positive number of seconds up to 86400, got {shown}")


@pytest.mark.parametrize(("argv", "message"), [
    (["check", "--jobs", "99999999999999999999", "."], "--jobs must be from 1 to 1024, got 99999999999999999999"),
    (["audit", "--top", "-5", "."], "--top must be from 0 (every handler) to 1000000, got -5"),
    (["audit", "--top", "10000000000", "."], "--top must be from 0 (every handler) to 1000000, got 10000000000"),
    (["audit", "--jobs", "5000", "."], "--jobs must be from 1 to 1024, got 5000"),
])
def test_numeric_options_out_of_range(project, capsys, argv, message):
    assert one_error(capsys, argv) == f"boundlint: error: {message}"


@pytest.mark.parametrize("pattern", ["!", "\\"])
def test_an_exclude_pattern_that_cannot_compile(project, capsys, pattern):
    (project / "pyproject.toml").write_text(f"[tool.boundlint]\nexclude = ['{pattern}']\n", encoding="utf-8")
    shown = repr(pattern)
    assert one_error(capsys, ["check", "--no-cache", "."]) == (
        f"boundlint: error: pyproject.toml: tool.boundlint.exclude: invalid pattern {shown} "
        "(gitignore syntax: a `!` needs a pattern after it, a `\\` a character)")
    (project / "pyproject.toml").unlink()
    assert "invalid pattern '!'" in one_error(capsys, ["check", "--no-cache", "--extend-exclude", "!", "."])


def test_a_gitignore_pattern_that_cannot_compile(project, capsys):
    (project / ".gitignore").write_text("build/\n!\n", encoding="utf-8")
    assert one_error(capsys, ["check", "--no-cache", "."]) == (
        f"boundlint: error: {project / '.gitignore'}: line 2: invalid pattern '!'")


def test_thirty_stars_do_not_backtrack(project, capsys):
    (project / "pyproject.toml").write_text("[tool.boundlint]\nexclude = ['" + "*" * 30 + "x']\n", encoding="utf-8")
    (project / ("b" * 60 + ".py")).write_text(GATHER, encoding="utf-8")
    spec = _compile(["*" * 30 + "x"])
    started = time.process_time()
    assert not spec.match_file("a" * 60 + ".py")  # minutes of backtracking before the mend
    assert time.process_time() - started < 1
    assert main(["check", "--no-cache", "--output-format", "concise", "."]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[0] for line in out[:2]] == ["a.py:5:11", "b" * 60 + ".py:5:11"]


@pytest.mark.parametrize(("line", "calmed"), [
    ("*" * 30 + "x", "*x"), ("***/x", "*/x"), ("**/a", "**/a"), ("a/**", "a/**"), ("a/**/b", "a/**/b"),
    ("a**b", "a*b"), ("*?*?", "??*"), ("\\**", "\\**"), ("[*]**", "[*]*"), ("a?b", "a?b"), ("!**x", "!*x"),
])
def test_calm_keeps_what_a_pattern_matches(line, calmed):
    import pathspec

    assert calm(line) == calmed
    raw = pathspec.GitIgnoreSpec.from_lines([line])  # uncalmed: what pathspec alone answers
    for path in ["x", "ax", "a/x", "a/b/x", "a/b", "ab", "a/c/b", "axb", "abc", "*x", "**", "a", "a/b/"]:
        assert bool(_compile([line]).match_file(path)) == bool(raw.match_file(path)), (line, path)
