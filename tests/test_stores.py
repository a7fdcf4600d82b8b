"""The marshal stores of the cache directory: whole writes, and a store past its limit sheds what a process
did not use (``stores.save``, as ``memo`` and ``filekeys`` flush)."""
from __future__ import annotations

from boundlint import filekeys, memo, stores


def test_save_writes_everything_without_keep(tmp_path):
    store = str(tmp_path / "s.marshal")
    stores.save(store, {"a": 1, "b": 2})
    assert stores.load(store) == {"a": 1, "b": 2}


def test_save_keeps_everything_up_to_the_limit(tmp_path):
    store = str(tmp_path / "s.marshal")
    stores.save(store, {"a": 1, "b": 2}, keep={"a"}, limit=2)
    assert stores.load(store) == {"a": 1, "b": 2}


def test_save_past_the_limit_writes_only_what_was_kept(tmp_path):
    store = str(tmp_path / "s.marshal")
    data = {"a": 1, "b": 2, "c": 3}
    stores.save(store, data, keep={"a", "c"}, limit=2)
    assert stores.load(store) == {"a": 1, "c": 3}
    assert data == {"a": 1, "b": 2, "c": 3}  # the caller's dict is left as it was


def test_memo_past_its_limit_keeps_the_answers_this_process_used(tmp_path, monkeypatch):
    store = str(tmp_path / "answers.marshal")
    stores.save(store, {"old": True, "asked": False})
    monkeypatch.setattr(memo, "MAX_ANSWERS", 2)
    answers = memo.Memo(store, str(tmp_path))
    assert answers.get("asked") is False
    answers.put("new", "x")
    answers.flush()
    assert stores.load(store) == {"asked": False, "new": "x"}


def test_filekeys_past_its_limit_keeps_the_files_this_process_read(tmp_path, monkeypatch):
    monkeypatch.setattr(filekeys, "MARGIN_NS", -10**18)  # files written just now count as settled
    store = str(tmp_path / "files.marshal")
    one, two = tmp_path / "one.py", tmp_path / "two.py"
    one.write_text("x = 1\n")
    two.write_text("y = 2\n")
    first = filekeys.FileKeys(store)
    first.key(str(one))
    first.key(str(two))
    first.flush()
    assert set(stores.load(store)) == {str(one), str(two)}
    monkeypatch.setattr(filekeys, "MAX_RECORDS", 1)
    second = filekeys.FileKeys(store)
    second.key(str(two))
    two.write_text("y = 3\n")  # a changed file is recorded again, so the store is written
    second.key(str(two))
    second.flush()
    assert set(stores.load(store)) == {str(two)}
