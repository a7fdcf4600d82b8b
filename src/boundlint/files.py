"""Finding the files to check: explicit paths plus ``*.py`` / ``*.pyi`` under directories.

Directories skip version-control folders, virtualenvs, caches, build output
and ``node_modules``; a symlinked directory is followed once and never into a
loop; ``exclude`` patterns (gitignore syntax, via pathspec) apply to
relative paths under each root.
"""
from __future__ import annotations

import os
from typing import Iterable

SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".bzr", "__pycache__", "node_modules", ".venv", "venv", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".boundlint_cache", "build", "dist", ".eggs",
    "site-packages", ".direnv", "__pypackages__", "_build", "buck-out",
})
SUFFIXES = (".py", ".pyi")


class PathError(Exception):
    """A path given on the command line does not exist."""


def _is_virtualenv(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "pyvenv.cfg"))


def discover(paths: Iterable[str], exclude: Iterable[str] = ()) -> list[str]:
    """Files to check under *paths*, sorted, each once.

    Explicit file paths are kept whatever their suffix (as flake8 and ruff
    do); directories contribute ``*.py`` and ``*.pyi`` files.  Raises
    PathError for a path that does not exist (a broken symlink given
    explicitly is kept, so it is reported as unreadable).
    """
    spec = _spec(exclude)
    found: dict[str, None] = {}
    for raw in paths:
        if not os.path.lexists(raw):
            raise PathError(f"path does not exist: {raw}")
        if not os.path.isdir(raw):
            found[os.path.normpath(raw)] = None
            continue
        seen: set[tuple[int, int]] = set()
        root = os.path.normpath(raw)
        for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
            try:
                st = os.stat(dirpath)
            except OSError:
                dirnames[:] = []
                continue
            if (st.st_dev, st.st_ino) in seen:
                dirnames[:] = []
                continue
            seen.add((st.st_dev, st.st_ino))
            rel_dir = os.path.relpath(dirpath, root)
            keep = []
            for d in sorted(dirnames):
                full = os.path.join(dirpath, d)
                if d in SKIP_DIRS or d.endswith(".egg-info") or _is_virtualenv(full):
                    continue
                if spec is not None and spec.match_file(_rel(rel_dir, d) + "/"):
                    continue
                keep.append(d)
            dirnames[:] = keep
            for name in filenames:
                if not name.endswith(SUFFIXES):
                    continue
                if spec is not None and spec.match_file(_rel(rel_dir, name)):
                    continue
                full = os.path.join(dirpath, name)
                if os.path.isdir(full):
                    continue
                found[full] = None
    return sorted(found)


def _rel(rel_dir: str, name: str) -> str:
    return name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")


def _spec(patterns: Iterable[str]):
    patterns = list(patterns)
    if not patterns:
        return None
    import pathspec

    return pathspec.PathSpec.from_lines("gitwildmatch", patterns)
