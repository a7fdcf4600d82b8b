"""Finding the files to check: explicit paths plus ``*.py`` / ``*.pyi`` under directories.

Directories skip version-control folders, virtualenvs, caches, build output
and ``node_modules``; a symlinked directory is followed once and never into a
loop; ``exclude`` patterns (gitignore syntax, via pathspec) apply to
relative paths under each root, or under ``root`` (the config file's
directory) when one is given.  With ``respect_gitignore``, ``.gitignore``
files (and ``.git/info/exclude``) prune the walk like git does; a directory
named explicitly is walked even when it is itself ignored.
"""
from __future__ import annotations

import os
from collections import namedtuple
from collections.abc import Callable, Iterable

from boundlint.patterns import spec as gitignore_spec

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


def discover(paths: Iterable[str], exclude: Iterable[str] = (), *, root: str | None = None,
             respect_gitignore: bool = False, rules_for: Callable[[str], object] | None = None) -> list[str]:
    """Files to check under *paths*, sorted, each once.

    Explicit file paths are kept whatever their suffix (as flake8 and ruff
    do); directories contribute ``*.py`` and ``*.pyi`` files.  With *root*,
    ``exclude`` patterns are relative to *root* for paths under it, and an
    explicit file matching them is skipped too (so pre-commit, which names
    files, honours ``exclude``).  *rules_for* (a directory -> an object with
    ``spec``, ``anchor`` and ``respect_gitignore``, e.g.
    ``hierarchy.ConfigTree.dir_rules``) replaces *exclude*, *root* and
    *respect_gitignore* with per-directory answers: each entry is judged by
    the rules of the directory that holds it.  Raises PathError for a path
    that does not exist (a broken symlink given explicitly is kept, so it is
    reported as unreadable), and so is a directory below *paths* that cannot
    be listed.
    """
    use_git = True
    if rules_for is None:
        fixed = _Rules(_spec(exclude), os.path.abspath(root) if root is not None else None, respect_gitignore)
        rules_for = lambda _directory: fixed  # noqa: E731
        use_git = respect_gitignore
    found: dict[str, None] = {}
    for raw in paths:
        if not os.path.lexists(raw):
            raise PathError(f"path does not exist: {raw}")
        if not os.path.isdir(raw):
            rules = rules_for(os.path.dirname(os.path.abspath(raw)))
            rel = _under(rules.anchor, raw) if rules.spec is not None and rules.anchor is not None else None
            if rel is not None and rules.spec.match_file(rel):
                continue
            found[os.path.normpath(raw)] = None
            continue
        seen: set[tuple[int, int]] = set()
        root_dir = os.path.normpath(raw)
        # Read .gitignore files whenever some directory's rules may want them.
        ignores = _GitIgnores(root_dir) if use_git else None
        # A directory that cannot be listed is kept as a path, so it is reported (BND001), not skipped.
        unlistable = lambda err: found.setdefault(err.filename, None) if isinstance(err, PermissionError) else None  # noqa: E731
        for dirpath, dirnames, filenames in os.walk(root_dir, onerror=unlistable, followlinks=True):
            try:
                st = os.stat(dirpath)
            except OSError:
                dirnames[:] = []
                continue
            if (st.st_dev, st.st_ino) in seen:
                dirnames[:] = []
                continue
            seen.add((st.st_dev, st.st_ino))
            full_dir = os.path.abspath(dirpath)
            rules = rules_for(full_dir)
            spec = rules.spec
            # Patterns are relative to their config's directory, else to the walk root.
            rel_dir = _under(rules.anchor, full_dir) if rules.anchor is not None else None
            if rel_dir is None:
                rel_dir = os.path.relpath(dirpath, root_dir).replace(os.sep, "/")
            gitignored = ignores.ignored if ignores is not None and rules.respect_gitignore else None
            if ignores is not None and ".gitignore" in filenames:  # listed: no failed open per directory
                ignores.enter(dirpath)
            keep = []
            for d in sorted(dirnames):
                full = os.path.join(dirpath, d)
                if d in SKIP_DIRS or d.endswith(".egg-info") or _is_virtualenv(full):
                    continue
                if spec is not None and spec.match_file(_rel(rel_dir, d) + "/"):
                    continue
                if gitignored is not None and gitignored(full, True):
                    continue
                keep.append(d)
            dirnames[:] = keep
            for name in filenames:
                if not name.endswith(SUFFIXES):
                    continue
                if spec is not None and spec.match_file(_rel(rel_dir, name)):
                    continue
                full = os.path.join(dirpath, name)  # not a directory: os.walk lists those in dirnames
                if gitignored is not None and gitignored(full, False):
                    continue
                found[full] = None
    return sorted(found)


def excluded(path: str, exclude: Iterable[str], root: str) -> bool:
    """True when the file *path* (which need not exist) matches *exclude* relative to the directory *root*.

    The same test ``discover`` applies to a file named explicitly, for input
    that names a file without being read from it (standard input, an editor
    buffer).  A path outside *root* is never excluded.
    """
    spec = _spec(exclude)
    rel = _under(os.path.abspath(root), path)
    return spec is not None and rel is not None and bool(spec.match_file(rel))


# Discovery rules of one directory: exclude spec (or None), its anchor (or None), gitignore on/off.
_Rules = namedtuple("_Rules", "spec anchor respect_gitignore")


def _under(base: str, path: str) -> str | None:
    """*path* relative to the absolute directory *base* (posix separators), or None when outside it."""
    rel = os.path.relpath(os.path.abspath(path), base)
    if rel == ".." or rel.startswith(".." + os.sep):
        return None
    return rel.replace(os.sep, "/")


class _GitIgnores:
    """The ``.gitignore`` files that apply below one walk root, as git reads them.

    Each file's patterns are relative to its own directory.  Files in the
    root's ancestors (up to the repository root, plus ``.git/info/exclude``)
    apply unless they ignore the root itself: a directory named on the
    command line is checked even when git ignores it.
    """

    def __init__(self, root: str) -> None:
        self.specs: list[tuple[str, object]] = []
        top = os.path.abspath(root)
        ancestors = []
        here = os.path.dirname(top)
        probe = top
        while True:
            if os.path.exists(os.path.join(probe, ".git")):
                exclude = os.path.join(probe, ".git", "info", "exclude")
                spec = _read_spec(exclude)
                if spec is not None:
                    ancestors.append((probe, spec))
                break
            if here == probe:
                break
            spec = _read_spec(os.path.join(here, ".gitignore"))
            if spec is not None:
                ancestors.append((here, spec))
            probe, here = here, os.path.dirname(here)
        if not any(_matches(spec, base, top, True) for base, spec in ancestors):
            self.specs.extend(reversed(ancestors))

    def enter(self, directory: str) -> None:
        """Read *directory*'s own .gitignore (call once per directory that lists one, parents first)."""
        spec = _read_spec(os.path.join(directory, ".gitignore"))
        if spec is not None:
            self.specs.append((os.path.abspath(directory), spec))

    def ignored(self, path: str, is_dir: bool) -> bool:
        """True when a .gitignore that applies to *path* ignores it."""
        full = os.path.abspath(path)
        return any(_matches(spec, base, full, is_dir) for base, spec in self.specs)


def _matches(spec, base: str, full: str, is_dir: bool) -> bool:
    rel = _under(base, full)
    if rel is None or rel == ".":
        return False
    return spec.match_file(rel + "/" if is_dir else rel)


def _read_spec(path: str):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
        return None
    return gitignore_spec(lines)


def _rel(rel_dir: str, name: str) -> str:
    return name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")


def _spec(patterns: Iterable[str]):
    patterns = list(patterns)
    if not patterns:
        return None
    return gitignore_spec(patterns)
