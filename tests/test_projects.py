"""Multi-module projects: facts that live in another module decide a finding, through every way in.

The fixtures under tests/fixtures/projects/ are checked file by file in
tests/test_fixtures.py (in-process, the index built on demand); here the
command line checks whole trees in worker processes, the evidence chains are
asserted, and the result cache is shown to re-judge exactly the modules whose
linked facts changed.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, expected_markers

PROJECTS = FIXTURES / "projects"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "boundlint", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def _expected(root: Path) -> set[tuple[str, int, int, str]]:
    out = set()
    for path in sorted(root.rglob("*.py")):
        for line, col, code in expected_markers(path.read_text(encoding="utf-8")):
            out.add((path.relative_to(root).as_posix(), line, col, code))
    return out


@pytest.mark.parametrize("name", sorted(p.name for p in PROJECTS.iterdir() if p.is_dir()))
def test_project_through_the_command_line(tmp_path, name):
    shutil.copytree(PROJECTS / name, tmp_path / name)
    proc = run("check", "--isolated", "--no-cache", "--format", "json", name, cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    got = {(Path(f["path"]).relative_to(name).as_posix(), f["line"], f["column"], f["code"]) for f in json.loads(proc.stdout)}
    assert got == _expected(tmp_path / name)


def test_one_file_of_a_project_is_judged_with_the_rest(tmp_path):
    """Checking schemas.py alone still sees the route in api/routes.py that takes Lookup as its body."""
    shutil.copytree(PROJECTS / "lookup_service", tmp_path / "lookup_service")
    proc = run("check", "--isolated", "--no-cache", "--format", "json", "lookup_service/schemas.py", cwd=tmp_path)
    found = json.loads(proc.stdout)
    assert [(f["line"], f["code"]) for f in found] == [(7, "BND201")]
    assert found[0]["evidence"] == [
        "request field `Lookup.ids` (lookup_service/schemas.py:7)",
        "parameter `body` of `lookup()` POST /lookup (lookup_service/api/routes.py:11)",
    ]


def test_fanout_chain_crosses_three_modules(tmp_path):
    shutil.copytree(PROJECTS / "lookup_service", tmp_path / "lookup_service")
    proc = run("check", "--isolated", "--no-cache", "--format", "json", "--select", "BND101", "lookup_service", cwd=tmp_path)
    (finding,) = json.loads(proc.stdout)
    assert (finding["path"], finding["line"]) == (os.path.join("lookup_service", "core", "fanout.py"), 8)
    assert finding["evidence"] == [
        "request input `body.ids` of `lookup()` POST /lookup (lookup_service/api/routes.py:11)",
        "`lookup_all(ids)` called by `lookup()` (lookup_service/api/routes.py:12)",
        "one `fetch()` per item of `ids`, passed to `run_all()` (lookup_service/core/service.py:12)",
    ]
    text = run("check", "--isolated", "--no-cache", "--select", "BND101", "lookup_service", cwd=tmp_path).stdout
    assert "    evidence: request input `body.ids` of `lookup()` POST /lookup (lookup_service/api/routes.py:11)" in text


def test_limiters_sized_by_a_caller_in_another_module(tmp_path):
    """refresh.py builds the pool and the semaphores; cli.py passes len(accounts) for their size."""
    shutil.copytree(PROJECTS / "accounts", tmp_path / "accounts")
    proc = run("check", "--isolated", "--no-cache", "--format", "json", "accounts", cwd=tmp_path)
    got = [(f["line"], f["code"], f["evidence"]) for f in json.loads(proc.stdout)]
    assert got == [
        (9, "BND104", ["`len(accounts)` passed as `threads` to `refresh_all()` by `main()` (accounts/cli.py:10)"]),
        (24, "BND101", ["`len(accounts)` passed as `concurrency` to `sync_all()` by `main()` (accounts/cli.py:13)"]),
        (40, "BND103", ["`len(accounts)` passed as `threads` to `export_all()` by `main()` (accounts/cli.py:15)"]),
    ]


def test_caller_that_caps_the_size_bounds_the_pool(tmp_path):
    """The same pool, once the caller passes min(len(accounts), WORKERS): no finding in refresh.py."""
    shutil.copytree(PROJECTS / "accounts", tmp_path / "accounts")
    cli = tmp_path / "accounts" / "cli.py"
    cli.write_text(cli.read_text(encoding="utf-8").replace(
        "threads=len(accounts)", "threads=min(len(accounts), WORKERS)"), encoding="utf-8")
    proc = run("check", "--isolated", "--no-cache", "--format", "json", "--select", "BND104", "accounts", cwd=tmp_path)
    assert json.loads(proc.stdout) == []


def test_shared_project_cases_found(tmp_path):
    cases = Path(__file__).resolve().parents[2] / "shared" / "cases" / "projects"
    if not cases.is_dir():
        pytest.skip("../shared/cases/projects is not beside this checkout")
    shutil.copytree(cases, tmp_path / "projects")
    proc = run("check", "--isolated", "--no-cache", "--format", "json", "projects", cwd=tmp_path)
    got = {(Path(f["path"]).as_posix(), f["line"], f["code"][:4]) for f in json.loads(proc.stdout)}
    families = {"FANOUT": "BND1", "REQUEST-SHAPE": "BND2", "LOG-IN-LOOP": "BND3", "CONN-PER-ITEM": "BND4"}
    want = set()
    for path in sorted((tmp_path / "projects").rglob("*.py")):
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "# expect:" in line:
                fam = line.split("# expect:")[1].strip()
                # a family (FANOUT) or, for rules finer than a family, a code (BND303)
                want.add((path.relative_to(tmp_path).as_posix(), lineno, fam[:4] if fam.startswith("BND") else families[fam]))
    assert got == want


def _findings(proc: subprocess.CompletedProcess) -> set[tuple[str, int, str]]:
    return {(Path(f["path"]).as_posix(), f["line"], f["code"]) for f in json.loads(proc.stdout)}


def test_cache_rejudges_modules_whose_linked_facts_changed(tmp_path):
    """Editing api/routes.py so no route takes Lookup changes what schemas.py reports, on a warm run; and back."""
    shutil.copytree(PROJECTS / "lookup_service", tmp_path / "lookup_service")
    args = ("check", "--isolated", "--format", "json", "--cache-dir", str(tmp_path / "cache"), "--select", "BND2", "lookup_service")
    cold = run(*args, cwd=tmp_path)
    assert ("lookup_service/schemas.py", 7, "BND201") in _findings(cold)
    routes = tmp_path / "lookup_service" / "api" / "routes.py"
    original = routes.read_text(encoding="utf-8")
    routes.write_text(original.replace("body: Lookup", "body: dict").replace("import ExportBatch, Lookup", "import ExportBatch"),
                      encoding="utf-8")
    warm = run(*args, cwd=tmp_path)
    assert ("lookup_service/schemas.py", 7, "BND201") not in _findings(warm)
    routes.write_text(original, encoding="utf-8")
    again = run(*args, cwd=tmp_path)
    assert _findings(again) == _findings(cold)


def _cached_run(tmp_path, monkeypatch, name: str):
    """Copy project *name* into *tmp_path*, work there with fresh indexes, and run it once through the cache.

    Returns ``(files, run)``: the project's files and a function that checks them again with the same cache.
    """
    from boundlint.cache import Cache
    from boundlint.config import Settings
    from boundlint.engine import check_files_cached, set_index_cache
    from boundlint.index import build

    shutil.copytree(PROJECTS / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    files = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / name).rglob("*.py"))
    settings = Settings()
    set_index_cache(None)
    build.reset()
    monkeypatch.setattr(build, "_PROJECTS", {})  # nothing left behind for later tests

    def again():
        return check_files_cached(files, settings, Cache(tmp_path / "c", settings.fingerprint()), jobs=1)

    return files, again


def test_cache_serves_unrelated_modules_without_rejudging(tmp_path, monkeypatch):
    """An edit that changes no answer another module asked for leaves its cached result valid."""
    from boundlint.cache import Cache, content_key
    from boundlint.config import Settings
    from boundlint.index import build

    files, again = _cached_run(tmp_path, monkeypatch, "catalog")
    first = again()
    entry = Cache(tmp_path / "c", Settings().fingerprint()).get(content_key(Path("catalog/sync.py").read_bytes()),
                                                              "catalog/sync.py")
    assert entry is not None and any('"limiter"' in key for key in entry[2])
    # A comment in clients.py changes its content, not the answer sync.py asked of it.
    clients = tmp_path / "catalog" / "clients.py"
    clients.write_text(clients.read_text(encoding="utf-8") + "# reviewed\n", encoding="utf-8")
    build.reset()
    build.prime(files)
    checked: list[str] = []
    import boundlint.engine.run as engine

    real = engine.check_files

    def spy(paths, *a, **k):
        checked.extend(paths)
        return real(paths, *a, **k)

    monkeypatch.setattr(engine, "check_files", spy)
    second = again()
    assert checked == ["catalog/clients.py"]
    assert [r.findings for r in second] == [r.findings for r in first]
    build.reset()


def test_answers_that_stand_after_an_edit_are_asked_once(tmp_path, monkeypatch):
    """After an edit elsewhere, a cached result is re-asked on the next run, and then served without an index."""
    from boundlint.index import build
    import boundlint.engine.run as engine

    _files, again = _cached_run(tmp_path, monkeypatch, "catalog")
    first = again()
    clients = tmp_path / "catalog" / "clients.py"
    clients.write_text(clients.read_text(encoding="utf-8") + "# reviewed\n", encoding="utf-8")
    build.reset()
    asked: list[int] = []
    real_valid = engine._still_valid
    monkeypatch.setattr(engine, "_still_valid", lambda *a: asked.append(1) or real_valid(*a))
    second = again()
    assert len(asked) == 3  # each module (but the edited one) whose judgement asked the project something
    build.reset()
    asked.clear()
    built: list[str] = []
    real_build = build.build_index
    monkeypatch.setattr(build, "build_index", lambda *a, **k: built.append(a[0]) or real_build(*a, **k))
    third = again()
    assert asked == [] and built == []
    assert [r.findings for r in third] == [r.findings for r in second] == [r.findings for r in first]
    build.reset()


def test_unchanged_project_is_served_without_building_an_index(tmp_path, monkeypatch):
    """While no module of the project changed, a cached result's answers stand: no index is built."""
    from boundlint.index import build

    _files, again = _cached_run(tmp_path, monkeypatch, "lookup_service")
    first = again()
    assert any(f.evidence for r in first for f in r.findings)
    build.reset()
    built: list[str] = []
    real = build.build_index
    monkeypatch.setattr(build, "build_index", lambda *a, **k: built.append(a[0]) or real(*a, **k))
    second = again()
    assert built == [] and build._PROJECTS == {}
    assert [r.findings for r in second] == [r.findings for r in first]
    build.reset()
