"""Branches a call's arguments rule out: ``grants if grants is not None else load_grants(id)``.

A helper that loads what its caller did not hand in runs the load only when
the argument is ``None``.  A call that hands in a value shown not to be
``None`` (a literal, a comprehension, ``mapping.get(key, [])``) never takes
that branch, so the work it does is read without it.

- ``given(call, func, offset)``: the parameters of the def in sight *func*
  that *call* fills with a value shown not to be ``None``; ``analysis.facts.flag_args``
  rules out the branches a ``None`` test on one of them decides (the ``else``
  of ``x if p is not None else y``, the body of ``if p is None:``).

Pure reading of LibCST nodes.
"""
from __future__ import annotations

import libcst as cst


_VALUES = (cst.List, cst.Dict, cst.Tuple, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp, cst.SimpleString,
           cst.FormattedString, cst.ConcatenatedString, cst.Integer, cst.Float)


def _not_none(expr: cst.BaseExpression) -> bool:
    """True when *expr* is shown not to be ``None``: a literal or a comprehension, or
    ``m.get(key, default)`` with such a default."""
    if isinstance(expr, _VALUES):
        return True
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "get" \
            and len(expr.args) == 2 and all(a.keyword is None and not a.star for a in expr.args):
        return _not_none(expr.args[1].value)
    return False


def given(call: cst.Call, func: cst.FunctionDef, offset: int) -> frozenset[str]:
    """The names of *func*'s parameters that *call* fills with a value shown not to be ``None``;
    *offset* is how many leading parameters the call does not fill (``self``)."""
    if any(isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod" for d in func.decorators):
        offset = 0  # `self.helper(x)` fills a static method's first parameter
    params = [*func.params.posonly_params, *func.params.params]
    named = {p.name.value for p in (*params, *func.params.kwonly_params)}
    out: set[str] = set()
    position = offset
    for arg in call.args:
        if arg.star:
            return frozenset(out) if arg.keyword is None and arg.star == "**" else frozenset()
        if arg.keyword is None:
            if position < len(params) and _not_none(arg.value):
                out.add(params[position].name.value)
            position += 1
        elif arg.keyword.value in named and _not_none(arg.value):
            out.add(arg.keyword.value)
    return frozenset(out)
