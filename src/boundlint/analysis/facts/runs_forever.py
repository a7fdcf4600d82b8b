"""A function that runs until cancelled: a ``while True:`` loop with no way out on success.

A service loop (poll, sleep, poll again) ends only when its task is
cancelled or a failure is raised out of it.  ``forever_guards(func, cls)``
reads a def in sight (LibCST) and tells whether it is such a loop:

- among the statements of its body (also inside a ``try`` body or a
  ``with`` block) a ``while True:`` (or ``while 1:``), or ``while
  self.FLAG:`` / ``while not self.FLAG:`` on an instance flag its class
  *cls* sets to ``True`` / ``False`` somewhere (stopped by another method);
- no ``break`` of that loop, also none in an ``except`` (``except
  queue.Empty: break`` drains a queue until it is empty);
- every ``return`` before the loop's end (before it, or in it) is in a
  handler of cancellation (``except asyncio.CancelledError:``) or under an
  ``if`` that tests a parameter (``if run_once: return``): a call that rules
  that branch out (``run_once=False``, ``analysis.facts.flag_args``) keeps it running;
- a ``try`` around the loop re-raises what it catches (or catches only
  cancellation), and no ``with suppress(...)`` holds it: ``try: while True:
  recv() except BlockingIOError: pass`` reads until nothing is left;
- it is no generator (it runs as far as its consumer pulls).

Failures raised out of the loop end it (a service that gives up after
repeated failures still runs until then).  A retry loop (``while True:
try: return await op()``) ends on success: its ``return`` is guarded by
nothing, so it is no such loop.  The twin of
``index.service`` (the same reading with ``ast``, for other modules).
Pure reading of LibCST nodes.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.analysis.facts.flag_args import conditions, states
from boundlint.analysis.facts.walk import kids, own_nodes
from boundlint.index.flags import ruled_out
from boundlint.index.service import CANCELLATION, swallows

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_LOOPS = (cst.For, cst.While)


def _params(func: cst.FunctionDef) -> set[str]:
    p = func.params
    return {a.name.value for a in (*p.posonly_params, *p.params, *p.kwonly_params)}


def _bool_flags(cls: cst.ClassDef | None) -> set[str]:
    """``self.X`` names the class *cls* assigns ``True`` or ``False`` to anywhere in its methods."""
    found: set[str] = set()
    if cls is None:
        return found
    stack: list[cst.CSTNode] = [cls.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Name) and node.value.value in ("True", "False"):
            found.update(n for n in (dotted(t.target) for t in node.targets) if n and n.startswith("self."))
        stack.extend(kids(node))
    return found


def endless(test: cst.BaseExpression, cls: cst.ClassDef | None, memo: dict) -> bool:
    """True for ``True``, ``1``, and ``self.FLAG`` / ``not self.FLAG`` with a flag the class *cls* sets to a
    bool (read once, into *memo*)."""
    if isinstance(test, cst.Name) and test.value == "True" or isinstance(test, cst.Integer) and test.value == "1":
        return True
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    if not isinstance(test, cst.Attribute) or cls is None:
        return False
    if "flags" not in memo:
        memo["flags"] = _bool_flags(cls)
    return dotted(test) in memo["flags"]


def _cancelled(handler: cst.CSTNode) -> bool:
    """True for an ``except`` that catches only cancellation (``asyncio.CancelledError``, trio's
    ``Cancelled``, anyio's ``get_cancelled_exc_class()``)."""
    kind = handler.type
    parts = kind.elements if isinstance(kind, cst.Tuple) else [kind] if kind is not None else []
    names = [dotted(p.value.func if isinstance(p.value, cst.Call) else p.value) if isinstance(p, cst.Element)
             else dotted(p.func if isinstance(p, cst.Call) else p) for p in parts]
    return bool(names) and all(n and n.rsplit(".", 1)[-1] in CANCELLATION for n in names)


def _reraises(handler: cst.CSTNode) -> bool:
    """True when *handler* catches only cancellation or its block ends by raising."""
    body = handler.body
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else None
    return _cancelled(handler) or isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise)


def _suppresses(node: cst.With) -> bool:
    """``with suppress(...)`` / ``with pytest.raises(...)``: the block may end in what it swallows."""
    return any(isinstance(i.item, cst.Call) and swallows(dotted(i.item.func)) for i in node.items)


def _top_loop(stmts, cls: cst.ClassDef | None, memo: dict, before: list) -> cst.While | None:
    """The first endless ``while`` among *stmts* (entering ``try`` bodies and ``with`` blocks); the
    statements passed on the way are appended to *before*.  None also when a ``try`` around it goes on
    after a failure it catches (``except BlockingIOError: pass``: the loop drains until that) or a
    ``with suppress(...)`` does."""
    for stmt in stmts:
        if isinstance(stmt, cst.While) and endless(stmt.test, cls, memo):
            return stmt
        if isinstance(stmt, (cst.Try, cst.TryStar, cst.With)) and isinstance(stmt.body, cst.IndentedBlock):
            found = _top_loop(stmt.body.body, cls, memo, before)
            if found is not None:
                if isinstance(stmt, cst.With) and _suppresses(stmt) \
                        or not isinstance(stmt, cst.With) and not all(_reraises(h) for h in stmt.handlers):
                    return None
                return found
        before.append(stmt)
    return None


def _exits(node: cst.CSTNode, names: set[str], when: list, depth: int, out: list) -> bool:
    """Append to *out* the conditions each ``return`` under *node* needs; False when a ``return`` needs
    none (but in a handler of cancellation) or a ``break`` leaves the loop (*depth* 0: not in an inner
    loop), also from an ``except`` (``except queue.Empty: break`` drains until empty)."""
    if isinstance(node, _SCOPES):
        return True
    if isinstance(node, cst.Return):
        if not when:
            return False
        out.append(list(when))
        return True
    if isinstance(node, cst.Break):
        return depth > 0
    if isinstance(node, (cst.ExceptHandler, cst.ExceptStarHandler)) and _cancelled(node):
        return True  # cancelled: the way such a loop is meant to end
    if isinstance(node, cst.If):
        then, other = conditions(node.test, names)
        ok = _exits(node.body, names, when + then, depth, out)
        return ok and (node.orelse is None or _exits(node.orelse, names, when + other, depth, out))
    inner = depth + 1 if isinstance(node, _LOOPS) else depth
    return all(_exits(child, names, when, inner, out) for child in kids(node))


def forever_guards(func: cst.FunctionDef, cls: cst.ClassDef | None = None) -> list | None:
    """The conditions (``[[parameter, state], ...]`` each) under which *func* returns, when it otherwise
    runs until cancelled (see the module doc): ``[]`` when it never does; None when it is no such loop.
    *cls* is the class of a method (for ``while not self.FLAG:``), else None."""
    if not isinstance(func.body, cst.IndentedBlock):
        return None
    before: list = []
    loop = _top_loop(func.body.body, cls, {}, before)
    if loop is None:
        return None
    if any(isinstance(n, cst.Yield) for n in own_nodes(func.body)):
        return None  # a generator: it runs as far as its consumer pulls, never as a task of its own
    names = _params(func)
    out: list = []
    if not all(_exits(s, names, [], 0, out) for s in before) or not _exits(loop.body, names, [], 0, out):
        return None
    return out


def runs_forever(func: cst.FunctionDef, call: cst.Call, offset: int, cls: cst.ClassDef | None = None) -> bool:
    """True when *func* runs until cancelled as *call* calls it: every guarded ``return`` of its loop is
    ruled out by what the call passes (``analysis.facts.flag_args.states``; *offset*: leading parameters the call
    does not fill, ``self``)."""
    guards = forever_guards(func, cls)
    if guards is None:
        return False
    if not guards:
        return True
    given = states(call, func, offset)
    return all(ruled_out(when, given) for when in guards)
