"""How a collection built empty is filled in its function, for the volume reader: the loops around
each fill and what an ``extend`` adds."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.facts.walk import kids, mentions

_ONE = frozenset({"append", "add", "insert", "appendleft"})
_MANY = frozenset({"extend", "update", "extendleft"})
# Calls that only read a collection handed to them (never fill it).
_READERS = frozenset({"len", "list", "tuple", "set", "frozenset", "sorted", "reversed", "enumerate", "zip", "iter",
                      "any", "all", "sum", "min", "max", "dict", "print", "isinstance", "bool"})


def empty(expr: cst.BaseExpression) -> bool:
    """``[]``, ``set()``, ``{}``: a collection built empty, as large as what fills it."""
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
        return not expr.elements
    return (type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value in ("list", "set", "dict")
            and not expr.args)


def _is(node: cst.CSTNode, name: str) -> bool:
    return type(node) is cst.Name and node.value == name


def fills(func: cst.FunctionDef, name: str) -> list[tuple[tuple[cst.BaseExpression, ...], cst.BaseExpression | None]] | None:
    """``[(loops, added)]``, one per statement of *func* that fills *name*: the iterables of the ``for``
    loops and comprehensions around it (inside *func*), and for an ``extend`` / ``update`` / ``+=`` the
    collection it adds (None for one item: ``append``, ``add``, ``name[k] = v``).

    None when the fills cannot all be seen here: one in a ``while`` loop, a nested function or lambda
    that names it, or a call that is handed it (``collect(rows, name)``) other than a reader such as
    ``len``; ``[]`` when nothing fills it.
    """
    out: list[tuple[tuple[cst.BaseExpression, ...], cst.BaseExpression | None]] = []
    stack: list[tuple[cst.CSTNode, tuple]] = [(func.body, ())]
    while stack:
        node, loops = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if mentions(node, name):
                return None
            continue
        if type(node) is cst.While:
            if mentions(node.body, name):
                return None
        if type(node) is cst.For:
            stack.append((node.iter, loops))
            stack.extend((child, (*loops, node.iter)) for child in (node.body, *([node.orelse] if node.orelse else [])))
            continue
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            inner, comp = loops, node.for_in
            while comp is not None:
                stack.append((comp.iter, inner))
                inner = (*inner, comp.iter)
                comp = comp.inner_for_in
            stack.extend((child, inner) for child in kids(node) if type(child) is not cst.CompFor)
            continue
        if type(node) is cst.Call:
            func_ = node.func
            if type(func_) is cst.Attribute and _is(func_.value, name):
                if func_.attr.value in _ONE:
                    out.append((loops, None))
                elif func_.attr.value in _MANY and node.args:
                    out.append((loops, node.args[0].value))
            elif any(_is(a.value, name) and not a.star for a in node.args) and not (
                    type(func_) is cst.Name and func_.value in _READERS):
                return None  # handed to a call that may fill it
        if type(node) is cst.AugAssign and _is(node.target, name):
            out.append((loops, node.value))
        if type(node) is cst.Assign and any(
                type(t.target) is cst.Subscript and _is(t.target.value, name) for t in node.targets):
            out.append((loops, None))
        stack.extend((child, loops) for child in kids(node))
    return out
