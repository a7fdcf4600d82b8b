"""The stat shortcut for content keys: a file is re-read whenever it may have changed, content stays the key."""
from __future__ import annotations

import os
import time

import pytest

from boundlint import filekeys
from boundlint.cache import content_key
from boundlint.filekeys import FileKeys

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the shortcut needs a POSIX ctime")


def _later(monkeypatch, seconds: float = 60.0) -> None:
    """Look up as a run some time after the files were written would (their ctime is then settled)."""
    real = time.time_ns
    monkeypatch.setattr(filekeys.time, "time_ns", lambda: real() + int(seconds * 1e9))


def _counting_reads(monkeypatch) -> list[str]:
    reads: list[str] = []
    real = filekeys.read_regular
    monkeypatch.setattr(filekeys, "read_regular", lambda path: reads.append(path) or real(path))
    return reads


def _rewrite_keeping_size_and_mtime(path, data: bytes) -> None:
    """Write *data* (same length as before) and put the old atime/mtime back, until the ctime moved on."""
    before = os.stat(path)
    while True:  # a coarse ctime clock may need a tick to move; no sleep, no timing asserted
        path.write_bytes(data)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        if os.stat(path).st_ctime_ns != before.st_ctime_ns:
            return


def test_a_settled_file_is_served_from_the_store_without_reading_it(tmp_path, monkeypatch):
    src = tmp_path / "a.py"
    src.write_bytes(b"x = 1\n")
    store = str(tmp_path / "files.marshal")
    _later(monkeypatch)
    first = FileKeys(store)
    assert first.key(str(src)) == content_key(b"x = 1\n")
    first.flush()
    reads = _counting_reads(monkeypatch)
    assert FileKeys(store).key(str(src)) == content_key(b"x = 1\n")
    assert reads == []


def test_an_edit_with_the_same_size_and_mtime_is_noticed(tmp_path, monkeypatch):
    src = tmp_path / "a.py"
    src.write_bytes(b"x = 1\n")
    store = str(tmp_path / "files.marshal")
    _later(monkeypatch)
    keys = FileKeys(store)
    keys.key(str(src))
    keys.flush()
    _rewrite_keeping_size_and_mtime(src, b"x = 2\n")
    assert os.stat(src).st_size == 6
    reads = _counting_reads(monkeypatch)
    assert FileKeys(store).key(str(src)) == content_key(b"x = 2\n")
    assert reads == [str(src)]


def test_a_file_changed_within_the_margin_is_not_remembered(tmp_path, monkeypatch):
    """Read right after a write: a second write in the same clock tick could leave every stat field equal."""
    src = tmp_path / "a.py"
    src.write_bytes(b"x = 1\n")
    store = str(tmp_path / "files.marshal")
    keys = FileKeys(store)
    assert keys.key(str(src)) == content_key(b"x = 1\n")
    keys.flush()
    reads = _counting_reads(monkeypatch)
    assert FileKeys(store).key(str(src)) == content_key(b"x = 1\n")
    assert reads == [str(src)]
    assert not os.path.exists(store)  # nothing was worth writing


def test_a_replaced_file_and_a_damaged_store_are_read_again(tmp_path, monkeypatch):
    src = tmp_path / "a.py"
    src.write_bytes(b"x = 1\n")
    store = tmp_path / "files.marshal"
    _later(monkeypatch)
    keys = FileKeys(str(store))
    keys.key(str(src))
    keys.flush()
    swap = tmp_path / "b.py"
    swap.write_bytes(b"y = 1\n")
    os.utime(swap, ns=(os.stat(src).st_atime_ns, os.stat(src).st_mtime_ns))
    os.replace(swap, src)  # an editor's atomic save: same size and mtime, another inode
    assert FileKeys(str(store)).key(str(src)) == content_key(b"y = 1\n")
    store.write_bytes(b"\x00garbage")
    assert FileKeys(str(store)).key(str(src)) == content_key(b"y = 1\n")


def test_a_file_over_the_limit_is_not_read(tmp_path, monkeypatch):
    src = tmp_path / "big.py"
    src.write_bytes(b"#" * 100)
    reads = _counting_reads(monkeypatch)
    assert FileKeys(str(tmp_path / "files.marshal")).key(str(src), limit=99) is None
    assert FileKeys(None).key(str(src), limit=99) is None  # without a store too
    assert reads == []
    assert FileKeys(None).key(str(src), limit=100) == content_key(b"#" * 100)
    with pytest.raises(OSError):
        FileKeys(None).key(str(tmp_path))  # a directory is refused, as before


def test_a_warm_index_build_reads_no_module(tmp_path, monkeypatch):
    """Summaries are keyed by the content key: a project whose files are unchanged is indexed without reading them."""
    from boundlint.index import build

    root = tmp_path / "svc"
    (root / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text("")
    (root / "app" / "__init__.py").write_text("from .api import fan\n")
    (root / "app" / "api.py").write_text("async def fan(client, ids):\n    return [await client.get(i) for i in ids]\n")
    cache_dir = str(tmp_path / "cache")
    _later(monkeypatch)
    monkeypatch.setattr(filekeys, "_STORES", {})
    build.reset()
    first = build.build_index(str(root), True, cache_dir)
    monkeypatch.setattr(filekeys, "_STORES", {})  # what the next process would load from the cache directory
    build.reset()
    reads = _counting_reads(monkeypatch)
    second = build.build_index(str(root), True, cache_dir)
    build.reset()
    assert reads == []
    assert sorted(second.modules) == sorted(first.modules) == ["app", "app.api"]
    assert second.function("app.fan")[1:] == first.function("app.fan")[1:] == ("fan", first.modules["app.api"].summary["functions"]["fan"])
