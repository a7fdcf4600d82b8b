"""Literal collections as the volume reader sees them: their items, the part an index picks, and calls
that cap what they return with a constant."""
from __future__ import annotations

import libcst as cst

from boundlint import tables


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


def capped(call: cst.Call, settings) -> str:
    """``"at most 10 items (`limit=10`)"`` when *call* caps what it returns with a constant: a keyword of
    the ``limit-keywords`` table, or a ``.limit(N)`` on the query it is given; else ""."""
    keywords = tables.table("limit-keywords", settings)
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in keywords and _constant(arg.value):
            return f"at most {_text(arg.value)} items (`{arg.keyword.value}={_text(arg.value)}`)"
    for arg in call.args:  # session.scalars(select(Job).limit(100))
        value = arg.value
        while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
            if value.func.attr.value == "limit" and len(value.args) == 1 and _constant(value.args[0].value):
                return f"at most {_text(value.args[0].value)} items (`.limit({_text(value.args[0].value)})`)"
            value = value.func.value
    return ""


def _constant(expr: cst.BaseExpression) -> bool:
    """An integer literal, or an UPPER_CASE constant."""
    return isinstance(expr, cst.Integer) or (isinstance(expr, cst.Name) and expr.value.isupper())


def _text(expr: cst.BaseExpression) -> str:
    return expr.value if isinstance(expr, (cst.Integer, cst.Name)) else "N"
