"""The flake8 plugin, run through real flake8 in a subprocess: the same findings as ``boundlint check``.

flake8 owns selection and ``# noqa`` in plugin mode; the plugin only reads
``[tool.boundlint]`` analysis options.  BND900 (a malformed ``# noqa``) runs
under flake8 too, and a file Python cannot parse is flake8's E999, not BND001.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from boundlint.rules.base import all_rules
from conftest import FIXTURES

pytest.importorskip("flake8")

LINE = re.compile(r"^(.*?):(\d+):(\d+): ([A-Z]+\d+) (.*)$")


def flake8(*args: str, cwd: Path | str = FIXTURES.parent) -> tuple[int, set[tuple[str, int, int, str, str]]]:
    """Exit status and ``(path, line, col, code, message)`` findings of a real flake8 run (config files ignored)."""
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    out = set()
    for line in proc.stdout.splitlines():
        m = LINE.match(line)
        assert m, line
        out.add((str(Path(m[1])), int(m[2]), int(m[3]), m[4], m[5]))
    return proc.returncode, out


def boundlint(*args: str, cwd: Path | str = FIXTURES.parent) -> set[tuple[str, int, int, str, str]]:
    # --no-cache: the check's cache would land in cwd (the repository's tests/ folder)
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--format", "json", "--isolated", "--no-cache",
                           *args],
                          cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    return {(str(Path(f["path"])), f["line"], f["column"], f["code"], f["message"]) for f in json.loads(proc.stdout)}


def _split(found):
    e999 = {f[0] for f in found if f[3] == "E999"}
    return e999, {f for f in found if f[3] != "E999"}


@pytest.fixture(scope="module")
def expected():
    """boundlint check over every fixture; files Python cannot parse (BND001) set apart."""
    found = boundlint("fixtures")
    unparseable = {f[0] for f in found if f[3] == "BND001"}
    assert unparseable, "a fixture with a syntax error is expected (bnd001.py)"
    return unparseable, {f for f in found if f[3] != "BND001"}


def test_plugin_is_registered():
    proc = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True, timeout=60)
    assert "boundlint: " in proc.stdout


def test_every_fixture_same_findings_as_boundlint_check(expected):
    unparseable, findings = expected
    status, found = flake8("--select", "BND,E999", "fixtures")
    e999, found = _split(found)
    assert e999 == unparseable
    assert found == findings
    assert status == 1


def test_parallel_jobs_same_findings(expected):
    _, findings = expected
    _, found = flake8("--select", "BND", "-j", "2", "fixtures")
    assert found == findings


def test_extend_select_keeps_flake8_defaults(expected):
    _, findings = expected
    _, found = flake8("--select", "E9", "--extend-select", "BND101", "fixtures")
    assert {f for f in found if f[3].startswith("BND")} == {f for f in findings if f[3] == "BND101"}
    assert {f[3] for f in found} <= {"E999", "BND101"}


def test_ignore(expected):
    _, findings = expected
    _, found = flake8("--select", "BND", "--ignore", "BND101", "fixtures")
    assert found == {f for f in findings if f[3] != "BND101"}


def test_per_file_ignores(expected):
    _, findings = expected
    target = str(Path("fixtures") / "bnd101.py")
    assert any(f[0] == target for f in findings)
    _, found = flake8("--select", "BND", f"--per-file-ignores={target}:BND1", "fixtures")
    assert found == {f for f in findings if not (f[0] == target and f[3].startswith("BND1"))}


def test_malformed_noqa_reported_under_flake8():
    _, found = flake8("--select", "BND", "fixtures/bnd900.py")
    assert sorted((f[1], f[2], f[3]) for f in found) == [
        (10, 11, "BND101"), (10, 61, "BND900"), (11, 68, "BND900"), (12, 31, "BND900"), (13, 35, "BND900"),
        (14, 31, "BND900"), (15, 24, "BND900"), (16, 23, "BND900")]


HAZARD = """\
import asyncio


async def handler(ids):
    await asyncio.gather(*(fetch(i) for i in ids)){comment}


async def fetch(i):
    return await client.get(i)
"""


@pytest.mark.parametrize(("comment", "reported"), [
    ("", True),
    ("  # noqa: BND101", False),
    ("  # noqa: BND1", False),
    ("  # noqa", False),
    ("  # noqa: E501", True),
    ("  # noqa: BND102", True),
])
def test_noqa_is_flake8s(tmp_path, comment, reported):
    (tmp_path / "mod.py").write_text(HAZARD.format(comment=comment), encoding="utf-8")
    _, found = flake8("--select", "BND", "mod.py", cwd=tmp_path)
    assert {(f[1], f[2], f[3]) for f in found} == ({(5, 11, "BND101")} if reported else set())
    # The adapter leaves noqa to flake8: with flake8's noqa off, the finding is there.
    _, raw = flake8("--select", "BND", "--disable-noqa", "mod.py", cwd=tmp_path)
    assert {(f[1], f[2], f[3]) for f in raw} == {(5, 11, "BND101")}


@pytest.mark.skipif("BND201" not in all_rules(), reason="needs the request-shape rules")
def test_reads_analysis_options_from_pyproject(tmp_path):
    (tmp_path / "m.py").write_text("from pydantic import BaseModel\n\n\nclass Thing(BaseModel):\n    ids: list[int]\n",
                                   encoding="utf-8")
    assert flake8("--select", "BND", "m.py", cwd=tmp_path)[1] == set()
    (tmp_path / "pyproject.toml").write_text('[tool.boundlint.request-shape]\nrequest-model-patterns = ["Thing"]\n',
                                             encoding="utf-8")
    _, found = flake8("--select", "BND", "m.py", cwd=tmp_path)
    assert {(f[1], f[2], f[3]) for f in found} == {(5, 5, "BND201")}
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--format", "json", "m.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert {(f["line"], f["column"], f["code"]) for f in json.loads(proc.stdout)} == {(5, 5, "BND201")}


def test_broken_config_is_one_line_per_file_not_a_traceback(tmp_path):
    (tmp_path / "m.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.boundlint.churn]\nclient-factory = ["x"]\n', encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "BND", "m.py"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stdout == ("m.py:1:1: BND001 cannot check this file: pyproject.toml: unknown key 'client-factory' "
                           "in [tool.boundlint.churn]; did you mean 'client-factories'?\n")
