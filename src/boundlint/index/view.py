"""What one file's judgement may ask of the project, recorded for the exact result cache.

``ProjectView`` wraps the index for the module being checked.  Every
question goes through ``ask(query, *args)``; the pair and a digest of the
answer are recorded in ``consulted``.  A cached result stays valid exactly
while every recorded question still gets the same answer (``still_valid``),
so an edit in ``api.py`` re-judges ``schemas.py`` and nothing else.
"""
from __future__ import annotations

import json

from boundlint.hashes import blake2b
from boundlint.index.project import ModuleEntry, ProjectIndex


def digest(answer: object) -> str:
    """A short stable digest of a JSON-ready answer."""
    text = json.dumps(answer, sort_keys=True, default=str)
    return blake2b(text.encode(), digest_size=8).hexdigest()


class ProjectView:
    """The project as seen from one module (*entry*, or None for a file outside any index)."""

    def __init__(self, index: ProjectIndex | None, entry: ModuleEntry | None) -> None:
        self.index = index
        self.entry = entry
        self.module = index.canonical(entry) if index is not None and entry is not None else ""
        self.consulted: dict[str, str] = {}
        self._memo: dict[str, object] = {}

    def __bool__(self) -> bool:
        return self.index is not None and self.entry is not None

    def ask(self, query: str, *args: str) -> object:
        """The answer to ``QUERIES[query](index, *args)``, recorded; None without an index."""
        if not self:
            return None
        key = json.dumps([query, *args])
        if key in self._memo:
            return self._memo[key]
        from boundlint.index.queries import QUERIES  # here: a run served from the cache imports no query

        try:
            answer = QUERIES[query](self.index, *args)
        except RecursionError:
            answer = None
        self._memo[key] = answer
        if not self.consulted:  # with the first question, the module's own names: the questions are phrased in them
            self.consulted[json.dumps([NAMES, self.entry.path])] = digest(self.entry.names)
        self.consulted[key] = digest(answer)
        return answer

    def ref(self, qualname: str | None, local: str | None = None) -> str | None:
        """An absolute ref for an import-resolved *qualname* (leading dots: relative) or a *local* module name."""
        if not self:
            return None
        if qualname:
            dots = len(qualname) - len(qualname.lstrip("."))
            if not dots:
                return qualname
            rest = qualname[dots:]
            from boundlint.index.project import resolve_import_from

            base = resolve_import_from(self.module, self.entry.is_package, dots, None)
            if base is None:
                return None
            return f"{base}.{rest}" if base else rest
        if local:
            return f"{self.module}.{local}"
        return None


NO_PROJECT = ProjectView(None, None)
# The key, in a cached ``consulted`` map, of the digest of the whole project when the answers were given.
PROJECT = "project"
# The question, in a ``consulted`` map, of the names the module itself had (``module_names``).
NAMES = "module_names"


def module_names_of(index: ProjectIndex, path: str) -> list[str] | None:
    """The names of the module at *path* in *index*, or None when it holds no such module."""
    entry = index.entry_for(path)
    return entry.names if entry is not None else None


def still_valid(index: ProjectIndex | None, consulted: dict[str, str]) -> bool:
    """True when every recorded question gets the same answer from *index* now."""
    from boundlint.index.queries import QUERIES

    for key, old in consulted.items():
        if key == PROJECT:
            continue
        if index is None:
            return False
        query, *args = json.loads(key)
        fn = module_names_of if query == NAMES else QUERIES.get(query)
        if fn is None:
            return False
        try:
            if digest(fn(index, *args)) != old:
                return False
        except RecursionError:
            return False
    return True
