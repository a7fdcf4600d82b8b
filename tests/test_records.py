"""Settings, Finding, FileResult, ModuleEntry and ProjectIndex: plain classes that behave as the dataclasses they were.

They are not dataclasses so that a run served from the cache never imports ``dataclasses``
(which imports inspect, ast and tokenize); these tests pin the behaviour that must not change.
"""
from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

from boundlint.config import Settings, merge_cli
from boundlint.engine.result import FileResult
from boundlint.finding import Finding
from boundlint.index.project import ModuleEntry, ProjectIndex

RICH = Settings(select=("BND1",), ignore=("BND101",), per_file_ignores=(("tests/*", ("BND",)),), timeout=5.0,
                min_severity="low", extra=(("bounded-names", ("a", "b")), ("tables", (("x", ("y",)),))))


def test_fingerprint_is_the_one_the_dataclass_gave():
    # Computed with Settings as a dataclass (json.dumps(asdict(...))): the cache keys must not change.
    assert Settings().fingerprint() == "a3edebf6f5498045"
    assert RICH.fingerprint() == "bebe8a6576fa0cf6"


def test_settings_fields_defaults_and_positional_order():
    assert Settings._fields == ("select", "ignore", "extend_select", "extend_ignore", "per_file_ignores", "exclude",
                                "extend_exclude", "respect_gitignore", "timeout", "min_severity", "extra")
    s = Settings()
    assert (s.select, s.ignore, s.respect_gitignore, s.timeout, s.min_severity, s.extra) == (
        ("BND",), (), True, 60.0, "medium", ())
    assert Settings(*RICH) == RICH
    assert repr(Settings()) == ("Settings(select=('BND',), ignore=(), extend_select=(), extend_ignore=(), "
                                "per_file_ignores=(), exclude=(), extend_exclude=(), respect_gitignore=True, "
                                "timeout=60.0, min_severity='medium', extra=())")


def test_settings_frozen_hashable_picklable_and_replaced():
    with pytest.raises(AttributeError):
        RICH.timeout = 1.0
    assert hash(Settings(timeout=5.0)) == hash(Settings(timeout=5.0)) and Settings(timeout=5.0) == Settings(timeout=5.0)
    assert Settings(timeout=5.0) != Settings()
    assert pickle.loads(pickle.dumps(RICH)) == RICH and type(pickle.loads(pickle.dumps(RICH))) is Settings
    changed = merge_cli(RICH, min_severity="high", extend_ignore=["BND2"], select=None)
    assert (changed.min_severity, changed.extend_ignore, changed.select) == ("high", ("BND2",), ("BND1",))
    assert type(changed) is Settings and changed.enabled("BND102") and not changed.enabled("BND101")


def test_finding_order_hash_immutability_and_pickle():
    a = Finding("a.py", 3, 1, "BND101", "m", 3, 9)
    b = Finding("a.py", 3, 1, "BND102", "m", 3, 9, "hint", ("why (a.py:1)",), "high", "reason")
    c = Finding(path="a.py", line=2, column=5, code="BND201", message="m", end_line=2, end_column=6)
    assert sorted([b, a, c]) == [c, a, b]  # the fields compared in order, as a tuple
    assert (a.hint, a.evidence, a.severity, a.severity_reason) == ("", (), "medium", "")
    assert a == Finding("a.py", 3, 1, "BND101", "m", 3, 9) and hash(a) == hash(Finding("a.py", 3, 1, "BND101", "m", 3, 9))
    assert len({a, b, c, a}) == 3
    with pytest.raises(AttributeError):
        a.line = 4
    assert pickle.loads(pickle.dumps(b)) == b and type(pickle.loads(pickle.dumps(b))) is Finding
    assert a._replace(severity="low").severity == "low"
    assert repr(c) == ("Finding(path='a.py', line=2, column=5, code='BND201', message='m', end_line=2, end_column=6, "
                       "hint='', evidence=(), severity='medium', severity_reason='', fix='')")


def test_file_result_defaults_equality_repr_and_pickle():
    r = FileResult("a.py")
    assert (r.findings, r.lines, r.facts, r.consulted, r.failed) == ([], 0, None, None, False)
    assert FileResult("a.py").findings is not r.findings  # a fresh list each time
    full = FileResult("a.py", [Finding("a.py", 1, 1, "BND101", "m", 1, 2)], 7, {"x": 1}, {"q": "d"}, True)
    assert full == pickle.loads(pickle.dumps(full)) and full != r
    r.findings = [1]  # mutable
    assert r != FileResult("a.py")
    with pytest.raises(TypeError):
        hash(r)
    assert repr(FileResult("a.py")) == "FileResult(path='a.py', findings=[], lines=0, facts=None, consulted=None, failed=False)"


def test_module_entry_and_index_as_dataclasses():
    entry = ModuleEntry("p/a.py", ["a"], {"functions": {}}, is_package=False)
    # query answers are digested through the repr: it is the dataclass's
    assert repr(entry) == "ModuleEntry(path='p/a.py', names=['a'], summary={'functions': {}}, is_package=False)"
    assert entry == ModuleEntry("p/a.py", ["a"], {"functions": {}}) and entry != ModuleEntry("p/b.py", ["a"], {})
    index = ProjectIndex("p")
    assert (index.modules, index.by_path, index._reverse, index.memo) == ({}, {}, None, {})
    assert ProjectIndex("q").modules is not index.modules
    index.add(entry)
    assert index.modules == {"a": entry} and pickle.loads(pickle.dumps(index)) == index
    assert repr(ProjectIndex("r")) == "ProjectIndex(root='r', modules={}, by_path={}, _reverse=None, memo={})"


def test_a_warm_run_does_not_import_dataclasses(tmp_path):
    (tmp_path / "m.py").write_text("import asyncio\n\n\nasync def f(ids):\n    await asyncio.gather(*(g(i) for i in ids))\n")
    cmd = [sys.executable, "-X", "importtime", "-m", "boundlint", "check", "--exit-zero", "-q", "--isolated",
           "--cache-dir", str(tmp_path / "cache"), str(tmp_path / "m.py")]
    subprocess.run(cmd, capture_output=True, check=True)  # fills the cache
    warm = subprocess.run(cmd, capture_output=True, text=True, check=True)
    assert "BND101" in warm.stdout
    imported = [line.rsplit("|", 1)[-1].strip() for line in warm.stderr.splitlines() if line.startswith("import time:")]
    assert "boundlint.cache" in imported and "dataclasses" not in imported
