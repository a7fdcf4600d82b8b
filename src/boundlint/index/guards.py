"""Who may call an endpoint: the guards its injected dependencies name, from a fast ``ast`` pass.

``guards(func)`` lists, for a route, the dotted names of the functions its
parameters and its decorator's ``dependencies=[...]`` inject through a
``dependency-markers`` call (``user=Depends(get_admin_user)`` gives
``get_admin_user``), in source order.  The queries read them to tell an
endpoint only operators may call (``queries.installed``).
"""
from __future__ import annotations

import ast

from boundlint import tables
from boundlint.index.reader import dotted


def _injected(call: ast.AST, markers: frozenset | set) -> str | None:
    """``x`` of ``Depends(x)`` (any ``dependency-markers`` call), else None."""
    if not (isinstance(call, ast.Call) and (dotted(call.func) or "").rsplit(".", 1)[-1] in markers and call.args):
        return None
    return dotted(call.args[0])


def guards(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The dotted names of the dependencies *func* injects (see the module doc); ``[]`` when none."""
    markers = tables.table("dependency-markers")
    found: list[str] = []
    for deco in func.decorator_list:
        for kw in deco.keywords if isinstance(deco, ast.Call) else ():
            if kw.arg == "dependencies" and isinstance(kw.value, (ast.List, ast.Tuple)):
                found.extend(n for n in (_injected(e, markers) for e in kw.value.elts) if n)
    args = func.args
    defaults = [*args.defaults, *args.kw_defaults]
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        annotation = arg.annotation
        if isinstance(annotation, ast.Subscript) and isinstance(annotation.slice, ast.Tuple):
            found.extend(n for n in (_injected(e, markers) for e in annotation.slice.elts[1:]) if n)  # Annotated[...]
    found.extend(n for n in (_injected(d, markers) for d in defaults if d is not None) if n)
    return list(dict.fromkeys(found))
