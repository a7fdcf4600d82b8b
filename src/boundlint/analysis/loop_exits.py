"""Loops that a failure ends: the handler makes the ``while`` condition false."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.context import Loop

_FALSY = frozenset({"None", "False"})


def stops_condition(loop: Loop, handler: cst.ExceptHandler) -> bool:
    """True when *handler* sets a name that the ``while`` condition requires to be true to a falsy constant
    (``while running and ...:`` ... ``except ...: running = False``): the loop ends after the failure."""
    if loop.kind != "while" or loop.test is None:
        return False
    required, test = set(), loop.test
    conjuncts = [test]
    while conjuncts:
        part = conjuncts.pop()
        if isinstance(part, cst.BooleanOperation) and isinstance(part.operator, cst.And):
            conjuncts += [part.left, part.right]
        elif isinstance(part, cst.Name):
            required.add(part.value)
        elif (isinstance(part, cst.Comparison) and isinstance(part.left, cst.Name) and len(part.comparisons) == 1
              and isinstance(part.comparisons[0].operator, cst.IsNot)
              and isinstance(part.comparisons[0].comparator, cst.Name) and part.comparisons[0].comparator.value == "None"):
            required.add(part.left.value)
    for stmt in handler.body.body:  # the handler's own statements, so the assignment runs on every failure
        for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
            if (isinstance(small, cst.Assign) and isinstance(small.value, (cst.Name, cst.Integer))
                    and (small.value.value in _FALSY or small.value.value == "0")
                    and any(isinstance(t.target, cst.Name) and t.target.value in required for t in small.targets)):
                return True
    return False
