"""Import-aware name resolution without LibCST's metadata providers.

``ImportTable`` maps each name a module binds by import to the dotted name it
stands for, so ``aio.gather`` (``import asyncio as aio``), ``g`` (``from asyncio
import gather as g``) and ``futures.ThreadPoolExecutor`` (``from concurrent
import futures``) all resolve to their canonical qualified names.  Imports are
collected from the whole module, including those inside functions and
``try`` blocks; a later import of the same name wins, as at run time.
"""
from __future__ import annotations

from typing import Iterable

import libcst as cst

# Private submodules re-exported by their package: canonical spelling first.
_CANONICAL_PREFIXES = (
    ("asyncio.tasks.", "asyncio."),
    ("asyncio.taskgroups.", "asyncio."),
    ("asyncio.locks.", "asyncio."),
    ("asyncio.events.", "asyncio."),
    ("asyncio.base_events.", "asyncio."),
    ("asyncio.futures.", "asyncio."),
    ("asyncio.runners.", "asyncio."),
    ("asyncio.timeouts.", "asyncio."),
    ("concurrent.futures.thread.", "concurrent.futures."),
    ("concurrent.futures.process.", "concurrent.futures."),
    ("concurrent.futures._base.", "concurrent.futures."),
    ("multiprocessing.pool.", "multiprocessing."),
    ("multiprocessing.dummy.Pool", "multiprocessing.ThreadPool"),
    ("multiprocessing.process.", "multiprocessing."),
    ("multiprocessing.context.", "multiprocessing."),
    ("anyio._core._tasks.", "anyio."),
    ("anyio._core._synchronization.", "anyio."),
    ("anyio.abc._tasks.", "anyio.abc."),
    ("trio._core._run.", "trio."),
    ("trio._sync.", "trio."),
    ("pydantic.v1.", "pydantic."),
    ("typing_extensions.", "typing."),
    ("collections.abc.", "typing."),
)


# The packages of those prefixes: one C-level ``startswith`` turns most names away before the loop.
_CANONICAL_ROOTS = tuple(sorted({prefix.split(".", 1)[0] + "." for prefix, _ in _CANONICAL_PREFIXES}))


def canonical(qualname: str) -> str:
    """Fold a private or aliased module path to its public spelling."""
    if not qualname.startswith(_CANONICAL_ROOTS):
        return qualname
    for prefix, repl in _CANONICAL_PREFIXES:
        if qualname.startswith(prefix):
            return repl + qualname[len(prefix):]
    return qualname


def partial_target(expr: cst.BaseExpression) -> cst.BaseExpression | None:
    """The function ``functools.partial(f, ...)`` (or ``partial(f, ...)``) binds, *f*; None for anything else."""
    if (isinstance(expr, cst.Call) and (dotted(expr.func) or "").rsplit(".", 1)[-1] == "partial" and expr.args
            and expr.args[0].keyword is None and not expr.args[0].star):
        return expr.args[0].value
    return None


def dotted(node: cst.BaseExpression) -> str | None:
    """Return ``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while type(node) is cst.Attribute:  # exact type tests, as in ImportTable.resolve
        parts.append(node.attr.value)
        node = node.value
    if type(node) is cst.Name:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _module_name(node: cst.BaseExpression) -> str:
    return dotted(node) or ""


class ImportTable:
    """Local name -> qualified dotted name, for one module.

    ``resolve(expr)`` gives the canonical qualified name of a Name/Attribute
    chain whose root was imported, or None (a local variable, a relative
    import's unknown package, a call result).
    """

    __slots__ = ("_names",)

    def __init__(self) -> None:
        self._names: dict[str, str] = {}

    def add_import(self, node: cst.Import) -> None:
        """Record ``import a.b`` (binds ``a``) and ``import a.b as c`` (binds ``c``)."""
        for alias in node.names:
            full = _module_name(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self._names[alias.asname.name.value] = full
            else:
                root = full.split(".", 1)[0]
                self._names[root] = root

    def add_import_from(self, node: cst.ImportFrom) -> None:
        """Record ``from m import x as y``; relative imports keep their leading dots."""
        if isinstance(node.names, cst.ImportStar):
            return
        module = _module_name(node.module) if node.module is not None else ""
        module = "." * len(node.relative) + module
        for alias in node.names:
            name = _module_name(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self._names[local] = canonical(f"{module}.{name}" if module else name)

    def local_names_of(self, qualnames: Iterable[str]) -> set[str]:
        """Local names bound to any of *qualnames* (for cheap pre-checks)."""
        wanted = set(qualnames)
        return {local for local, q in self._names.items() if q in wanted}

    def imports_from(self, roots: Iterable[str]) -> bool:
        """True when some imported name comes from one of the top-level packages *roots*."""
        wanted = tuple(roots)
        return any(q.split(".", 1)[0] in wanted for q in self._names.values())

    def resolve(self, node: cst.BaseExpression) -> str | None:
        """Canonical qualified name of *node* if its root name was imported."""
        parts: list[str] = []
        while type(node) is cst.Attribute:  # leaf classes: an exact type test spares the ABC check
            parts.append(node.attr.value)
            node = node.value
        if type(node) is not cst.Name:
            return None
        root = self._names.get(node.value)
        if root is None:
            return None
        parts.append(root)
        return canonical(".".join(reversed(parts)))

    def resolve_name(self, name: str) -> str | None:
        """Qualified name bound to the bare local *name* by import, or None."""
        return self._names.get(name)
