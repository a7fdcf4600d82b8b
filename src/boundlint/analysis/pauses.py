"""What waits before the next attempt: one definition of a pause, for every rule that asks.

- ``sleep_call``: a sleep or backoff call, whatever its length;
- ``pause_call``: a call that waits: a sleep of at least 0.1 s or of a computed length, a timed
  ``wait``, a reconnect that backs off, or a project function or method that pauses (in any
  module, through its receiver's class: ``backoff.wait()`` on ``backoff = Backoff()``);
- ``paced``: whether a pause runs under some nodes.
"""
from __future__ import annotations

from typing import Iterable, Iterator

import libcst as cst

from boundlint import tables
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted

_MIN_PAUSE = 0.1  # seconds: a shorter constant sleep does not pace a failing loop


def call_name(call: cst.Call, ctx: Context) -> str:
    """The canonical qualified name of what *call* calls, else its dotted text, else ``""``."""
    return ctx.qualname(call.func) or dotted(call.func) or ""


def sleep_call(call: cst.Call, ctx: Context) -> bool:
    """True for a sleep or backoff call, whatever its length (the ``sleeps`` table, ``self._sleep(...)``)."""
    name = call_name(call, ctx)
    return name in tables.table("sleeps", ctx.settings) or name.rsplit(".", 1)[-1] in (
        "sleep", "_sleep", "sleep_until", "backoff", "_backoff", "wait_backoff")


def pause_call(call: cst.Call, ctx: Context) -> bool:
    """True for a call that waits before the next attempt.

    A sleep of at least 0.1 s or of a computed length, ``Event.wait(timeout)``
    and other ``wait...(timeout)`` methods, ``asyncio.wait_for``, a reconnect
    that backs off while the connection fails (table ``reconnect-calls``).
    """
    name = call_name(call, ctx)
    short = name.rsplit(".", 1)[-1]
    if sleep_call(call, ctx):
        args = [a for a in call.args if a.star == ""]
        if not args:
            return True
        value = args[0].value
        if isinstance(value, (cst.Integer, cst.Float)):
            return float(value.value.replace("_", "")) >= _MIN_PAUSE
        return True
    if short.startswith("wait") and isinstance(call.func, cst.Attribute) and any(a.star == "" for a in call.args):
        return True  # Event.wait(timeout), Condition.wait(timeout), pool.wait_for_connection(timeout=...)
    if name in ("asyncio.wait_for", "anyio.fail_after", "anyio.move_on_after"):
        return True
    if short in tables.table("reconnect-calls", ctx.settings) and isinstance(call.func, cst.Attribute):
        return _retry_policy(call, ctx)  # retries the connection with a growing interval while it fails
    if ctx.project and isinstance(call.func, (cst.Name, cst.Attribute)) and ctx.resolve_callable(call.func) is None:
        # a backoff helper from another module of the project, or a method of a project class
        # through its receiver (`backoff = Backoff()` ... `backoff.wait()`)
        ref = ctx.callee_ref(call)
        return ref is not None and bool(ctx.project.ask("pauses", ref))
    return False


_RETRY_KEYWORDS = frozenset({"errback", "max_retries", "interval_start", "interval_step", "interval_max"})


def _retry_policy(call: cst.Call, ctx: Context) -> bool:
    """True when a ``reconnect-calls`` call is given its retry policy: an error callback the code defines
    (``ensure_connection(on_error, retries)``) or a retry keyword; a same-named method that takes a
    connection (``pool.ensure_connection(conn)``) or nothing (Django's) does not back off."""
    if any(a.keyword is not None and a.keyword.value in _RETRY_KEYWORDS for a in call.args):
        return True
    first = next((a.value for a in call.args if a.keyword is None and a.star == ""), None)
    return first is not None and ctx.resolve_callable(first) is not None


def paced(nodes: Iterable[cst.CSTNode], ctx: Context) -> bool:
    """True when a pause (see ``pause_call``) runs somewhere under *nodes* (nested defs excluded)."""
    for root in nodes:
        for node in _nodes(root):
            if isinstance(node, cst.Call) and pause_call(node, ctx):
                return True
    return False


def _nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    from boundlint.analysis.limits import iter_nodes
    return iter_nodes(node)
