"""Literal collections as the volume reader sees them: their items, and the part an index picks."""
from __future__ import annotations

import libcst as cst


def item(value: cst.BaseExpression, i: int) -> cst.Subscript:
    """``value[i]``: the part of *value* an unpacking binds to its *i*-th name."""
    return cst.Subscript(value=value, slice=[cst.SubscriptElement(slice=cst.Index(value=cst.Integer(str(i))))])


def literal_items(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The items of a literal collection with no unpacked part (a dict's values), else None."""
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        return [e.value for e in node.elements]
    if isinstance(node, cst.Dict):
        if any(isinstance(e, cst.StarredDictElement) for e in node.elements):
            return None
        return [e.value for e in node.elements]
    return None


def index_of(sub: cst.Subscript) -> int | None:
    """The integer literal *sub* indexes with (``pair[1]``), else None."""
    if len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index):
        value = sub.slice[0].slice.value
        if isinstance(value, cst.Integer):
            return int(value.value, 0)
    return None
