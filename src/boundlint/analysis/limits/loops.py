"""Does a loop run a bounded number of times: ``loop_limit(loop, ctx)``.

A ``for`` loop or comprehension is as long as its source (``sources.source_limit``, or fixed-size
batches); a ``while`` loop is bounded by a counter compared with a constant.  Either kind stops at
capacity when it takes a slot of a limiter without waiting and leaves the loop when none is free
(``try: token = limiter.acquire_nowait() except WouldBlock: break``): the slots are held by the work
it started, so no more than the limiter's capacity pass that point per run of the loop.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.context import Loop
from boundlint.analysis.limits.sources import batch_limit, constant, iter_nodes, source_limit
from boundlint.analysis.names import dotted
from boundlint.analysis.facts.walk import per_node
from boundlint.verdicts import COUNTER, LOOP_SLOT, Limit


def loop_limit(loop: Loop, ctx) -> str | None:
    """Why *loop* runs a bounded number of times (or per fixed-size batch), or None."""
    if loop.kind in ("for", "comp"):
        found = source_limit(loop.iter, ctx) or batch_limit(loop.iter, ctx)
        return found or capacity_stop(loop)
    test = loop.test
    if type(test) is cst.Comparison and len(test.comparisons) == 1:
        comp = test.comparisons[0]
        if isinstance(comp.operator, (cst.LessThan, cst.LessThanEqual)) and constant(comp.comparator, ctx):
            return Limit(COUNTER, "a bounded counter")
        if isinstance(comp.operator, (cst.GreaterThan, cst.GreaterThanEqual)) and constant(test.left, ctx):
            return Limit(COUNTER, "a bounded counter")
    return capacity_stop(loop)


def _leaves(body: cst.BaseSuite) -> bool:
    """True when *body* ends by leaving the loop (``break`` / ``return`` / ``raise``)."""
    stmts = list(body.body)
    if not stmts:
        return False
    last = stmts[-1]
    if type(last) is cst.SimpleStatementLine and last.body:
        return isinstance(last.body[-1], (cst.Break, cst.Return, cst.Raise))
    if type(body) is cst.SimpleStatementSuite:
        return isinstance(stmts[-1], (cst.Break, cst.Return, cst.Raise))
    return False


def _acquire(node: cst.CSTNode) -> str | None:
    """The receiver of a non-blocking slot grab (``acquire_nowait()``, ``acquire(blocking=False)``,
    ``acquire()`` that raises when full), as written, else None."""
    if type(node) is not cst.Call or type(node.func) is not cst.Attribute:
        return None
    name = node.func.attr.value
    if not name.startswith("acquire"):
        return None
    return dotted(node.func.value) or None


def capacity_stop(loop: Loop) -> Limit | None:
    """A slot taken without waiting in *loop*'s body, leaving the loop when none is free, else None.

    ``try: slot = limiter.acquire_nowait() except WouldBlock: break`` (any handler that leaves the loop)
    or ``if not limiter.acquire(blocking=False): break``.  Not when the loop releases the same limiter:
    then a slot is held for one pass only and bounds nothing.
    """
    if loop.kind not in ("for", "while"):
        return None
    return _slot_stop(loop.node)


@per_node
def _slot_stop(node: cst.For | cst.While) -> Limit | None:
    body = node.body
    found = None
    for node in iter_nodes(body):
        if type(node) is cst.Try and node.handlers and all(_leaves(h.body) for h in node.handlers):
            grabs = [r for n in iter_nodes(node.body) if (r := _acquire(n))]
            found = found or (grabs[0] if grabs else None)
        elif type(node) is cst.If and type(node.test) is cst.UnaryOperation and type(node.test.operator) is cst.Not:
            if _leaves(node.body):
                found = found or _acquire(node.test.expression)
    if found is None:
        return None
    for node in iter_nodes(body):
        if type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value.startswith("release"):
            if dotted(node.func.value) == found:
                return None
    return Limit(LOOP_SLOT, f"stops when `{found}` has no free slot: at most its capacity per run")
