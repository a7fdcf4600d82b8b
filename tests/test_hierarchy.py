"""Per-file configuration: each file is judged by the [tool.boundlint] of its nearest pyproject.toml.

The monorepo below has two sub-projects whose configs disagree, and a root
with none.  Every run over it, in any order of paths or files, must give the
same findings: each file's own config's selection, exclude and per-file-ignores
(anchored at that config's directory), with the command line on top.
"""
from __future__ import annotations

import json
import os
import random

import pytest

from boundlint.cli import main
from boundlint.hierarchy import ConfigTree

# BND101 at 5:11; the bogus noqa code gives BND900 at 5:61 unless a config ignores BND900 (svc_b's does).
HAZARD = """\
import asyncio


async def handler(ids):
    await asyncio.gather(*(fetch(i) for i in ids))  # noqa: BND1001


async def fetch(i):
    return await client.get(i)
"""
A_CONFIG = '[tool.boundlint]\nextend-select = ["BND900"]\n\n[tool.boundlint.per-file-ignores]\n"tests/**" = ["BND1"]\n'
B_CONFIG = '[tool.boundlint]\nexclude = ["gen/"]\nextend-ignore = ["BND900"]\n'
FILES = ["svc_a/app.py", "svc_a/tests/app_checks.py", "svc_a/gen/client.py",
         "svc_b/app.py", "svc_b/tests/app_checks.py", "svc_b/gen/client.py", "top.py"]
# What each file's own config says (svc_b/gen/client.py is excluded by svc_b's config).
EXPECTED = [
    ("svc_a/app.py", 5, 11, "BND101"), ("svc_a/app.py", 5, 61, "BND900"),
    ("svc_a/gen/client.py", 5, 11, "BND101"), ("svc_a/gen/client.py", 5, 61, "BND900"),
    ("svc_a/tests/app_checks.py", 5, 61, "BND900"),
    ("svc_b/app.py", 5, 11, "BND101"),
    ("svc_b/tests/app_checks.py", 5, 11, "BND101"),
    ("top.py", 5, 11, "BND101"), ("top.py", 5, 61, "BND900"),
]


@pytest.fixture
def monorepo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    for name in FILES:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HAZARD, encoding="utf-8")
    (tmp_path / "svc_a" / "pyproject.toml").write_text(A_CONFIG, encoding="utf-8")
    (tmp_path / "svc_b" / "pyproject.toml").write_text(B_CONFIG, encoding="utf-8")
    (tmp_path / "svc_b" / "gen" / "pyproject.toml").write_text("[project]\nname = 'gen'\n", encoding="utf-8")  # no table
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["check", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def found(capsys, *args: str) -> list[tuple[str, int, int, str]]:
    status, out, err = run(capsys, "--format", "json", "--no-cache", "-j", "1", *args)
    assert status in (0, 1), err
    return [(os.path.normpath(f["path"]).replace(os.sep, "/"), f["line"], f["column"], f["code"]) for f in json.loads(out)]


def test_same_findings_whatever_the_order_of_the_paths(monorepo, capsys):
    assert found(capsys, "svc_a", "svc_b", "top.py") == EXPECTED
    assert found(capsys, "svc_b", "svc_a", "top.py") == EXPECTED
    assert found(capsys, "top.py", "svc_b", "svc_a") == EXPECTED
    assert found(capsys, ".") == EXPECTED
    assert found(capsys, "-j", "2", "svc_b", "top.py", "svc_a") == EXPECTED  # files of both configs in each worker


def test_same_findings_whatever_the_order_of_named_files(monorepo, capsys):
    # pre-commit names the staged files, in any order; exclude applies to named files too.
    names = list(FILES)
    for seed in range(3):
        random.Random(seed).shuffle(names)
        assert found(capsys, *names) == EXPECTED, names
    assert found(capsys, "svc_b/app.py", "svc_a/tests/app_checks.py") == [
        ("svc_a/tests/app_checks.py", 5, 61, "BND900"), ("svc_b/app.py", 5, 11, "BND101")]


def test_command_line_flags_apply_on_top_of_each_config(monorepo, capsys):
    assert found(capsys, "--ignore", "BND101", ".") == [
        ("svc_a/app.py", 5, 61, "BND900"), ("svc_a/gen/client.py", 5, 61, "BND900"),
        ("svc_a/tests/app_checks.py", 5, 61, "BND900"), ("top.py", 5, 61, "BND900")]
    # --extend-exclude joins each config's own list (svc_b keeps gen/ out; svc_a now too).
    assert [f[0] for f in found(capsys, "--extend-exclude", "gen/", ".")] == [
        "svc_a/app.py", "svc_a/app.py", "svc_a/tests/app_checks.py", "svc_b/app.py", "svc_b/tests/app_checks.py", "top.py",
        "top.py"]
    # --exclude replaces every config's list: svc_b/gen is checked again.
    assert ("svc_b/gen/client.py", 5, 11, "BND101") in found(capsys, "--exclude", "nothing/", ".")


def test_config_flag_overrides_every_config_and_isolated_ignores_them(monorepo, capsys):
    (monorepo / "only.toml").write_text('select = ["BND9"]\n', encoding="utf-8")
    assert [f[3] for f in found(capsys, "--config", "only.toml", ".")] == ["BND900"] * 7
    assert found(capsys, "--isolated", "svc_b/gen/client.py", "svc_a/tests/app_checks.py") == [
        ("svc_a/tests/app_checks.py", 5, 11, "BND101"), ("svc_a/tests/app_checks.py", 5, 61, "BND900"),
        ("svc_b/gen/client.py", 5, 11, "BND101"), ("svc_b/gen/client.py", 5, 61, "BND900")]


def test_cache_keeps_each_files_settings_apart(monorepo, capsys):
    # svc_a/app.py and svc_b/app.py have the same bytes but different configs: one cache entry each.
    args = ["--format", "json", "--cache-dir", str(monorepo / "cache"), "-j", "1", "svc_a/app.py", "svc_b/app.py"]
    want = [("svc_a/app.py", 5, 11, "BND101"), ("svc_a/app.py", 5, 61, "BND900"), ("svc_b/app.py", 5, 11, "BND101")]
    for _ in range(2):  # a cold run, then one served from the cache
        status, out, _ = run(capsys, *args)
        assert [(f["path"], f["line"], f["column"], f["code"]) for f in json.loads(out)] == want
    shards = [p for p in (monorepo / "cache").glob("*/*/*.json") if not p.parent.name.startswith("index-")]
    assert len(shards) == 2  # one shard in each of two variants (index-*: the project index's summaries)


def test_show_files_lists_what_a_run_checks(monorepo, capsys):
    status, out, err = run(capsys, "--show-files", "svc_b", "svc_a", "top.py")
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        os.path.normpath(p) for p in ("svc_a/app.py", "svc_a/gen/client.py", "svc_a/tests/app_checks.py",
                                      "svc_b/app.py", "svc_b/tests/app_checks.py", "top.py")]


def test_show_settings_says_where_each_value_comes_from(monorepo, capsys):
    status, out, err = run(capsys, "--show-settings", "--extend-ignore", "BND102", "--timeout", "30",
                           "svc_a/tests/app_checks.py")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    cfg = os.path.join("svc_a", "pyproject.toml")
    assert lines[0] == "# Settings for svc_a/tests/app_checks.py"
    assert lines[1] == f"# config: {cfg}; patterns are relative to svc_a"
    rows = {line.split(" = ")[0]: (line.split(" = ", 1)[1].rsplit("  # ", 1)[0].strip(), line.rsplit("  # ", 1)[1])
            for line in lines[2:] if not line.startswith("#")}
    assert rows["select"] == ('["BND"]', "default")
    assert rows["extend-select"] == ('["BND900"]', cfg)
    assert rows["extend-ignore"] == ('["BND102"]', "command line")
    assert rows["per-file-ignores"] == ('{"tests/**" = ["BND1"]}', cfg)
    assert rows["timeout"] == ("30", "command line")
    assert rows["fanout.limiter-helpers"] == ("[]", "default")
    assert rows["fix-max-items"] == ("1000", "default") and rows["fix-concurrency"] == ("16", "default")
    assert len(rows) == 10 + 4 + 10  # every top-level key, the four fix keys and every family option
    size = len(HAZARD.encode())
    assert lines[-1] == f"# time limit for this file: 30.0 s (timeout + 60 s per MB; the file is {size} bytes)"
    status, out, _ = run(capsys, "--show-settings", "top.py")
    assert out.splitlines()[1] == "# config: none (defaults); patterns are relative to ."


def test_no_python_files_is_a_warning_and_exit_0(monorepo, capsys):
    (monorepo / "docs").mkdir()
    (monorepo / "docs" / "index.md").write_text("# docs\n", encoding="utf-8")
    assert run(capsys, "docs") == (0, "All clear: 0 files checked.\n",
                                   "boundlint: warning: No Python files found under the given path(s)\n")
    assert run(capsys, "--format", "json", "svc_b/gen/client.py") == (
        0, "[]\n", "boundlint: warning: svc_b/gen/client.py is not checked: it matches the `exclude` pattern 'gen/' "
                    "of svc_b/pyproject.toml\nboundlint: warning: No Python files found under the given path(s)\n")
    assert run(capsys, "-q", "docs") == (0, "", "")


def test_verbose_names_every_config_used(monorepo, capsys):
    _, _, err = run(capsys, "-q", "--no-cache", "--verbose", "svc_b", "svc_a", "top.py")
    assert err.splitlines() == ["boundlint: config: none (defaults)",
                                f"boundlint: config: {monorepo / 'svc_a' / 'pyproject.toml'}",
                                f"boundlint: config: {monorepo / 'svc_b' / 'pyproject.toml'}"]


def test_a_broken_config_is_reported_when_a_file_needs_it(monorepo, capsys):
    (monorepo / "svc_b" / "pyproject.toml").write_text("[tool.boundlint]\nselct = []\n", encoding="utf-8")
    assert found(capsys, "svc_a") == EXPECTED[:5]  # svc_b's config is never read
    status, out, err = run(capsys, "svc_a", "svc_b")
    assert (status, out) == (2, "")
    assert err == (f"boundlint: error: {os.path.join('svc_b', 'pyproject.toml')}: unknown key 'selct' in "
                   "[tool.boundlint]; did you mean 'select'?\n")


def test_audit_judges_each_file_by_its_own_config(monorepo, capsys):
    # svc_b ignores BND900, svc_a does not: the audit fails on it whatever the order of the paths.
    assert main(["audit", "-q", "-j", "1", "--fail-on", "BND900", "--format", "json", "svc_b", "svc_a"]) == 1
    assert main(["audit", "-q", "-j", "1", "--fail-on", "BND900", "--format", "json", "svc_a", "svc_b"]) == 1
    assert main(["audit", "-q", "-j", "1", "--fail-on", "BND900", "--format", "json", "svc_b"]) == 0
    capsys.readouterr()
    (monorepo / "docs").mkdir()
    assert main(["audit", "--format", "json", "docs"]) == 0
    assert capsys.readouterr().err == "boundlint audit: warning: No Python files found under the given path(s)\n"


def test_tree_answers_once_per_directory(monorepo):
    tree = ConfigTree()
    a = tree.for_path("svc_a/tests/app_checks.py")
    assert a.path == str(monorepo / "svc_a" / "pyproject.toml") and a.root == str(monorepo / "svc_a")
    assert tree.for_path("svc_a/gen/client.py") is a
    assert tree.for_path("svc_b/gen/client.py").path == str(monorepo / "svc_b" / "pyproject.toml")
    assert tree.for_path("top.py").path is None
    assert tree.ignored("svc_a/tests/app_checks.py", "BND101") and not tree.ignored("svc_b/tests/app_checks.py", "BND101")
