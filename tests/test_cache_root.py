"""One cache per project: a run from any folder of a project uses the cache at its root, as ruff does."""
from __future__ import annotations

import os

from boundlint.cache import DEFAULT_DIR, default_location
from boundlint.cli import main

GATHER = "import asyncio\n\n\nasync def h(ids):\n    await asyncio.gather(*(f(i) for i in ids))\n"


def test_the_cache_lives_at_the_project_root_whatever_the_working_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("BOUNDLINT_CACHE_DIR", raising=False)
    (tmp_path / "proj" / "pkg" / "deep").mkdir(parents=True)
    (tmp_path / "proj" / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "proj" / "pkg" / "deep" / "m.py").write_text(GATHER, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "proj" / "pkg" / "deep")
    assert default_location() == str(tmp_path / "proj" / DEFAULT_DIR)
    assert main(["check", "m.py"]) == 1
    monkeypatch.chdir(tmp_path / "proj" / "pkg")
    assert main(["check", "deep/m.py"]) == 1
    monkeypatch.chdir(tmp_path / "proj")
    assert default_location() == DEFAULT_DIR  # at the root itself, as before
    assert main(["check", "pkg"]) == 1
    capsys.readouterr()
    made = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob(DEFAULT_DIR))
    assert made == [os.path.join("proj", DEFAULT_DIR)]


def test_a_git_checkout_without_pyproject_and_the_explicit_choices(tmp_path, monkeypatch):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "src").mkdir()
    monkeypatch.chdir(tmp_path / "repo" / "src")
    monkeypatch.delenv("BOUNDLINT_CACHE_DIR", raising=False)
    assert default_location() == str(tmp_path / "repo" / DEFAULT_DIR)
    assert default_location("here") == "here"
    monkeypatch.setenv("BOUNDLINT_CACHE_DIR", "/elsewhere")
    assert default_location() == "/elsewhere"
