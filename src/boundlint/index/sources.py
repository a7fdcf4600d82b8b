"""Volume that a function hands back: data read at run time, for loops over a project function's result.

Two readers for the index pass, one answer for the queries:

- ``returned_by(expr, callee)``: a loop's collection that is what a named function returns
  (``for row in changed_orders(since):``, also under ``await``, ``list()`` or ``sorted()``), as
  ``{"returns": ref, "text": "changed_orders()"}``; None for any other expression;
- ``rows_given(returns, prov, callee)``: what a function's ``return`` statements hand back, when it
  is data read at run time: ``{"data": text, "line": n}`` (its ``return``'s line) when a return holds query rows, a remote listing
  or a message batch itself (the reader's provenance ``{"data": ...}``, also item by item,
  ``[dict(r) for r in rows]``), ``{"from": [ref, ...]}`` when it hands back what named functions
  return; None otherwise;
- ``index.queries.reach.gives_rows`` decides, over the whole project and to a fixpoint, which
  functions return such data through any chain of such functions.
"""
from __future__ import annotations

import ast
from typing import Callable

_COPIES = frozenset({"list", "tuple", "set", "sorted", "reversed"})  # hand back the items they are given


def returned_by(expr: ast.AST, callee: Callable[[ast.Call], str | None]) -> dict | None:
    """``{"returns": ref, "text": "name()"}`` when *expr* is the result of a call *callee* resolves
    (to the project or a package, not the standard library), through ``await`` and copies; else None."""
    for _ in range(4):
        if type(expr) is ast.Await:
            expr = expr.value
        elif type(expr) is ast.Call and type(expr.func) is ast.Name and expr.func.id in _COPIES and expr.args:
            expr = expr.args[0]
        else:
            break
    if type(expr) is not ast.Call:
        return None
    ref = callee(expr)
    if ref is None:
        return None
    name = expr.func.attr if type(expr.func) is ast.Attribute else getattr(expr.func, "id", "?")
    return {"returns": ref, "text": f"{name}()"}


def rows_given(returns: list[ast.Return], prov: Callable[[ast.AST], dict | None],
               callee: Callable[[ast.Call], str | None]) -> dict | None:
    """What the ``return`` statements *returns* of a function hand back, when it is data read at run
    time (see the module doc); *prov* is the reader's provenance of an expression."""
    froms: list[str] = []
    for stmt in returns:
        if stmt.value is None:
            continue
        found = prov(stmt.value)
        for _ in range(4):  # an item of it, or one call per item of it: as many as it holds
            if found is None or "data" in found or "returns" in found:
                break
            found = found.get("each") or found.get("item")
        if found is None:
            found = returned_by(stmt.value, callee)
        if found is not None and "data" in found:
            return {"data": found["data"], "line": stmt.lineno}
        if found is not None and "returns" in found and found["returns"] not in froms:
            froms.append(found["returns"])
    return {"from": froms} if froms else None
