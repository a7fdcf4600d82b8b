"""How a function answers a failure: the "fails fast" and "re-raising handler" facts of the project index.

``fails_fast(func, sleeps)`` is the line of an ``except`` handler of *func*'s own ``try`` that catches
the failure of a call in the ``try`` and returns (``except ResponseError: log...; return []``) with
no pause on the way, else None.  A caller's ``while`` loop that calls such a function and does not
pause itself goes straight back to the failing dependency on every pass: a tight retry loop whose
own code shows no ``except`` at all (``queries.limits.fails_fast`` answers for project callees).

``raising_handlers(func)`` are the line spans ``[first, last]`` of *func*'s own ``except`` handlers
that re-raise: a pause among their calls (``await self._pacer.pause()``) runs before the failure
reaches the caller, so a caller's retry loop is paced by its callee (``queries.limits.paces_failure``).

Pure ``ast`` (the index reads modules without LibCST).
"""
from __future__ import annotations

import ast

from boundlint.index.shapes import dotted

# Errors of the function's own local work, not of a dependency: answering them fast is no retry storm.
_LOCAL_ERRORS = frozenset({"ValueError", "TypeError", "KeyError", "IndexError", "AttributeError", "LookupError",
                           "JSONDecodeError", "UnicodeDecodeError", "UnicodeError", "ValidationError",
                           "StopIteration", "StopAsyncIteration", "NotImplementedError", "AssertionError",
                           "TimeoutError", "CancelledError", "Empty", "QueueEmpty"})
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own(stmts: list[ast.stmt]):
    """Every node under *stmts*, not entering nested functions, lambdas or classes."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, _FUNCS))


def _caught(handler: ast.ExceptHandler) -> list[str]:
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type] if handler.type else []
    return [(dotted(t) or "?").rsplit(".", 1)[-1] for t in types]


def _pauses(nodes, sleeps: frozenset[str]) -> bool:
    for node in nodes:
        if isinstance(node, ast.Call):
            name = dotted(node.func) or ""
            if name in sleeps or name.rsplit(".", 1)[-1] in ("sleep", "backoff", "wait"):
                return True
    return False


def fails_fast(func: ast.FunctionDef | ast.AsyncFunctionDef, sleeps: frozenset[str]) -> int | None:
    """The line of the first handler of *func* that returns at once on a failed call (see the module doc)."""
    for node in _own(func.body):
        if not isinstance(node, ast.Try) or not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                                                    for n in _own(node.body)):
            continue
        for handler in node.handlers:
            caught = _caught(handler)
            if not caught or any(c in _LOCAL_ERRORS for c in caught):
                continue  # a bare `except:` or the function's own parsing: not a dependency's failure
            own = list(_own(handler.body))
            returns = any(isinstance(n, ast.Return) for n in own)
            if returns and not any(isinstance(n, ast.Raise) for n in own) and not _pauses(own, sleeps):
                return handler.lineno
    return None


def raising_handlers(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[list[int]]:
    """``[[first line, last line], ...]`` of *func*'s own handlers that raise on every path out of them
    (their last statement is a ``raise``)."""
    out = []
    for node in _own(func.body):
        if isinstance(node, ast.Try):
            for handler in node.handlers:
                if handler.body and isinstance(handler.body[-1], ast.Raise):
                    out.append([handler.lineno, handler.end_lineno or handler.lineno])
    return sorted(out)
