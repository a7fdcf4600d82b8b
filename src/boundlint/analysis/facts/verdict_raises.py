"""A handler that catches only the HTTP error responses its own work raises as verdicts on the item.

``try: await check_access(item, user) except HTTPException: log.warning(...)``:
``check_access`` raises ``HTTPException(status_code=403)`` when the user may
not touch the item.  The handler catches that refusal; a failing database or
HTTP client raises its own errors, which pass it by.  So its log line repeats
per refused item, not per item in an outage.

``verdict_catch(handler, ctx)`` shows it from the code: the handler catches
only classes of the ``http-error-responses`` table, and the work of its
``try`` in sight (the body, and this module's functions and methods it calls,
three calls deep) raises them only with a 4xx status and never inside an
``except`` (where a failure would be turned into a response).  Pure reading
of LibCST nodes and the module index.
"""
from __future__ import annotations

import re

import libcst as cst

from boundlint import tables
from boundlint.analysis.names import dotted
from boundlint.analysis.facts.walk import own_nodes

_DEPTH = 3
_STATUS_NAME = re.compile(r"(?:^|\.)HTTP_4\d\d(?:_|$)")


def _types(handler: cst.ExceptHandler) -> list[cst.BaseExpression]:
    if handler.type is None:
        return []
    return [e.value for e in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]


def _verdict_status(call: cst.Call) -> bool:
    """True when the exception built by *call* carries a 4xx status (``status_code=403``,
    ``status.HTTP_403_FORBIDDEN``, or the first positional argument)."""
    status = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == "status_code"), None)
    if status is None:
        status = next((a.value for a in call.args if a.keyword is None and not a.star), None)
    if isinstance(status, cst.Integer):
        return 400 <= int(status.value) <= 499
    return isinstance(status, (cst.Name, cst.Attribute)) and bool(_STATUS_NAME.search(dotted(status) or ""))


class _Raises:
    """The raises of the caught classes in a ``try``'s work in sight: verdicts, and any other."""

    def __init__(self, names: set[str], owner: str | None, ctx) -> None:
        self.names, self.owner, self.ctx = names, owner, ctx
        self.verdicts, self.other = 0, 0
        self.seen: set[int] = set()

    def caught_class(self, expr: cst.BaseExpression) -> bool:
        text = dotted(expr) or ""
        return text in self.names or (self.ctx.qualname(expr) or "") in self.names

    def callee(self, call: cst.Call) -> cst.FunctionDef | None:
        func = call.func
        if isinstance(func, cst.Name) and self.ctx.qualname(func) is None:
            found = self.ctx.index.functions.get(func.value)
        elif isinstance(func, cst.Attribute) and dotted(func.value) in ("self", "cls") and self.owner:
            found = self.ctx.index.methods.get(self.owner, {}).get(func.attr.value)
        else:
            return None
        return found if isinstance(found, cst.FunctionDef) else None

    def read(self, node: cst.CSTNode, depth: int) -> None:
        handlers = [h for h in own_nodes(node) if isinstance(h, cst.ExceptHandler)]
        in_handler = {id(n) for h in handlers for n in own_nodes(h.body)}
        for n in own_nodes(node):
            if isinstance(n, cst.Raise) and n.exc is not None:
                built = n.exc if isinstance(n.exc, cst.Call) else None
                if self.caught_class(built.func if built is not None else n.exc):
                    if built is not None and _verdict_status(built) and id(n) not in in_handler:
                        self.verdicts += 1
                    else:
                        self.other += 1
            elif isinstance(n, cst.Call) and depth < _DEPTH:
                found = self.callee(n)
                if found is not None and id(found) not in self.seen:
                    self.seen.add(id(found))
                    self.read(found.body, depth + 1)


def verdict_catch(handler: cst.ExceptHandler, ctx) -> str:
    """``"catches `HTTPException` its work raises as a 4xx verdict"`` when *handler* catches only
    classes of the ``http-error-responses`` table and the work of its ``try`` (found among
    ``ctx.ancestors``) in sight raises them, only with a 4xx status and outside any ``except``;
    else ""."""
    from boundlint.analysis.facts.caught import _try_of

    types = _types(handler)
    entries = tables.table("http-error-responses", ctx.settings)
    if not types or not all((ctx.qualname(t) or "") in entries or (dotted(t) or "") in entries for t in types):
        return ""
    found = _try_of(handler, ctx)
    if found is None:
        return ""
    owner = next((n.name.value for n in reversed(found[1]) if isinstance(n, cst.ClassDef)), None)
    raises = _Raises({dotted(t) or "" for t in types}, owner, ctx)
    raises.read(found[0].body, 0)
    if raises.verdicts and not raises.other:
        return f"catches `{dotted(types[0])}` its work raises as a 4xx verdict"
    return ""
