"""Where fan-out items come from and what bounds them: expression helpers of the audit collector.

``_origin`` follows local aliases and loop targets to the dotted expression a
fan-out iterates (``request.uris``); ``_gather_limit`` names what bounds a
gather the fan-out rule judged bounded.  Used only by ``boundlint.audit.collector``.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.names import dotted
from boundlint.rules.base import short


_QUERY_LISTS = frozenset({"getlist", "getall", "get_all", "getlist_or_none"})
_BATCH_WORDS = frozenset({"batched", "chunked", "chunks", "batch", "grouper"})


def _unwrap(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``enumerate(x)`` / ``x.items()`` / ``range(len(x))`` / ``list(x)`` -> ``x``."""
    for _ in range(3):
        if not isinstance(expr, cst.Call):
            break
        func = expr.func
        if isinstance(func, cst.Name) and func.value in ("enumerate", "sorted", "reversed", "list", "set", "tuple") and expr.args:
            expr = expr.args[0].value
        elif isinstance(func, cst.Name) and func.value == "range" and len(expr.args) == 1:
            inner = expr.args[0].value
            if isinstance(inner, cst.Call) and dotted(inner.func) == "len" and inner.args:
                expr = inner.args[0].value
            else:
                break
        elif isinstance(func, cst.Attribute) and func.attr.value in ("items", "keys", "values") and not expr.args:
            expr = func.value
        else:
            break
    return expr


def _origin(expr: cst.BaseExpression | None, ctx: Context, depth: int = 0) -> str | None:
    """The dotted expression items come from, following local aliases and loop targets (``uris = request.uris``)."""
    if expr is None or depth > 3:
        return None
    expr = _unwrap(expr)
    if isinstance(expr, cst.Await):
        expr = expr.expression
    if isinstance(expr, cst.Subscript):
        return _origin(expr.value, ctx, depth + 1)
    if isinstance(expr, cst.Call):
        query = _query_name(expr)
        if query is not None:
            return query
        if isinstance(expr.func, cst.Attribute) and not expr.args:  # await request.json()
            return dotted(expr.func)
    if isinstance(expr, cst.Call) and dotted(expr.func) in ("map", "filter", "zip") and expr.args:
        return _origin(expr.args[-1].value, ctx, depth + 1)
    if isinstance(expr, cst.Call) and (dotted(expr.func) or "").rsplit(".", 1)[-1] in _BATCH_WORDS and expr.args:
        return _origin(expr.args[0].value, ctx, depth + 1)
    if isinstance(expr, cst.Name):
        loop = ctx.loop_with_target(expr.value)
        if loop is not None and loop.iter is not None:
            return _origin(loop.iter, ctx, depth + 1)
        bound = ctx.lookup(expr.value)
        if bound is not None and bound[0].kind != "module" and bound[1] and bound[1][-1] is not None:
            inner = _origin(bound[1][-1], ctx, depth + 1)
            if inner is not None:
                return inner
    return dotted(expr)


def _request_global(name: str, ctx: Context) -> bool:
    """True for Flask's and Quart's global ``request`` proxy."""
    return (ctx.names.resolve_name(name) or "") in ("flask.request", "quart.request")


def _query_name(call: cst.Call) -> str | None:
    """``query `id``` for ``request.args.getlist("id")``."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in _QUERY_LISTS and call.args:
        first = call.args[0].value
        if isinstance(first, cst.SimpleString) and isinstance(first.evaluated_value, str):
            return f"query `{first.evaluated_value}`"
    return None


def _loop_text(loops: list[Loop]) -> str | None:
    for loop in reversed(loops):
        if loop.iter is not None:
            return short(loop.iter)
    return None


def _gather_limit(built, ctx: Context) -> str | None:
    """What bounds a gather the fan-out rule judged bounded (the same checks, with their descriptions)."""
    if limits.teardown_call(built.target):
        return "releases existing resources"
    if built.target is not None:
        found = limits.callee_limit(built.target, ctx)
        if found:
            return found
    descs = []
    for s in built.sources:
        if s is not None:
            found = limits.source_limit(s, ctx) or limits.batch_limit(s, ctx)
            if found:
                descs.append(found)
    return ", ".join(dict.fromkeys(descs)) or None
