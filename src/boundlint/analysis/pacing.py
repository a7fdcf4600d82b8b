"""Which pauses of a loop run after a failure: the failing path of an ``except`` handler.

A polling or worker loop is paced by its ``sleep`` / ``Event.wait``.  When
that pause sits at the end of the ``try`` (or in its ``else``, or under an
``if`` that holds only when the dependency answered, or after a handler that
``continue``s), a failed attempt skips it and the loop spins: it calls the
failing dependency and logs as fast as the CPU allows.

- ``pauses_in(loop, ctx)``: every pause call of a loop, in source order;
- ``on_failing_path(pause, loop, try_node, handler)``: does the pause run in
  a round where *handler* caught the failure?
- ``skipped_pause(loop, try_node, handler, ctx)``: the loop's first pause
  when it has pauses and none runs after the failure, else None.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.context import Context, Loop
from boundlint.analysis.limits import iter_nodes
from boundlint.analysis.names import dotted
from boundlint.analysis.pauses import pause_call, sleep_call
from boundlint.analysis.facts.walk import binding_targets


def pauses_in(loop: Loop, ctx: Context) -> list[cst.Call]:
    """The pause calls (see ``pauses.pause_call``) in *loop*'s test and body, in source order; nested defs excluded.

    Not in a ``for`` loop's iterable nor its ``else``: they run once, not per round.
    """
    roots = [r for r in (loop.test, getattr(loop.node, "body", None)) if r is not None]
    return [n for root in roots for n in iter_nodes(root) if isinstance(n, cst.Call) and pause_call(n, ctx)]


def _contains(root: cst.CSTNode | None, node: cst.CSTNode) -> bool:
    return root is not None and any(n is node for n in iter_nodes(root))


def _continues(handler: cst.ExceptHandler) -> bool:
    """True when the handler ends with ``continue``: the statements after its ``try`` do not run after a failure."""
    body = handler.body
    if isinstance(body, cst.SimpleStatementSuite):
        small = list(body.body)
    elif body.body and isinstance(body.body[-1], cst.SimpleStatementLine):
        small = list(body.body[-1].body)
    else:
        return False
    return any(isinstance(s, cst.Continue) for s in small)


def _assigned_in(block: cst.CSTNode | None) -> set[str]:
    """Names and attributes bound in *block* (``resp = ...``, ``ok = True``, ``for x in ...``, ``with ... as r``)."""
    out: set[str] = set()
    if block is None:
        return out
    for n in iter_nodes(block):
        for target in binding_targets(n):
            elements = [e.value for e in target.elements] if isinstance(target, (cst.Tuple, cst.List)) else [target]
            out.update(k for k in map(dotted, elements) if k)
    return out


def _negative(test: cst.BaseExpression) -> bool:
    """``not x``, ``x is None``, ``x == None``, ``x is False``: true when the attempt gave nothing."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return True
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comp = test.comparisons[0]
        right = comp.comparator
        if isinstance(comp.operator, (cst.Is, cst.Equal)) and isinstance(right, cst.Name) and right.value in ("None", "False"):
            return True
    return False


def _reads(test: cst.BaseExpression, names: set[str]) -> bool:
    for n in iter_nodes(test):
        if isinstance(n, (cst.Name, cst.Attribute)) and dotted(n) in names:
            return True
    return False


def _success_only_if(pause: cst.Call, root: cst.CSTNode, answered: set[str]) -> bool:
    """True when *pause* sits in the body of an ``if`` under *root* that holds only when the ``try`` answered.

    The test reads a name the ``try`` binds (``resp``, ``data``, ``ok``) and is
    not a negation (``if not resp`` / ``if resp is None`` hold after a failure).
    """
    for n in iter_nodes(root):
        if isinstance(n, cst.If) and _contains(n.body, pause):
            if _reads(n.test, answered) and not _negative(n.test):
                return True
    return False


def on_failing_path(pause: cst.Call, loop: Loop, try_node: cst.Try, handler: cst.ExceptHandler) -> bool:
    """True when *pause* runs in a round of *loop* in which *handler* caught the failure.

    On the path: the handler itself, the ``finally``, the loop's test, the
    start of the ``try`` before its first call (it runs before anything can
    fail; see ``_before_any_call``), and the
    loop body's statements before the ``try`` or after it, unless the
    handler ``continue``s or the pause is under an ``if`` that holds only
    when the ``try`` answered (its test reads a name the ``try`` binds and
    the handler does not).  Off the path: the rest of the ``try``, its
    ``else``, the other handlers.
    """
    if _contains(handler.body, pause) or _contains(try_node.finalbody, pause) or _contains(loop.test, pause):
        return True
    if _contains(try_node.body, pause):
        return _before_any_call(pause, try_node.body)
    if _contains(try_node.orelse, pause) or any(_contains(h, pause) for h in try_node.handlers):
        return False
    order = [n for n in iter_nodes(loop.node) if n is pause or n is try_node]
    if order and order[0] is pause:
        return True  # before the try: runs every round
    if _continues(handler):
        return False
    # a name the handler sets as well (`items = []`) tells nothing about whether the try answered
    answered = (_assigned_in(try_node.body) | _assigned_in(try_node.orelse)) - _assigned_in(handler.body)
    return not _success_only_if(pause, loop.node, answered)


def _before_any_call(pause: cst.Call, block: cst.BaseSuite) -> bool:
    """True when *pause* runs before anything in *block* can fail.

    Each statement before it in its block makes no call; an ``if`` on the
    way only chooses the branch (``if bucket.can_consume(): ... else:
    sleep(bucket.expected_time())``), a rate limit's check, not the work.
    """
    statements = list(block.body)
    for stmt in statements:
        if not _contains(stmt, pause):
            if any(isinstance(n, cst.Call) for n in iter_nodes(stmt)):
                return False
            continue
        if isinstance(stmt, cst.SimpleStatementLine):
            return True
        if isinstance(stmt, cst.If):
            branch: cst.CSTNode | None = stmt
            while isinstance(branch, cst.If):
                if _contains(branch.body, pause):
                    return _before_any_call(pause, branch.body)
                branch = branch.orelse
            if isinstance(branch, cst.Else) and _contains(branch.body, pause):
                return _before_any_call(pause, branch.body)
        return False
    return False


def skipped_pause(loop: Loop, try_node: cst.Try, handler: cst.ExceptHandler, ctx: Context) -> cst.Call | None:
    """The loop's first pause when *loop* has pauses and none runs after *handler* caught a failure, else None.

    A sleep too short to pace a failing loop (``time.sleep(0.05)``) still shows the loop's intended
    interval when it sits off the failing path: the failure then skips even that, and the loop spins.
    """
    pauses = pauses_in(loop, ctx)
    if any(on_failing_path(p, loop, try_node, handler) for p in pauses):
        return None
    if not pauses:
        pauses = [n for n in _sleeps_in(loop, ctx) if not on_failing_path(n, loop, try_node, handler)]
    return pauses[0] if pauses else None


def _sleeps_in(loop: Loop, ctx: Context) -> list[cst.Call]:
    """The sleep calls in *loop*'s body, in source order, whatever their length (nested defs excluded)."""
    body = getattr(loop.node, "body", None)
    return [n for n in iter_nodes(body) if isinstance(n, cst.Call) and sleep_call(n, ctx)] if body is not None else []


def handler_try(handler: cst.ExceptHandler, ctx: Context) -> cst.Try | None:
    """The ``try`` statement *handler* belongs to (found among ``ctx.ancestors``), or None."""
    for node in reversed(ctx.ancestors):
        if isinstance(node, cst.Try) and handler in node.handlers:
            return node
    return None


