"""Sizes a function's callers decide: ``Semaphore(threads)`` where a caller, in any module of the
project, passes ``threads=len(accounts)``.

The project index records where each call's arguments come from (``index.reader``);
``sized_by_callers`` (``index.queries``) answers, for a parameter of a module-level
function or method, the chain of the first caller that passes an input-sized value.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.context import Context

_MAX_DEPTH = 4


def callers_size_chain(name: str, ctx: Context) -> list[str] | None:
    """The evidence chain when *name* is a parameter of the function being visited and some caller
    passes ``len(...)`` of a collection (or a name bound to it) for it; else None.

    Only module-level functions and methods are linked (a nested def has no callers in the index).
    """
    if not ctx.project:
        return None
    scope = ctx.scope.function()
    if scope is None or name not in scope.params or name in scope.bindings:
        return None
    qual = ctx.function_qualname()
    ref = ctx.project.ref(None, qual) if qual is not None else None
    if ref is None:
        return None
    return ctx.project.ask("sized_by_callers", ref, name)  # type: ignore[return-value]


def size_chain(expr: cst.BaseExpression | None, ctx: Context, depth: int = 0) -> tuple[str, ...]:
    """The callers' chain behind a size expression (``threads``, ``n = threads * 2``), or ``()`` when
    the size is input-sized right here (``len(items)``) or not at all."""
    if expr is None or depth > _MAX_DEPTH:
        return ()
    if isinstance(expr, cst.Name):
        bound = ctx.lookup(expr.value)
        if bound is not None and bound[0].kind != "module":
            for value in bound[1]:
                found = size_chain(value, ctx, depth + 1)
                if found:
                    return found
            return ()
        return tuple(callers_size_chain(expr.value, ctx) or ())
    if isinstance(expr, cst.Call):
        parts = [a.value for a in expr.args]
    elif isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation)):
        parts = [expr.left, expr.right]
    else:
        return ()
    for part in parts:
        found = size_chain(part, ctx, depth + 1)
        if found:
            return found
    return ()
