"""Remembered answers (``memo``): gitignore matches and config lookups stay exact, failures are never remembered."""
from __future__ import annotations

import os
import subprocess
import sys

import pathspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boundlint import memo, patterns
from boundlint.config import ConfigError
from boundlint.hierarchy import ConfigTree

HAZARD = "import asyncio\n\nasync def fan(client, ids):\n    return await asyncio.gather(*(client.get(i) for i in ids))\n"


@pytest.fixture
def remembering(tmp_path):
    """A memo under a fresh cache directory for the test, and none afterwards."""
    memo.use(str(tmp_path / "cache"))
    yield memo.current()
    memo.use(None)


def _compiles(lines):
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception:
        return None


_LINE = st.text(alphabet="ab./*?[]!#\\ -", max_size=8)
_PATH = st.lists(st.text(alphabet="ab.-![]#* ", min_size=1, max_size=5), min_size=1, max_size=4).map("/".join)


@pytest.mark.filterwarnings("ignore::FutureWarning")  # re's "possible nested set" for random brackets
@settings(max_examples=400, deadline=None)
@given(lines=st.lists(_LINE, min_size=1, max_size=4), paths=st.lists(_PATH, min_size=1, max_size=6),
       slash=st.booleans())
def test_patterns_answer_as_pathspec_does(tmp_path_factory, lines, paths, slash):
    """The plain-text shortcut never says "no match" where pathspec says "match", cold or remembered."""
    expected = _compiles(lines)
    if expected is None:
        return
    memo.use(str(tmp_path_factory.mktemp("cache")))
    try:
        for _ in range(2):  # the second pass answers from the memo (and compiles nothing)
            spec = patterns.spec(lines)
            for path in paths:
                path += "/" if slash else ""
                assert spec.match_file(path) == bool(expected.match_file(path)), (lines, path)
    finally:
        memo.use(None)


def test_a_path_without_the_patterns_text_never_compiles_them(remembering, monkeypatch):
    patterns.spec(["build/", "*.egg-info", "!keep.py"])  # the first time they are compiled, and that is remembered
    monkeypatch.setattr(patterns, "_compile", lambda lines: pytest.fail("compiled"))
    spec = patterns.spec(["build/", "*.egg-info", "!keep.py"])
    assert not spec.match_file("src/app/keep.py")
    assert not spec.match_file("src/app/")


def test_a_broken_pattern_raises_on_every_run(remembering):
    broken = ["ok.py", "!"]
    if _compiles(broken) is not None:
        pytest.skip("this pathspec accepts a lone '!'")
    for _ in range(2):
        with pytest.raises(ValueError):
            patterns.spec(broken)
    remembering.flush()
    memo.use(None)
    memo.use(os.path.dirname(os.path.dirname(remembering.store)))
    with pytest.raises(ValueError):
        patterns.spec(broken)


def test_invalid_toml_is_reported_on_every_run(tmp_path, remembering):
    (tmp_path / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    assert ConfigTree().for_dir(str(tmp_path)).path is None
    remembering.flush()
    (tmp_path / "pyproject.toml").write_text("[tool.other\n")
    for _ in range(2):
        with pytest.raises(ConfigError, match="invalid TOML"):
            ConfigTree().for_dir(str(tmp_path))
    (tmp_path / "pyproject.toml").write_text("[tool.boundlint]\nselect = ['BND1']\n")
    assert ConfigTree().for_dir(str(tmp_path)).settings.select == ("BND1",)


def test_a_remembered_config_is_the_config_read(tmp_path, remembering, monkeypatch):
    text = ("[tool.boundlint]\nselect = ['BND1']\nper-file-ignores = {'gen/*' = ['BND101']}\n"
            "[tool.boundlint.fanout]\nlimiter-helpers = ['gate']\n")
    (tmp_path / "pyproject.toml").write_text(text)
    read = ConfigTree().for_dir(str(tmp_path))
    from boundlint import config

    monkeypatch.setattr(config, "_load_toml", lambda *a: pytest.fail("parsed again"))
    again = ConfigTree().for_dir(str(tmp_path))
    assert again == read and again.settings.fingerprint() == read.settings.fingerprint()
    monkeypatch.undo()
    (tmp_path / "pyproject.toml").write_text(text.replace("BND1'", "BND2'"))
    assert ConfigTree().for_dir(str(tmp_path)).settings.select == ("BND2",)
    (tmp_path / "pyproject.toml").write_text(text.replace("BND1'", "NOPE'"))
    for _ in range(2):
        with pytest.raises(ConfigError, match="unknown rule code"):
            ConfigTree().for_dir(str(tmp_path))


def _run_twice(tmp_path):
    project = tmp_path / "svc"
    (project / "app").mkdir(parents=True)
    (project / ".gitignore").write_text("build/\n*.py[cod]\napp/generated_*.py\n")
    (project / "pyproject.toml").write_text(
        "[project]\nname = 'svc'\n[tool.boundlint]\nper-file-ignores = {'app/skip_*.py' = ['BND1']}\n")
    (project / "app" / "skip_api.py").write_text(HAZARD)
    (project / "app" / "api.py").write_text(HAZARD)
    (project / "app" / "generated_api.py").write_text(HAZARD)
    cmd = [sys.executable, "-X", "importtime", "-m", "boundlint", "check", "--exit-zero", str(project)]
    env = {**os.environ, "BOUNDLINT_CACHE_DIR": str(tmp_path / "cache")}
    return [subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env) for _ in range(2)]


def test_a_warm_run_needs_neither_pathspec_nor_a_toml_parser(tmp_path):
    cold, warm = _run_twice(tmp_path)
    def imported(run):
        return {line.rsplit("|", 1)[-1].strip() for line in run.stderr.splitlines() if "|" in line}
    assert {"pathspec", "tomllib"} <= imported(cold) or sys.version_info < (3, 11)
    assert not {"pathspec", "tomllib", "tomli"} & imported(warm)
    assert warm.stdout == cold.stdout
    assert "api.py" in warm.stdout and "generated_api.py" not in warm.stdout and "skip_api.py" not in warm.stdout
