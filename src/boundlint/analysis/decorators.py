"""Which project decorator a nested def is the wrapper of.

A decorator ``def retry(fn): ... def wrapper(*a, **k): ... return wrapper`` (or a factory one
level up, ``def retry(times): def deco(fn): ... return deco``) runs its wrapper on every call
of each function it decorates, so what the wrapper does per call, the decorated function does.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.context import Context


def wrapping_decorator(ctx: Context) -> str | None:
    """The name of the module-level function that the def being visited is the wrapper of: the def is
    nested in it, directly or in a def it returns (a decorator factory), and each def on the way is
    returned by the one around it (``return wrapper``, ``return functools.wraps(fn)(wrapper)``,
    ``return update_wrapper(wrapper, fn)``); else None (a method, a module-level def, a helper)."""
    scope = ctx.scope.function()
    for _ in range(2):
        if scope is None or type(scope.node) is not cst.FunctionDef:
            return None
        parent = scope.parent
        if parent is None or parent.kind != "function" or type(parent.node) is not cst.FunctionDef \
                or not _returns(parent.node, scope.node.name.value):
            return None
        if parent.parent is not None and parent.parent.kind == "module":
            return parent.node.name.value
        scope = parent
    return None


def _returns(func: cst.FunctionDef, name: str) -> bool:
    """Whether one of *func*'s own top-level statements returns the def *name*, as is or wrapped in a call."""
    body = func.body
    for stmt in body.body if isinstance(body, cst.IndentedBlock) else ():
        for small in stmt.body if type(stmt) is cst.SimpleStatementLine else ():
            value = small.value if type(small) is cst.Return else None
            if type(value) is cst.Name and value.value == name:
                return True
            while type(value) is cst.Call:
                if any(type(a.value) is cst.Name and a.value.value == name for a in value.args):
                    return True
                value = value.func
    return False
