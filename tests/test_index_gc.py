"""Building the project index runs without cyclic collection, and prime() exempts the built index from it."""
from __future__ import annotations

import gc

from boundlint.index import build, summary


def test_prime_collects_nothing_while_building_and_freezes_the_index(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "api.py").write_text("def handler(ids):\n    return [i for i in ids]\n")
    seen = []
    real = summary.summarize

    def spy(text, module, is_package):
        seen.append((module, gc.isenabled()))
        return real(text, module, is_package)

    monkeypatch.setattr(summary, "summarize", spy)
    build.reset()
    gc.unfreeze()
    try:
        build.prime([str(tmp_path / "app" / "api.py")])
        assert sorted(seen) == [("app", False), ("app.api", False)]
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0
        index = build.index_for(str(tmp_path / "app" / "api.py"))
        assert index.entry_for(str(tmp_path / "app" / "api.py")).summary["functions"]["handler"]["params"] == ["ids"]
    finally:
        gc.unfreeze()
        build.reset()


def test_build_index_restores_collection_and_freezes_nothing(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    (tmp_path / "mod.py").write_text("X = 1\n")
    gc.unfreeze()
    build.reset()
    try:
        build.build_index(str(tmp_path), True)
        assert gc.isenabled() and gc.get_freeze_count() == 0
        gc.disable()
        build.build_index(str(tmp_path), True)
        assert not gc.isenabled()  # a caller's own choice is kept
    finally:
        gc.enable()
        build.reset()
