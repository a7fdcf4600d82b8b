"""The pre-commit hooks, run for real in temporary git repositories.

The README's snippet (a ``repo: local`` hook) is taken from README.md itself
and run with ``pre-commit run``, with this environment's ``boundlint`` on the
PATH, as a user's virtualenv would have it.

The remote form (``.pre-commit-hooks.yaml``) is run with ``pre-commit
try-repo`` against this checkout: pre-commit installs hooks from a commit, so
the test snapshots the working tree (tracked and untracked, minus ignored
files) into a temporary repository and commits it; in a clean clone (CI) that
is exactly HEAD.  That hook's environment is built by pip from the configured
package index.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("pre_commit")
if shutil.which("git") is None:  # pragma: no cover
    pytest.skip("git is not installed", allow_module_level=True)

BAD = """\
import asyncio


async def handler(ids):
    await asyncio.gather(*(fetch(i) for i in ids))


async def fetch(i):
    return await client.get(i)
"""

FIXED = """\
import asyncio

LIMIT = asyncio.Semaphore(10)


async def handler(ids):
    await asyncio.gather(*(fetch(i) for i in ids))


async def fetch(i):
    async with LIMIT:
        return i
"""


def git(*args: str, cwd: Path) -> str:
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    """A committed snapshot of this checkout's working tree."""
    snap = tmp_path_factory.mktemp("boundlint-hook-repo")
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT).split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            dst = snap / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    git("init", "-q", cwd=snap)
    git("add", "-A", cwd=snap)
    git("commit", "-q", "-m", "snapshot", cwd=snap)
    return snap


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(hook_repo: Path, home: Path, project: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "boundlint", "--all-files"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=900)


def test_hook_fails_on_a_hazard_and_passes_once_fixed(tmp_path, hook_repo, pre_commit_home):
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", cwd=project)
    (project / "handler.py").write_text(BAD, encoding="utf-8")
    (project / "notes.txt").write_text(BAD, encoding="utf-8")  # not python: the hook never sees it
    git("add", "-A", cwd=project)

    failed = try_repo(hook_repo, pre_commit_home, project)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "boundlint" in failed.stdout and "Failed" in failed.stdout
    assert "handler.py:5:11: BND101" in failed.stdout
    assert "notes.txt" not in failed.stdout

    (project / "handler.py").write_text(FIXED, encoding="utf-8")
    git("add", "-A", cwd=project)
    passed = try_repo(hook_repo, pre_commit_home, project)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout


def test_hook_definition():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "- id: boundlint" in text
    assert "entry: boundlint check" in text
    assert "types_or: [python, pyi]" in text


def readme_hook_config() -> str:
    """The one YAML block of the README's pre-commit section, exactly as a user would paste it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n### pre-commit\n", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the README's pre-commit section shows one configuration, and this test runs it"
    return blocks[0]


def run_hooks(project: Path, home: Path) -> subprocess.CompletedProcess:
    # The user's virtualenv, where boundlint is installed, comes first on the PATH.
    env = dict(os.environ, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never",
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=600)


def test_readme_snippet_works_as_written(tmp_path, pre_commit_home):
    if shutil.which("boundlint", path=str(Path(sys.executable).parent)) is None:  # pragma: no cover
        pytest.skip("the boundlint command is not installed beside this Python")
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", cwd=project)
    (project / ".pre-commit-config.yaml").write_text(readme_hook_config(), encoding="utf-8")
    (project / "handler.py").write_text(BAD, encoding="utf-8")
    (project / "notes.txt").write_text(BAD, encoding="utf-8")  # not python: the hook never sees it
    git("add", "-A", cwd=project)

    failed = run_hooks(project, pre_commit_home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert re.search(r"^boundlint\.+Failed$", failed.stdout, re.M), failed.stdout
    assert "handler.py:5:11: BND101" in failed.stdout
    assert "notes.txt" not in failed.stdout

    # The project's [tool.boundlint] applies to the files pre-commit names.
    (project / "pyproject.toml").write_text('[tool.boundlint]\nextend-ignore = ["BND101"]\n', encoding="utf-8")
    git("add", "-A", cwd=project)
    ignored = run_hooks(project, pre_commit_home)
    assert ignored.returncode == 0, ignored.stdout + ignored.stderr
    (project / "pyproject.toml").unlink()

    (project / "handler.py").write_text(FIXED, encoding="utf-8")
    git("add", "-A", cwd=project)
    passed = run_hooks(project, pre_commit_home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"^boundlint\.+Passed$", passed.stdout, re.M), passed.stdout


def test_readme_hook_matches_the_published_hook():
    """The local hook of the README runs what ``.pre-commit-hooks.yaml`` runs, on the same files."""
    yaml = pytest.importorskip("yaml")
    local = yaml.safe_load(readme_hook_config())["repos"][0]
    assert local["repo"] == "local" and "rev" not in local
    (hook,) = local["hooks"]
    (published,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    for key in ("id", "name", "entry", "types_or", "require_serial"):
        assert hook[key] == published[key], key
    assert hook["language"] == "system"
