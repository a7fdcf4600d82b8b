"""The pre-commit hook, run for real: ``pre-commit try-repo`` against this checkout in a temporary git repository.

pre-commit installs hooks from a commit, so the test snapshots the working
tree (tracked and untracked, minus ignored files) into a temporary repository
and commits it; in a clean clone (CI) that is exactly HEAD.  The hook's
environment is built by pip from the configured package index.
"""
from __future__ import annotations

import os
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
    return i
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
