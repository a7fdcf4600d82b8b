"""One walk of a function's own code, shared by the facts that read it."""
from __future__ import annotations

from typing import Iterator

import libcst as cst

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def mentions(node: cst.CSTNode, name: str) -> bool:
    """True when the bare name *name* occurs anywhere under *node* (itself included, nested scopes too)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name) and current.value == name:
            return True
        stack.extend(current.children)
    return False


def own_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under *node* (itself included), in source order.  A nested ``def``, class or
    lambda is yielded but not entered: its body runs when it is called, not here."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, _SCOPES) and n is not node:
            continue
        stack.extend(reversed(n.children))


def binding_targets(node: cst.CSTNode, loops: bool = False) -> list[cst.BaseExpression]:
    """The targets *node* binds when it is an assignment (``=``, annotated, augmented, ``:=``) or an
    ``as`` name; with *loops*, also a ``for`` loop's or comprehension's target; else []."""
    if isinstance(node, cst.Assign):
        return [t.target for t in node.targets]
    if isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr)) or loops and isinstance(node, (cst.For, cst.CompFor)):
        return [node.target]
    if isinstance(node, cst.AsName):
        return [node.name]
    return []
