"""Branches a call's arguments rule out: ``grants if grants is not None else load_grants(id)``.

A helper that loads what its caller did not hand in runs the load only when
the argument is ``None``.  A call that hands in a value shown not to be
``None`` (a literal, a comprehension, ``mapping.get(key, [])``) never takes
that branch, so the work it does is read without it.

- ``given(call, func, offset)``: the parameters of the def in sight *func*
  that *call* fills with a value shown not to be ``None``;
- ``not_taken(body, names)``: the ids of the branches under *body* a
  ``None`` test on one of *names* rules out (the ``else`` of
  ``x if p is not None else y``, the body of ``if p is None:``).

Pure reading of LibCST nodes.
"""
from __future__ import annotations

import libcst as cst

from boundlint.facts.walk import own_nodes

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


def _none_test(test: cst.BaseExpression, names: frozenset[str]) -> bool | None:
    """True for ``p is None``, False for ``p is not None`` (*p* one of *names*), else None."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if not (isinstance(test.left, cst.Name) and test.left.value in names
            and isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
        return None
    if isinstance(target.operator, cst.Is):
        return True
    return False if isinstance(target.operator, cst.IsNot) else None


def not_taken(body: cst.CSTNode, names: frozenset[str]) -> set[int]:
    """The ids of the branches under *body* that a ``None`` test on one of *names* (parameters
    filled with values shown not to be ``None``) rules out.  Nested defs are not read."""
    if not names:
        return set()
    out: set[int] = set()
    for node in own_nodes(body):
        if isinstance(node, (cst.IfExp, cst.If)):
            is_none = _none_test(node.test, names)
            if is_none is None:
                continue
            branch = node.body if is_none else node.orelse
            if branch is not None:
                out.add(id(branch))
    return out
