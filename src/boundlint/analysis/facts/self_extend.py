"""A name rebound to itself plus a few literal items: ``filters = [model] + filters``.

Outside any loop such a rebinding adds a handful of items to what the name's other bindings hold,
so the volume reader judges the name by those other bindings alone. In a loop it grows once per
pass, so it is kept (and the name stays as large as the loop).
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.facts.literals import literal_items
from boundlint.analysis.facts.walk import kids

HANDFUL = 8  # literal items a rebinding may add and still add a fixed few
_LOOPS = (cst.For, cst.While)
_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _extends(value: cst.BaseExpression, name: str) -> bool:
    """*value* is ``name + [a, b]`` or ``[a, b] + name`` (a literal of at most ``HANDFUL`` items, none unpacked)."""
    if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add)):
        return False
    for own, other in ((value.left, value.right), (value.right, value.left)):
        if isinstance(own, cst.Name) and own.value == name and isinstance(other, (cst.List, cst.Tuple)):
            items = literal_items(other)
            return bool(items) and len(items) <= HANDFUL
    return False


def drop(func: cst.FunctionDef, name: str, values: list[cst.BaseExpression]) -> list[cst.BaseExpression]:
    """*values* (what *func* binds *name* to, ``bindings.assignments``) without its rebindings to itself
    plus a few literal items, when none is in a loop and another binding is left; else *values*."""
    grown = [v for v in values if _extends(v, name)]
    if not grown or len(grown) == len(values):
        return values
    ids = {id(v) for v in grown}
    stack: list[tuple[cst.CSTNode, bool]] = [(func.body, False)]
    while stack:
        node, looped = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if looped and isinstance(node, cst.Assign) and id(node.value) in ids:
            return values
        looped = looped or isinstance(node, _LOOPS)
        stack.extend((child, looped) for child in kids(node))
    return [v for v in values if id(v) not in ids]
