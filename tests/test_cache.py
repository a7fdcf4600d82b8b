"""The result cache: hits give the same findings, damage is ignored and rebuilt, concurrent runs are safe."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from boundlint.cache import Cache, content_key, entry_key
from boundlint.config import Settings
from boundlint.engine import check_files_cached
from boundlint.finding import Finding

HAZARD = "import asyncio\n\nasync def handler(ids):\n    return await asyncio.gather(*(f(i) for i in ids))\n"


def _tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.py").write_text(HAZARD)
    (src / "b.py").write_text("x = 1\n")
    return src


def _run(cache_dir: Path, paths: list[str]):
    cache = Cache(cache_dir, Settings().fingerprint())
    return check_files_cached(paths, Settings(), cache, jobs=1)


def _shards(cache_dir: Path) -> list[Path]:
    return sorted(cache_dir.rglob("*.json"))


def test_hit_returns_identical_findings_and_lines(tmp_path):
    src = _tree(tmp_path)
    paths = sorted(str(p) for p in src.glob("*.py"))
    cold = _run(tmp_path / "c", paths)
    assert [(f.code, f.line, f.column) for r in cold for f in r.findings] == [("BND101", 4, 18)]
    assert _shards(tmp_path / "c")
    warm = _run(tmp_path / "c", paths)
    assert [(r.path, r.findings, r.lines) for r in warm] == [(r.path, r.findings, r.lines) for r in cold]


def test_a_hit_needs_the_same_text_at_the_same_path(tmp_path):
    cache = Cache(tmp_path / "c", "fp")
    key = content_key(HAZARD.encode())
    cache.put(key, "old.py", [Finding("old.py", 4, 18, "BND101", "m", 4, 60, "h")], 4)
    cache.flush()
    findings, lines, _consulted = Cache(tmp_path / "c", "fp").get(key, "old.py")
    assert (findings[0].path, findings[0].line, lines) == ("old.py", 4, 4)
    # the same text elsewhere is another module: other names, perhaps another project, other evidence
    assert Cache(tmp_path / "c", "fp").get(key, "new.py") is None


def test_identical_files_in_two_places_keep_their_own_results(tmp_path):
    """A model used as a request body in one package and not in its copy: each copy keeps its own verdict."""
    root = tmp_path / "dup"
    for package in ("a", "b"):
        (root / package).mkdir(parents=True)
        (root / package / "__init__.py").write_text("")
        (root / package / "models.py").write_text(
            "from pydantic import BaseModel\n\n\nclass Lookup(BaseModel):\n    ids: list[str]\n")
    (root / "pyproject.toml").write_text("")
    (root / "a" / "routes.py").write_text(
        "from fastapi import APIRouter\n\nfrom a.models import Lookup\n\nrouter = APIRouter()\n\n\n"
        "@router.post(\"/lookup\")\nasync def lookup(body: Lookup) -> dict:\n    return {\"n\": len(body.ids)}\n")
    paths = sorted(str(p) for p in root.rglob("*.py"))
    found = lambda results: [(os.path.relpath(r.path, root), f.code, f.line) for r in results for f in r.findings]
    cold = found(_run(tmp_path / "c", paths))
    assert cold == [(os.path.join("a", "models.py"), "BND201", 5)]
    assert found(_run(tmp_path / "c", paths)) == cold
    assert found(_run(tmp_path / "c", paths)) == cold


def test_truncated_and_garbage_shards_are_ignored_and_rebuilt(tmp_path):
    src = _tree(tmp_path)
    paths = sorted(str(p) for p in src.glob("*.py"))
    _run(tmp_path / "c", paths)
    shards = _shards(tmp_path / "c")
    shards[0].write_text(shards[0].read_text()[:7])  # truncated mid-write by something else
    if len(shards) > 1:
        shards[1].write_bytes(b"\x00garbage\xff")
    again = _run(tmp_path / "c", paths)
    assert [(f.code, f.line) for r in again for f in r.findings] == [("BND101", 4)]
    for shard in _shards(tmp_path / "c"):
        assert isinstance(json.loads(shard.read_text()), dict)  # rewritten whole


def test_a_wrong_shape_entry_is_a_miss(tmp_path):
    cache = Cache(tmp_path / "c", "fp")
    key = "ab" + "0" * 30
    cache.put(key, "x.py", [], 1)
    assert cache.get(key, "x.py") == ([], 1, {})
    entry = entry_key(key, "x.py")
    cache._shard(entry[:2])[entry] = ["not", "an", "entry"]
    assert cache.get(key, "x.py") is None


def test_size_is_bounded_least_recently_used_first(tmp_path):
    cache = Cache(tmp_path / "c", "fp", max_entries=256 * 16)
    paths = (f"m{i}.py" for i in range(1_000_000))
    placed = 0
    while placed < 40:  # 40 files whose entries share the shard "aa"
        path = next(paths)
        if entry_key("k" * 32, path).startswith("aa"):
            cache.put("k" * 32, path, [], 1)
            cache._shards["aa"][entry_key("k" * 32, path)][0] = placed  # last-used time
            placed += 1
    cache.flush()
    kept = json.loads(next((tmp_path / "c").rglob("aa.json")).read_text())
    assert len(kept) == 16
    assert min(v[0] for v in kept.values()) == 24


def test_only_the_cache_dir_is_written(tmp_path):
    src = _tree(tmp_path)
    before = {p: p.stat().st_mtime_ns for p in src.rglob("*")}
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    subprocess.run([sys.executable, "-m", "boundlint", "check", "-q", "--cache-dir", str(tmp_path / "c"), str(src)],
                   cwd=cwd, capture_output=True, check=False)
    assert {p: p.stat().st_mtime_ns for p in src.rglob("*")} == before
    assert list(cwd.iterdir()) == []
    assert (tmp_path / "c" / "CACHEDIR.TAG").exists()


def test_two_runs_at_once_neither_crash_nor_corrupt(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(40):
        (src / f"m{i}.py").write_text(HAZARD if i % 2 else f"x = {i}\n")
    cmd = [sys.executable, "-m", "boundlint", "check", "--format", "json", "--cache-dir", str(tmp_path / "c"), str(src)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [1, 1, 1], [err for _, err in outs]
    results = [json.loads(out) for out, _ in outs]
    assert results[0] == results[1] == results[2]
    assert len(results[0]) == 20
    for shard in _shards(tmp_path / "c"):
        json.loads(shard.read_text())
    warm = subprocess.run(cmd, capture_output=True, text=True)
    assert json.loads(warm.stdout) == results[0]
    assert not [p for p in (tmp_path / "c").rglob("*.tmp")]


def _cold_then_warm(tmp_path, *flags):
    """Check a one-module project twice with ``-X importtime`` and one cache: ``(cold, warm, imported)``,
    *imported* giving the set of modules a run loaded."""
    project = tmp_path / "svc"
    (project / "app").mkdir(parents=True)
    (project / "pyproject.toml").write_text("")
    (project / "app" / "__init__.py").write_text("")
    (project / "app" / "api.py").write_text(
        "import asyncio\n\nasync def fan(client, ids):\n    return await asyncio.gather(*(client.get(i) for i in ids))\n")
    cmd = [sys.executable, "-X", "importtime", "-m", "boundlint", "check", "--exit-zero", *flags, str(project)]
    env = {**os.environ, "BOUNDLINT_CACHE_DIR": str(tmp_path / "cache")}
    cold = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env)
    warm = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env)
    imported = lambda run: {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if "|" in line}
    return cold, warm, imported


def test_a_warm_run_never_imports_libcst(tmp_path):
    """Nothing changed: the cache and the index summaries answer, so the parser is never loaded."""
    cold, warm, imported = _cold_then_warm(tmp_path, "-q")
    assert "libcst" in imported(cold)
    assert "libcst" not in imported(warm)


def test_a_warm_run_imports_no_part_of_the_checker(tmp_path):
    """Served from the cache: no worker pool, rule, index reader, query or table module is loaded."""
    cold, warm, imported = _cold_then_warm(tmp_path)
    heavy = {"boundlint.engine.pool", "boundlint.engine.check", "boundlint.rules.base", "boundlint.index.summary",
             "boundlint.index.reader", "boundlint.index.queries", "boundlint.tables", "boundlint.analysis.facts"}
    assert heavy <= imported(cold)
    assert heavy & imported(warm) == set()
    assert warm.stdout == cold.stdout and "BND101" in warm.stdout


def _findings(results, root) -> list[tuple[str, str, int]]:
    return sorted((os.path.relpath(r.path, root), f.code, f.line) for r in results for f in r.findings)


def _check(paths, cache_dir=None):
    from boundlint.engine import check_files
    from boundlint.index import build

    build.reset()  # a new run: the project is listed and named afresh
    if cache_dir is None:
        return check_files(paths, Settings(), jobs=1)
    return _run(cache_dir, paths)


def test_packages_appearing_around_the_root_rename_the_modules_and_miss_the_cache(tmp_path):
    """A ``pyproject.toml`` inside the package folder: an ``__init__.py`` added above it renames every
    module though no file below the root changed; the cached results must not be served."""
    import shutil

    fixtures = Path(__file__).parent / "fixtures" / "projects" / "lookup_service"
    tree = tmp_path / "ab"
    shutil.copytree(fixtures, tree / "lookup_service")
    (tree / "lookup_service" / "pyproject.toml").write_text("")
    paths = sorted(str(p) for p in tree.rglob("*.py"))
    _check(paths, tmp_path / "c")
    (tree / "__init__.py").write_text("")
    assert _findings(_check(paths, tmp_path / "c"), tree) == _findings(_check(paths), tree)


def test_a_file_that_vanishes_or_changes_during_its_check_is_not_cached(tmp_path, monkeypatch):
    from boundlint.engine import check as check_module

    src = _tree(tmp_path)
    paths = sorted(str(p) for p in src.glob("*.py"))
    real = check_module._read
    calls = []

    def gone_once(path):
        calls.append(path)
        if len(calls) == 1:
            raise FileNotFoundError(2, "No such file or directory")
        return real(path)

    monkeypatch.setattr(check_module, "_read", gone_once)
    first = _run(tmp_path / "c", paths)
    assert [f.code for f in first[0].findings] == ["BND001"]
    monkeypatch.setattr(check_module, "_read", real)
    assert [(f.code, f.line) for r in _run(tmp_path / "c", paths) for f in r.findings] == [("BND101", 4)]

    # an editor saves b.py between its key and its check: the result of the new text is not filed
    # under the old text's key
    b = src / "b.py"

    def saved_meanwhile(path):
        if path.endswith("b.py"):
            b.write_text(HAZARD)
        return real(path)

    monkeypatch.setattr(check_module, "_read", saved_meanwhile)
    (src / "b.py").write_text("x = 2\n")
    _run(tmp_path / "d", paths)
    monkeypatch.setattr(check_module, "_read", real)
    b.write_text("x = 2\n")
    assert [(os.path.basename(r.path), f.code) for r in _run(tmp_path / "d", paths) for f in r.findings] == [
        ("a.py", "BND101")]


def test_cached_evidence_spells_paths_as_this_run_does(tmp_path, monkeypatch):
    """Evidence cites other files relative to the working directory: a run from elsewhere, or with the
    path spelled otherwise, gets the evidence a fresh check would give it."""
    import shutil

    fixtures = Path(__file__).parent / "fixtures" / "projects" / "lookup_service"
    shutil.copytree(fixtures, tmp_path / "svc" / "lookup_service")
    evidence = lambda results: sorted((r.path, f.code, f.evidence) for r in results for f in r.findings)
    runs = []
    for cwd, top in ((tmp_path / "svc", "lookup_service"), (tmp_path / "svc" / "lookup_service", "."),
                     (tmp_path / "svc", str(tmp_path / "svc" / "lookup_service"))):
        monkeypatch.chdir(cwd)
        paths = sorted(str(Path(top) / p.relative_to(cwd / top)) for p in (cwd / top).rglob("*.py"))
        fresh = evidence(_check(paths))
        assert fresh and evidence(_check(paths, tmp_path / "c")) == fresh
        runs.append(fresh)
    assert runs[0] != runs[1] != runs[2]  # three spellings of the same evidence


def _lookup_copy(tmp_path) -> Path:
    import shutil

    tree = tmp_path / "t"
    shutil.copytree(Path(__file__).parent / "fixtures" / "projects" / "lookup_service", tree / "lookup_service")
    (tree / "pyproject.toml").write_text("")
    return tree


def _same_warm_and_fresh(paths, cache_dir, root) -> list:
    warm = _findings(_check(paths, cache_dir), root)
    assert warm == _findings(_check(paths), root)
    return warm


def test_a_module_renamed_by_a_package_marker_is_judged_again(tmp_path):
    """The questions a result recorded are phrased in the module's names: when an ``__init__.py`` (or only
    an ``__init__.pyi``, which no listing holds) renames the module, the old answers prove nothing."""
    tree = _lookup_copy(tmp_path)
    init = tree / "lookup_service" / "__init__.py"
    saved = init.read_text()
    init.unlink()
    paths = lambda: sorted(str(p) for p in tree.rglob("*.py"))
    before = _same_warm_and_fresh(paths(), tmp_path / "c", tree)
    init.write_text(saved)
    after = _same_warm_and_fresh(paths(), tmp_path / "c", tree)
    assert before != after

    init.unlink()
    (tree / "lookup_service" / "__init__.pyi").write_text("")
    assert _same_warm_and_fresh(paths(), tmp_path / "c", tree) == after


def test_a_file_named_on_the_command_line_but_gitignored_is_part_of_the_project(tmp_path):
    tree = _lookup_copy(tmp_path)
    (tree / ".git").mkdir()
    (tree / ".gitignore").write_text("lookup_service/api/routes.py\n")
    routes, fanout = (str(tree / "lookup_service" / p) for p in ("api/routes.py", "core/fanout.py"))
    with_routes = _same_warm_and_fresh([routes, fanout], tmp_path / "c", tree)
    alone = _same_warm_and_fresh([fanout], tmp_path / "c", tree)
    assert [f for f in with_routes if f[0].endswith("fanout.py")] != alone


def test_a_module_saved_while_the_index_is_built_is_seen_by_the_next_run(tmp_path, monkeypatch):
    from boundlint.index import build

    tree = _lookup_copy(tmp_path)
    routes = tree / "lookup_service" / "api" / "routes.py"
    fanout = str(tree / "lookup_service" / "core" / "fanout.py")
    prime = build.prime

    def saved_meanwhile(*args, **kwargs):  # an editor saves routes.py once the index has read it
        prime(*args, **kwargs)
        routes.write_text(routes.read_text().replace("async def lookup(body: Lookup)", "async def lookup(body: dict)")
                          .replace("lookup_all(body.ids)", 'lookup_all(body["ids"])'))

    monkeypatch.setattr(build, "prime", saved_meanwhile)
    _check([fanout], tmp_path / "c")
    monkeypatch.setattr(build, "prime", prime)
    _same_warm_and_fresh([fanout], tmp_path / "c", tree)
