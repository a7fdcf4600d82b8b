"""Where a reported node sits, and so where that code runs.

``ancestors_of(top, node)`` finds the chain of nodes from a top-level
statement down to *node* (reports are resolved after the traversal, some at
the end of the module, so the traversal's own stack is not at hand).
``where_runs(path, chain)`` reads that chain: ``"once"`` for code
that runs once per process or deployment, ``"test"`` for test code,
``"request"`` for a web or RPC handler, ``"worker"`` for a task or consumer,
else ``"unknown"``.  ``where_runs_why(path, chain, project)`` also asks the
project index: a function only ever called from start-up, shutdown or
lifespan hooks runs once too.
"""
from __future__ import annotations

from typing import Iterator

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.analysis.facts.once_flag import migration_branch, once_flag, stop_flag
from boundlint.analysis.facts.once_message import once_message
from boundlint.analysis.facts.service_start import service_start

from boundlint.kinds.roles import ONCE, REQUEST, TEST, UNKNOWN, WORKER, role_of  # noqa: F401 (re-exported)
from boundlint.analysis.facts.walk import kids

# Folders whose modules run once per deployment or by hand, never per request.
_ONCE_FOLDERS = frozenset({"migrations", "alembic", "management", "scripts", "bin"})
_ONCE_FILES = frozenset({"__main__.py", "setup.py", "noxfile.py", "manage.py", "fabfile.py"})


def parents_in(top: cst.CSTNode) -> dict[int, cst.CSTNode]:
    """``id(node) -> parent`` for every node under *top*, whitespace and punctuation aside (one walk; climb it
    with ``chain_from``)."""
    from boundlint.analysis.walk.walker import children  # fields, not node.children (which rebuilds them)

    parents: dict[int, cst.CSTNode] = {}
    stack = [top]
    while stack:
        node = stack.pop()
        for child in children(node):
            parents[id(child)] = node
            stack.append(child)
    return parents


def chain_from(parents: dict[int, cst.CSTNode], node: cst.CSTNode) -> list[cst.CSTNode]:
    """The nodes above *node* in *parents* (``parents_in``), outermost first; [] when it is not there."""
    out = []
    current = parents.get(id(node))
    while current is not None:
        out.append(current)
        current = parents.get(id(current))
    return out[::-1]


def ancestors_of(top: cst.CSTNode, node: cst.CSTNode) -> list[cst.CSTNode]:
    """Nodes from *top* down to the parent of *node* (``[]`` when *node* is *top* or not under it)."""
    if top is node:
        return []
    stack: list[tuple[cst.CSTNode, Iterator[cst.CSTNode]]] = [(top, iter(kids(top)))]
    while stack:
        parent, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            continue
        if child is node:
            return [p for p, _ in stack]
        stack.append((child, iter(kids(child))))
    return []


def functions_in(chain: list[cst.CSTNode]) -> list[cst.FunctionDef]:
    """The function definitions of *chain*, outermost first."""
    return [n for n in chain if isinstance(n, cst.FunctionDef)]


def _decorator_names(func: cst.FunctionDef) -> list[str]:
    out = []
    for deco in func.decorators:
        expr = deco.decorator.func if isinstance(deco.decorator, cst.Call) else deco.decorator
        out.append(dotted(expr) or "")
    return out


def _decorator_texts(func: cst.FunctionDef) -> str:
    module = cst.Module(body=[])
    return " ".join(module.code_for_node(d.decorator) for d in func.decorators)


def _main_guard(node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.If):
        return False
    test = node.test
    return (isinstance(test, cst.Comparison) and dotted(test.left) == "__name__"
            and any(isinstance(c.comparator, cst.SimpleString) and "__main__" in c.comparator.value
                    for c in test.comparisons))


def _by_path(path: str) -> str | None:
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    folders = set(parts[:-1])
    if name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py":
        return TEST
    if name in _ONCE_FILES or folders & _ONCE_FOLDERS or "versions" in folders and "alembic" in path:
        return ONCE
    return None


def _memoized(func: cst.FunctionDef, classes: list[cst.ClassDef]) -> bool:
    """A plain function without parameters behind ``@cache`` / ``@lru_cache``: its body runs once per process."""
    p = func.params
    if classes or p.params or p.posonly_params or p.kwonly_params or isinstance(p.star_arg, cst.Param) or p.star_kwarg:
        return False
    return any(n.rsplit(".", 1)[-1] in ("cache", "lru_cache") for n in _decorator_names(func))


def _function_role(func: cst.FunctionDef, classes: list[cst.ClassDef]) -> str | None:
    if _memoized(func, classes):
        return ONCE
    owner = classes[-1] if classes else None
    bases = {(dotted(b.value) or "").rsplit(".", 1)[-1] for b in owner.bases} if owner is not None else None
    return role_of(_decorator_names(func), _decorator_texts(func), func.name.value, bases)


def where_runs(path: str, chain: list[cst.CSTNode]) -> str:
    """Where the code at the end of *chain* (from ``ancestors_of``) runs: ONCE, TEST, REQUEST, WORKER or UNKNOWN.

    Module-level code, a ``__main__`` block, a CLI command, a start-up or
    lifespan hook, a migration or management command, the body of a
    memoized function without parameters (``@cache``) runs once; a route or
    servicer method serves requests; a task or consumer is a worker.
    """
    by_path = _by_path(path)
    if by_path is not None:
        return by_path
    if any(_main_guard(n) for n in chain):
        return ONCE
    funcs = functions_in(chain)
    if not funcs:
        return ONCE  # import time
    classes = [n for n in chain if isinstance(n, cst.ClassDef)]
    for func in funcs:  # the outermost role decides: a helper nested in a CLI command runs once
        role = _function_role(func, classes)
        if role is not None:
            return role
    return UNKNOWN


def once_by_callers(chain: list[cst.CSTNode], project) -> str | None:
    """``"runs once: only called from `f()` (path:line)"`` when every known caller of the function
    holding the end of *chain* is a once-context (``index.once.once_callers``, asked through the
    ``ProjectView`` *project* so the cache records it); else None.

    For the outermost function of *chain* (a module function or a method of
    a module-level class); never for work inside a ``while`` loop, which runs
    on every pass however often its function is called.
    """
    funcs = functions_in(chain)
    if not funcs or not project:
        return None
    at = chain.index(funcs[0])
    classes = [n for n in chain[:at] if isinstance(n, cst.ClassDef)]
    if len(classes) > 1 or any(isinstance(n, cst.While) for n in chain[at:]):
        return None
    qualname = f"{classes[0].name.value}.{funcs[0].name.value}" if classes else funcs[0].name.value
    steps = project.ask("once_callers", project.ref(None, qualname))
    return "runs once: only called from " + "; ".join(steps) if steps else None


# What in a node's own chain makes it run once, and how a reason says so, checked in this order.
_ONCE_MARKS = (
    (once_flag, "runs once: guarded by the once-flag `{}`, set on the first run"),
    (stop_flag, "runs once per start: a stop that ends unless `{}` is set, then clears it"),
    (migration_branch, "runs once: a migration step, under the migrations flag `{}`"),
    (once_message, "runs once: the branch for the `{}` message, delivered once per process"),
)


def where_runs_why(path: str, chain: list[cst.CSTNode], project) -> tuple[str, str]:
    """``(where_runs(path, chain), why)``: an UNKNOWN place becomes ONCE behind a once-flag
    (``analysis.facts.once_flag``: ``if self._started: return`` then ``self._started = True``) or in a stop that
    clears its start flag (``if not self.started: raise`` then ``self.started = False``), in a message loop's
    branch for a message delivered once per process (``analysis.facts.once_message``: ``lifespan.startup``), under a
    migrations flag (``if ENABLE_DB_MIGRATIONS:``, ``index.migrations``), in the start-up part of a
    long-lived service's body (``analysis.facts.service_start``: a task group that also runs a task until
    cancelled), or when the project shows that only once-contexts call its function (``once_by_callers``; *why* names them,
    else "")."""
    runs = where_runs(path, chain)
    if runs == UNKNOWN:
        for find, why in _ONCE_MARKS:
            found = find(chain)
            if found:
                return ONCE, why.format(found)
        why = service_start(chain, project)  # the start-up part of a body that runs until cancelled
        if why:
            return ONCE, why
        why = once_by_callers(chain, project)
        if why:
            return ONCE, why
    return runs, ""


def tried_body(ancestors: list[cst.CSTNode], handler: cst.ExceptHandler) -> cst.CSTNode | None:
    """The body of the ``try`` whose ``except`` is *handler*, found among *ancestors* (the traversal's stack)."""
    for node in reversed(ancestors):
        if isinstance(node, (cst.Try, cst.TryStar)) and handler in node.handlers:
            return node.body
    return None
