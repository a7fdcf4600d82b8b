"""Code in a branch taken only for a message a protocol delivers once per process runs once.

An ASGI server sends the ``lifespan.startup`` and ``lifespan.shutdown`` messages once each per process;
the loop that receives them is a message loop, but its branch for one of them is start-up or shutdown
code.  ``once_message(chain)`` reads the ancestors of a reported node (``analysis.facts.placement.ancestors_of``)
and names the message type of such a branch: ``if message["type"] == "lifespan.startup":`` (the node in
its body) or ``case "lifespan.startup":`` of a ``match``.  The message types are the ``once-messages``
table.
"""
from __future__ import annotations

import libcst as cst

from boundlint import tables


def _literal(node: cst.BaseExpression) -> str | None:
    """The value of a plain string literal (``"lifespan.startup"``), else None."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _compared(test: cst.BaseExpression) -> str | None:
    """The string literal *test* compares with ``==`` (``X == "lit"`` or ``"lit" == X``), else None."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    target = test.comparisons[0]
    if not isinstance(target.operator, cst.Equal):
        return None
    return _literal(target.comparator) or _literal(test.left)


def once_message(chain: list[cst.CSTNode], settings: object = None) -> str | None:
    """The once-per-process message type (``lifespan.startup``) whose branch holds the code at the end of
    *chain*, else None.

    The branch is the body of an ``if`` that compares a value with the type's string literal, or a
    ``case`` matching it; never its ``else`` (the other messages).
    """
    once = tables.table("once-messages", settings)
    for at, node in enumerate(chain[:-1]):
        inner = chain[at + 1]
        if isinstance(node, cst.If) and inner is node.body:
            found = _compared(node.test)
        elif isinstance(node, cst.MatchCase) and inner is node.body and isinstance(node.pattern, cst.MatchValue):
            found = _literal(node.pattern.value)
        else:
            continue
        if found in once:
            return found
    return None
