"""What a function hands back, for the volume of a collection a caller loops over.

``returned(func, params)`` reads the ``return`` statements of *func* (nested
definitions skipped) and answers, JSON-ready:

- ``{"fixed": n}``: every return is a handful of literal items (at most
  ``HANDFUL``), or a filter or copy of such a literal
  (``tuple(n for n in (a, b) if n)``); *n* is the largest count;
- ``{"param": name}``: every return is the same parameter, never rebound
  (``if v is None: raise ...; return v``);
- None otherwise, and for a generator.
"""
from __future__ import annotations

import ast

HANDFUL = 8
# Calls that hand back (a copy or filter of) their first argument, never more items than it has.
_COPIES = frozenset({"list", "tuple", "set", "frozenset", "sorted", "reversed", "fromkeys", "filter"})


def _count(expr: ast.AST | None, depth: int = 0) -> int | None:
    """The most items *expr* can hold when the code fixes them as a handful of literals, else None."""
    if depth > 4:
        return None
    if expr is None or (isinstance(expr, ast.Constant) and expr.value is None):
        return 0
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        total = 0
        for elt in expr.elts:
            inner = _count(elt.value, depth + 1) if isinstance(elt, ast.Starred) else 1
            if inner is None:
                return None
            total += inner
        return total if total <= HANDFUL else None
    if isinstance(expr, ast.Dict):
        return len(expr.keys) if None not in expr.keys and len(expr.keys) <= HANDFUL else None
    if isinstance(expr, ast.IfExp):
        body, orelse = _count(expr.body, depth + 1), _count(expr.orelse, depth + 1)
        return None if body is None or orelse is None else max(body, orelse)
    if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp)) and len(expr.generators) == 1:
        return _count(expr.generators[0].iter, depth + 1)
    if isinstance(expr, ast.Call) and expr.args and not expr.keywords:
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in _COPIES:
            return _count(expr.args[-1] if name == "filter" else expr.args[0], depth + 1)
    return None


def _returns(func: ast.AST) -> tuple[list[ast.Return], bool, set[str]]:
    """The return statements of *func*'s own body, whether it yields, and the names it binds."""
    out: list[ast.Return] = []
    yields = False
    bound: set[str] = set()
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(node, ast.Return):
            out.append(node)
        elif isinstance(node, (ast.Yield, ast.YieldFrom)):
            yields = True
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return out, yields, bound


def returned(func: ast.FunctionDef | ast.AsyncFunctionDef, params: list[str]) -> dict | None:
    """See the module doc: ``{"fixed": n}``, ``{"param": name}`` or None for the function *func*
    whose parameter names are *params*."""
    found, yields, bound = _returns(func)
    if yields or not found:
        return None
    names = {r.value.id for r in found if isinstance(r.value, ast.Name)}
    if len(names) == 1 and all(isinstance(r.value, ast.Name) for r in found):
        name = names.pop()
        handed_back = name in params and name not in ("self", "cls") and name not in bound  # not rebound first
        return {"param": name} if handed_back else None
    counts = [_count(r.value) for r in found]
    if any(c is None for c in counts) or not any(r.value is not None for r in found):
        return None
    return {"fixed": max(counts)}
