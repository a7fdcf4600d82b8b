"""Finding the files to check: explicit paths plus ``*.py`` / ``*.pyi`` under directories.

Directories skip version-control folders, virtualenvs, caches, build output
and ``node_modules``; a symlinked directory is followed once and never into a
loop, and a symlink (to a directory or a file) that leads out of every
directory being walked is not followed at all (noted in ``LEFT_ROOTS``); ``exclude`` patterns (gitignore syntax, via pathspec) apply to
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


class Snapshot:
    """``with Snapshot():`` each directory is listed, and each status asked, once meanwhile.

    A run walks its paths and then each of their projects (``index.build``
    lists a project's modules for its digest), mostly over the same folders:
    the later walks then make none of the system calls the first made.  A
    change in the tree meanwhile is not seen, as a change during one walk
    never was.  Snapshots nest; the outermost one is used.
    """

    def __enter__(self) -> Snapshot:
        global _SEEN
        self._outer = _SEEN
        if _SEEN is None:
            _SEEN = {}
        return self

    def __exit__(self, *exc: object) -> None:
        global _SEEN
        _SEEN = self._outer


_SEEN: dict[tuple[str, str], object] | None = None  # (question, absolute path) -> answer, while a Snapshot is open


def remembered(question: str, full: str, ask: Callable[[], object]) -> object:
    """``ask()``, answered once per *question* (a short name of what is asked) about the absolute path *full*
    while a Snapshot is open; asked afresh each time outside one."""
    if _SEEN is None:
        return ask()
    key = (question, full)
    if key not in _SEEN:
        _SEEN[key] = ask()
    return _SEEN[key]


def _is_virtualenv(full: str) -> bool:
    """True when the directory *full* (an absolute path) is a virtualenv."""
    return remembered("venv", full, lambda: os.path.isfile(os.path.join(full, "pyvenv.cfg")))


def _identity(path: str, full: str) -> tuple[int, int] | None:
    """``(device, inode)`` of the directory *path* (absolute: *full*), None when it cannot be stat'ed."""
    def ask():
        try:
            st = os.stat(path)
        except OSError:
            return None
        return st.st_dev, st.st_ino
    return remembered("identity", full, ask)


def _walk(top: str, full: str, onerror: Callable[[OSError], object]):
    """``os.walk(top, onerror=onerror, followlinks=True)``, yielding ``(dirpath, absolute dirpath, dirnames,
    filenames, the symlinks among them)``; a listing is taken once per Snapshot (a failed one is tried again, to report it).

    Top-down, in os.walk's order, on an explicit stack: any depth the file
    system allows is walked without recursing on Python's stack.
    """
    stack = [(top, full)]
    while stack:
        here, here_full = stack.pop()
        try:
            dirs, files, links = _listing(here, here_full)
        except OSError as err:
            onerror(err)
            continue
        yield here, here_full, dirs, files, links
        # what the caller kept, first name first
        stack.extend((os.path.join(here, name), os.path.join(here_full, name)) for name in reversed(dirs))


def _listing(top: str, full: str) -> tuple[list[str], list[str], frozenset[str]]:
    """The names in *top* as os.walk divides them, ``(directories, the rest, the symlinks among both)``;
    raises OSError as os.scandir does."""
    found = _SEEN.get(("listing", full)) if _SEEN is not None else None
    if found is None:
        dirs, files, links = [], [], []
        with os.scandir(top) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir()  # follows a symlink, as os.walk does
                except OSError:
                    is_dir = False
                (dirs if is_dir else files).append(entry.name)
                if entry.is_symlink():
                    links.append(entry.name)
        found = (dirs, files, frozenset(links))
        if _SEEN is not None:
            _SEEN[("listing", full)] = found
    return list(found[0]), list(found[1]), found[2]


# Symlinks a walk did not follow because they lead out of the paths it was given: link -> its target.
LEFT_ROOTS: dict[str, str] = {}


def _leaves(link: str, inside: tuple[str, ...]) -> bool:
    """True when the symlink *link* resolves outside every real directory in *inside* (noted in LEFT_ROOTS)."""
    target = os.path.realpath(link)
    if any(target == top or target.startswith(top.rstrip(os.sep) + os.sep) for top in inside):
        return False
    LEFT_ROOTS[link] = target
    return True


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
    paths = list(paths)
    missing = [raw for raw in paths if not os.path.lexists(raw)]
    if missing:  # every one named, not only the first
        raise PathError(f"path{'s' if len(missing) > 1 else ''} do{'' if len(missing) > 1 else 'es'} not exist: "
                        + ", ".join(missing))
    # A link in a walk may lead into any directory being checked, and no further (as git and ruff stay in).
    inside = tuple(os.path.realpath(p) for p in paths if os.path.isdir(p))
    for raw in paths:
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
        unlistable = lambda err: found.setdefault(_spelled(err.filename), None) if isinstance(err, PermissionError) else None  # noqa: E731
        for dirpath, full_dir, dirnames, filenames, links in _walk(root_dir, os.path.abspath(root_dir), unlistable):
            identity = _identity(dirpath, full_dir)
            if identity is None or identity in seen:
                dirnames[:] = []
                continue
            seen.add(identity)
            rules = rules_for(full_dir)
            spec = rules.spec
            # Patterns are relative to their config's directory, else to the walk root.
            rel_dir = _under(rules.anchor, full_dir) if rules.anchor is not None else None
            if rel_dir is None:
                rel_dir = os.path.relpath(dirpath, root_dir).replace(os.sep, "/")
            gitignored = ignores.ignored if ignores is not None and rules.respect_gitignore else None
            if ignores is not None and ".gitignore" in filenames:  # listed: no failed open per directory
                ignores.enter(full_dir)
            keep = []
            for d in sorted(dirnames):
                full = os.path.join(full_dir, d)
                if d in SKIP_DIRS or d.endswith(".egg-info") or _is_virtualenv(full):
                    continue
                if d in links and _leaves(full, inside):
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
                # not a directory: os.walk lists those in dirnames
                if gitignored is not None and gitignored(os.path.join(full_dir, name), False):
                    continue
                if name in links and _leaves(os.path.join(full_dir, name), inside):
                    continue
                found[_spelled(os.path.join(dirpath, name))] = None
    return sorted(found)


def _spelled(path: str) -> str:
    """*path* spelled one way, as ruff prints it: ``./app.py`` (a walk of ``.``) is ``app.py``."""
    return path[2:] if path.startswith("." + os.sep) else path


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
        if not self.specs:  # often none apply: no path to make absolute for each entry of the walk
            return False
        full = os.path.abspath(path)
        return any(_matches(spec, base, full, is_dir) for base, spec in self.specs)


def _matches(spec, base: str, full: str, is_dir: bool) -> bool:
    rel = _under(base, full)
    if rel is None or rel == ".":
        return False
    return spec.match_file(rel + "/" if is_dir else rel)


def _read_spec(path: str):
    return remembered("gitignore", os.path.abspath(path), lambda: _read_patterns(path))


def _read_patterns(path: str):
    """The spec of the ignore file *path*; None when it is missing or empty; PathError when it is no regular file
    (a FIFO, ``/dev/zero``) or too large, as a run that silently dropped it would check what git ignores."""
    from boundlint.safe_read import CONFIG_CAP, NotAFile, read_regular

    try:
        lines = read_regular(path, CONFIG_CAP).decode("utf-8", "replace").splitlines()
    except NotAFile as exc:
        raise PathError(f"cannot read {path}: {exc.strerror}") from None
    except OSError:
        return None
    if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
        return None
    from boundlint.patterns import PatternError

    try:
        return gitignore_spec(lines)
    except PatternError as exc:
        raise PathError(f"{path}: line {exc.index + 1}: {exc}") from None


def _rel(rel_dir: str, name: str) -> str:
    return name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/")


def _spec(patterns: Iterable[str]):
    patterns = list(patterns)
    if not patterns:
        return None
    return gitignore_spec(patterns)
