"""The summary cache: a folder per project, loaded only for the projects a run checks, pruned to what each holds now."""
from __future__ import annotations

import pickle
from pathlib import Path

from boundlint.index import build, summary_cache
from boundlint.index.build import build_index
from boundlint.index.summary_cache import SummaryCache


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def stored(cache_dir: Path, root: Path) -> dict[str, dict]:
    """Every summary the cache holds for the project at *root*, by key, read from its shard files."""
    folder = Path(SummaryCache(str(cache_dir), str(root)).dir)
    out: dict[str, dict] = {}
    for shard in sorted(folder.glob("*.pickle")):
        with open(shard, "rb") as fh:
            out.update(pickle.load(fh))
    return out


def test_each_project_has_a_folder_and_a_run_reads_only_the_projects_it_checks(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    a, b = tmp_path / "a", tmp_path / "b"
    write(a, {"pyproject.toml": "", "app/__init__.py": "", "app/api.py": "def f():\n    pass\n"})
    write(b, {"pyproject.toml": "", "lib/__init__.py": "", "lib/x.py": "X = 1\n", "lib/y.py": "Y = 2\n"})
    build_index(str(a), True, str(cache))
    build_index(str(b), True, str(cache))
    assert len(stored(cache, a)) == 2 and len(stored(cache, b)) == 3
    folders = {p.parent for p in cache.rglob("*.pickle")}
    assert folders == {Path(SummaryCache(str(cache), str(a)).dir), Path(SummaryCache(str(cache), str(b)).dir)}

    read: list[str] = []
    load = summary_cache.SummaryCache._shard

    def spy(self, name):
        if name not in self._shards:
            read.append(self.dir)
        return load(self, name)

    monkeypatch.setattr(summary_cache.SummaryCache, "_shard", spy)
    monkeypatch.setattr(build, "_PROJECTS", {})
    build.prime([str(a / "app/api.py")], str(cache))
    assert read and set(read) == {SummaryCache(str(cache), str(a)).dir}


def test_old_versions_and_deleted_modules_are_dropped_and_the_index_is_unchanged(tmp_path):
    cache = tmp_path / "cache"
    root = tmp_path / "proj"
    write(root, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/a.py": "def a():\n    return 1\n",
                 "pkg/b.py": "from pkg.a import a\n", "pkg/c.py": "C = 3\n"})
    build_index(str(root), True, str(cache))
    first = stored(cache, root)
    assert len(first) == 4

    (root / "pkg/a.py").write_text("def a():\n    return 1\n\n\ndef a2(items):\n    return len(items)\n", encoding="utf-8")
    build_index(str(root), True, str(cache))
    second = stored(cache, root)
    assert len(second) == 4  # the summary of a.py's old text is gone, not kept beside the new one
    assert len(set(second) - set(first)) == 1

    (root / "pkg/c.py").unlink()
    index = build_index(str(root), True, str(cache))
    assert len(stored(cache, root)) == 3
    assert index == build_index(str(root), True, None)  # what the pruned cache answers is what the files say
    assert "a2" in index.modules["pkg.a"].summary["functions"]


def test_a_cache_only_read_keeps_everything(tmp_path):
    cache = tmp_path / "cache"
    root = tmp_path / "proj"
    write(root, {"pyproject.toml": "", "m.py": "M = 1\n", "n.py": "N = 2\n"})
    build_index(str(root), True, str(cache))
    keys = set(stored(cache, root))
    partial = SummaryCache(str(cache), str(root))
    assert partial.get(sorted(keys)[0]) is not None
    partial.flush()  # no prune: a reader that looked up one module drops nothing
    assert set(stored(cache, root)) == keys


def test_a_damaged_or_misplaced_cache_never_fails_the_run(tmp_path):
    cache = tmp_path / "cache"
    root = tmp_path / "proj"
    write(root, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/a.py": "A = 1\n"})
    build_index(str(root), True, str(cache))
    folder = Path(SummaryCache(str(cache), str(root)).dir)
    shards = sorted(folder.glob("*.pickle"))
    # bytes that make pickle raise OverflowError, not UnpicklingError
    shards[0].write_bytes(b"\x80\x05\x8d\xff\xff\xff\xff\xff\xff\xff\xff")
    shards[1].unlink()
    shards[1].mkdir()  # a folder where a shard belongs: it cannot be written
    (root / "pkg/a.py").write_text("A = 1\nB = 2\n", encoding="utf-8")
    index = build_index(str(root), True, str(cache))
    assert index == build_index(str(root), True, None)
    assert not list(folder.glob(".*.tmp"))  # the failed write left no temporary file behind


def test_pruning_never_reaches_through_a_link_and_clears_what_killed_or_abandoned_runs_left(tmp_path):
    import os

    cache = tmp_path / "cache"
    root, gone = tmp_path / "proj", tmp_path / "gone"
    write(root, {"pyproject.toml": "", "m.py": "M = 1\n"})
    write(gone, {"pyproject.toml": "", "g.py": "G = 1\n"})
    build_index(str(gone), True, str(cache))
    build_index(str(root), True, str(cache))
    folder, old = Path(SummaryCache(str(cache), str(root)).dir), Path(SummaryCache(str(cache), str(gone)).dir)
    stale_tmp, fresh_tmp = folder / ".00.abc.tmp", folder / ".01.abc.tmp"
    stale_tmp.write_bytes(b"half")
    fresh_tmp.write_bytes(b"half")  # perhaps another run's write in progress: kept
    month = 31 * 86_400
    os.utime(stale_tmp, (os.path.getmtime(stale_tmp) - 7200,) * 2)
    os.utime(old, (os.path.getmtime(old) - month,) * 2)
    build_index(str(root), True, str(cache))
    assert not stale_tmp.exists() and fresh_tmp.exists()
    assert not old.exists()  # no run checked that project for a month

    # a project folder that is a link: pruning must not delete what it points at
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "00.pickle").write_bytes(b"not the cache's")
    for shard in folder.iterdir():
        shard.unlink()
    folder.rmdir()
    folder.symlink_to(outside, target_is_directory=True)
    build_index(str(root), True, str(cache))
    assert (outside / "00.pickle").read_bytes() == b"not the cache's"
