"""The checker is imported while the index workers summarise, so the check workers fork with it."""
from __future__ import annotations

import os
import subprocess
import sys

from boundlint.index import build


def _project(tmp_path, modules: int):
    tmp_path.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for i in range(modules):
        (package / f"m{i}.py").write_text(f"def f{i}(items):\n    return [x for x in items]\n")
    return sorted(str(p) for p in package.glob("*.py"))


def test_prime_runs_meanwhile_only_while_workers_summarise(tmp_path, monkeypatch):
    monkeypatch.setattr(build, "_PROJECTS", {})
    calls = []
    files = _project(tmp_path / "many", build._PARALLEL_FROM + 6)
    build.prime(files, None, lambda: calls.append("many"))
    few = _project(tmp_path / "few", 3)
    build.prime(few, None, lambda: calls.append("few"))  # read in this process: nothing to wait for
    assert calls == (["many"] if (os.cpu_count() or 1) > 1 else [])
    index = build.index_for(files[0])
    assert all(index.entry_for(f) is not None for f in files) and len(files) == build._PARALLEL_FROM + 7


def test_preload_imports_libcst_and_every_rule():
    code = ("import sys; from boundlint.engine.run import preload_checker; preload_checker(); "
            "from boundlint.rules.base import all_rules; "
            "print('libcst' in sys.modules, all(c.__module__ in sys.modules for c in all_rules().values()), "
            "'boundlint.analysis.facts.volume' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True", "True"]
