"""Which parameters a function loops over with work per item: the "iterated" fact of the project index.

``iterated(func)`` is ``[[path, line], ...]``: each ``for`` loop or comprehension of *func*'s own code
(not nested functions) over one of its parameters or a field of one (``uris``, ``req.uris``; through
``list()``, ``sorted()``, ``set()``, ``enumerate()``, ``.items()`` / ``.values()``) whose body calls
something: work per item.  A loop over a slice, a ``range`` or a literal is not listed, nor one after
a length check of that path (``if len(uris) > N: raise``; the index's ``len_checked`` says so too).
``queries.callers.iterates`` answers, through the calls that pass the value on, whether a project
function consumes an argument per item: the hop a gRPC servicer's ``request.ids`` takes to a helper
in another module that queries per id.

Pure ``ast`` (the index reads modules without LibCST).
"""
from __future__ import annotations

import ast

from boundlint.index.shapes import dotted

_COPIES = frozenset({"list", "tuple", "set", "sorted", "enumerate", "reversed", "frozenset"})
_VIEWS = frozenset({"items", "values", "keys"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _path(expr: ast.AST) -> str | None:
    for _ in range(3):
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in _COPIES and expr.args:
            expr = expr.args[0]
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _VIEWS \
                and not expr.args:
            expr = expr.func.value
        else:
            break
    return dotted(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None


def _calls(nodes: list[ast.AST]) -> bool:
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            return True
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, _SCOPES))
    return False


def iterated(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[list]:
    """``[[path, line], ...]`` of *func*'s loops over its parameters with a call per item (module doc)."""
    args = func.args
    params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)} - {"self", "cls"}
    if not params:
        return []
    out: list[list] = []
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.For, ast.AsyncFor)):
            found, body = _path(node.iter), node.body
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)) and node.generators:
            found = _path(node.generators[0].iter)
            body = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        else:
            found, body = None, []
        if found is not None and found.split(".", 1)[0] in params and _calls(body):
            out.append([found, node.lineno])
        stack.extend(c for c in ast.iter_child_nodes(node) if not isinstance(c, _SCOPES))
    return sorted(out, key=lambda item: item[1])
