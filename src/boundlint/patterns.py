"""Gitignore-style patterns (``.gitignore`` files, ``exclude``), matched by pathspec only when it can matter.

Importing pathspec and compiling patterns costs more than a whole warm run
spends on anything else, and most paths a walk meets cannot match any
pattern at all.  ``spec(lines)`` therefore returns a ``Patterns``: its
``match_file`` answers exactly as ``pathspec.GitIgnoreSpec.from_lines(lines)``
would, but

* a path that lacks some plain text of every pattern that could ignore it
  is not matched, and pathspec is not asked (``_needles``);
* any other answer pathspec gave before is looked up in the run's ``memo``
  (keyed by the patterns, the path and the installed pathspec's files).

Patterns are compiled eagerly, as before, until the memo records that they
compile cleanly, so a broken pattern raises (or warns) the same on every run.
"""
from __future__ import annotations

import os
from collections.abc import Iterable

from boundlint import memo

_BREAK = frozenset("*?/")
_PATHSPEC_ID: list[str] = []  # computed once per process: None inside when pathspec's files cannot be found


def spec(lines: list[str]):
    """A matcher of the gitignore *lines*: a ``Patterns``, or a ``pathspec.GitIgnoreSpec`` without a memo."""
    answers = memo.current()
    source = _pathspec_id() if answers is not None else None
    if source is None:
        return _compile(lines)
    from boundlint.hashes import blake2b

    digest = blake2b("\n".join([source, *lines]).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    compiled = None
    if answers.get(f"compiles\0{digest}") is None:
        import warnings

        with warnings.catch_warnings(record=True) as said:  # only what the filters let through is recorded
            compiled = _compile(lines)  # raises for a broken pattern, as it always did
        for w in said:  # shown as before; patterns that warn are compiled on every run, so it is said every time
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
        if not said:
            answers.put(f"compiles\0{digest}", True)
    return Patterns(lines, digest, answers, compiled)


class Patterns:
    """``match_file`` of compiled gitignore *lines*, asking pathspec only for paths that may match."""

    def __init__(self, lines: list[str], digest: str, answers, compiled=None) -> None:
        self.lines = lines
        self._digest = digest
        self._answers = answers
        self._compiled = compiled
        self._needles = [n for n in map(_needles, lines) if n is not None]

    def match_file(self, path: str) -> bool:
        """True when the patterns ignore *path* (``/``-separated, a trailing ``/`` for a directory)."""
        if not any(all(n in path for n in needles) for needles in self._needles):
            return False
        key = f"match\0{self._digest}\0{path}"
        found = self._answers.get(key)
        if found is None:
            if self._compiled is None:
                self._compiled = _compile(self.lines)
            found = bool(self._compiled.match_file(path))
            self._answers.put(key, found)
        return bool(found)


def _needles(line: str) -> tuple[str, ...] | None:
    """Plain text that every path the gitignore *line* ignores contains; None when it ignores nothing.

    A comment or a negation (``!``) never makes a path ignored.  Otherwise the
    pieces between wildcards (``*``, ``?``), separators and blanks are matched
    literally, so a path must contain each; an escape (``\\x``) and whatever
    follows a bracket expression (``[...]``) are left out, and so are pieces of
    dots alone (``./``), which a matcher may normalise away.  Fewer needles only
    means pathspec is asked more often.
    """
    if line.startswith(("#", "!")):
        return None
    pieces: list[str] = []
    current = ""
    i = 0
    while i < len(line):
        c = line[i]
        if c == "[":
            break
        if c == "\\" or c in _BREAK or c.isspace():
            pieces.append(current)
            current = ""
            i += 2 if c == "\\" else 1
            continue
        current += c
        i += 1
    pieces.append(current)
    return tuple(p for p in pieces if p.strip("."))


class PatternError(ValueError):
    """A gitignore pattern that cannot compile; ``pattern`` is it, ``index`` its 0-based line among those given."""

    def __init__(self, pattern: str, index: int) -> None:
        super().__init__(f"invalid pattern {pattern!r}")
        self.pattern = pattern
        self.index = index


def check(lines: list[str]) -> None:
    """Raise PatternError for the first of *lines* that cannot compile (``!``, a lone ``\\``)."""
    _compile(lines)


def pattern_error(patterns) -> str | None:
    """Why one of the gitignore *patterns* cannot compile, in one line, or None when they all do."""
    try:
        check(list(patterns))
    except PatternError as exc:
        return f"{exc} (gitignore syntax: a `!` needs a pattern after it, a `\\` a character)"
    return None


def calm(line: str) -> str:
    """*line* with each run of wildcards inside a path segment written in its shortest equal form.

    ``***``, ``*?*`` and ``a**b`` match what ``*``, ``?*`` and ``a*b`` match (a
    star matches within a segment; only ``**`` as a whole segment crosses
    ``/``), but compile to one backtracking ``[^/]*`` per star: a pattern of 30
    stars takes minutes on a path it does not match.  Escapes and bracket
    expressions are copied as they are.
    """
    if "**" not in line and "*?" not in line and "?*" not in line:
        return line
    out: list[str] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "\\":
            out.append(line[i:i + 2])
            i += 2
            continue
        if c == "[":
            close = line.find("]", i + 2)
            if close > 0:
                out.append(line[i:close + 1])
                i = close + 1
                continue
        if c not in "*?":
            out.append(c)
            i += 1
            continue
        j = i
        while j < n and line[j] in "*?":
            j += 1
        run = line[i:j]
        whole = (i == 0 or line[i - 1] == "/") and (j == n or line[j] == "/")
        if run == "**" and whole:
            out.append(run)  # the one form that crosses directories
        elif "*" in run:
            out.append("?" * run.count("?") + "*")
        else:
            out.append(run)
        i = j
    return "".join(out)


def _compile(lines: list[str]):
    import pathspec

    calmed = [calm(line) for line in lines]
    try:
        return pathspec.GitIgnoreSpec.from_lines(calmed)
    except Exception:  # noqa: BLE001 - pathspec's GitWildMatchPatternError (its name moved between versions)
        for index, line in enumerate(calmed):
            try:
                pathspec.GitIgnoreSpec.from_lines([line])
            except Exception:  # noqa: BLE001
                raise PatternError(lines[index], index) from None
        raise


def _pathspec_id() -> str | None:
    """Names, sizes and mtimes of the installed pathspec's files (its answers may change with them)."""
    if not _PATHSPEC_ID:
        _PATHSPEC_ID.append(_describe_pathspec())
    return _PATHSPEC_ID[0]


def _describe_pathspec() -> str | None:
    from importlib.util import find_spec

    from boundlint.cache import _sources

    found = find_spec("pathspec")  # the one `import pathspec` loads, without importing it
    if found is None or not found.submodule_search_locations:
        return None
    package = list(found.submodule_search_locations)[0]
    files: list[tuple[str, int, int]] = []
    _sources(package, "", files)
    if not files:
        return None
    return os.path.realpath(package) + ";" + ";".join(f"{n}:{s}:{m}" for n, s, m in sorted(files))


class PerFileIgnores:
    """``per-file-ignores`` compiled: gitignore-style globs relative to *root* -> ignored code prefixes.

    A path under *root* is matched relative to it; any other path as given.
    ``tests/*`` matches files directly in tests/, ``tests/`` and ``tests/**``
    everything below it, and a pattern without a slash (``*_pb2.py``)
    matches in any directory.
    """

    def __init__(self, pairs: Iterable[tuple[str, tuple[str, ...]]], root: str) -> None:
        self.root = os.path.abspath(root)
        self.rules = [(spec([glob]), codes) for glob, codes in pairs]
        self._memo: dict[str, tuple[str, ...]] = {}

    def codes_for(self, path: str) -> tuple[str, ...]:
        """The code prefixes ignored in *path*."""
        hit = self._memo.get(path)
        if hit is None:
            rel = os.path.relpath(os.path.abspath(path), self.root)
            if rel == ".." or rel.startswith(".." + os.sep):
                rel = path
            rel = rel.replace(os.sep, "/")
            hit = tuple(c for spec, codes in self.rules if spec.match_file(rel) for c in codes)
            self._memo[path] = hit
        return hit

    def ignored(self, path: str, code: str) -> bool:
        """True when *code* is ignored in *path*."""
        return any(code.startswith(prefix) for prefix in self.codes_for(path))
