"""Log storms outside ``except``: an ``if`` that holds when a dependency's *result* says it failed.

A failure need not raise.  ``gather(..., return_exceptions=True)`` returns
the exceptions, an HTTP client returns a 429 or 503 response, a full buffer
makes the producer drop the message.  Logging in such a branch, once per item,
is the same storm as logging in an ``except`` handler.

- ``failure_test(test, ctx)``: what failure an ``if`` test checks, or None;
- ``failure_branch(ctx)``: the innermost ``if`` around the node being
  visited (in the current function) whose taken branch is the failure one;
- ``fanout_results_bounded(loop, ctx)``: a loop over the results of a
  fan-out of a fixed number of calls (``gather(a(), b())``).

Only results of a dependency count: an exception a fan-out returned, a
task's exception, an HTTP status, a full queue or buffer.  A local check
(``if not valid(row)``) is a data fault, not a correlated burst.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from boundlint import tables

from boundlint.analysis import limits
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.names import dotted

EXCEPTION_RESULT = "an exception result"
HTTP_ERROR = "an HTTP error status"
FULL_BUFFER = "a full buffer"

_STATUS_ATTRS = frozenset({"status_code", "status", "status_int", "http_status"})
_ERROR_FLAGS = frozenset({"is_error", "is_server_error", "is_client_error"})
_SUCCESS_FLAGS = frozenset({"ok", "is_success"})
# `buffer_full`, `queue_is_full`, `is_full`: not a bare `full` (`full=True` is often an option of the output).
_FULL_NAME = re.compile(r"^_*(?:is_full|(?:\w+_)?(?:buffer|queue|buf|outbox|inbox|backlog|channel|pool)_?(?:is_)?full)$")
# Calls whose result is a list of outcomes, one per item (exceptions among them).
_RESULT_SOURCES = frozenset({"gather", "wait", "as_completed", "map", "imap", "imap_unordered", "starmap"})


@dataclass(frozen=True)
class FailureBranch:
    """An ``if`` whose taken branch (``in_body``: its body, else its ``else``) runs when a result failed."""

    node: cst.If
    kind: str
    in_body: bool


def _exception_class(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Tuple):
        return any(_exception_class(e.value) for e in expr.elements)
    name = (dotted(expr) or "").rsplit(".", 1)[-1]
    return name in ("Exception", "BaseException") or name.endswith(("Error", "Exception", "Exc"))


def _unwrap(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.expression if isinstance(expr, cst.Await) else expr


def _bound_call(expr: cst.BaseExpression, ctx: Context) -> cst.Call | None:
    """The call *expr* is (``await gather(...)``) or the last call a name was bound to."""
    expr = _unwrap(expr)
    if isinstance(expr, cst.Call):
        return expr
    if isinstance(expr, cst.Name):
        bound = ctx.lookup(expr.value)
        value = bound[1][-1] if bound and bound[1] else None
        if value is not None and isinstance(_unwrap(value), cst.Call):
            return _unwrap(value)  # type: ignore[return-value]
    return None


def _result_sources(loop: Loop) -> list[cst.BaseExpression]:
    """The iterables a ``for`` loop walks, through ``zip(...)`` / ``enumerate(...)``."""
    source = loop.iter
    if source is None:
        return []
    if isinstance(source, cst.Call) and dotted(source.func) in ("zip", "enumerate"):
        return [a.value for a in source.args if a.keyword is None]
    return [source]


def _fanout_call(loop: Loop, ctx: Context) -> cst.Call | None:
    for source in _result_sources(loop):
        call = _bound_call(source, ctx)
        if call is not None:
            name = (dotted(call.func) or "").rsplit(".", 1)[-1]
            if name in _RESULT_SOURCES:
                return call
    return None


def fanout_results_bounded(loop: Loop, ctx: Context) -> bool:
    """True when *loop* walks the results of a fan-out of a fixed number of calls.

    ``gather(a(), b(), return_exceptions=True)`` has two results; a starred
    argument counts when it is bounded (``limits.source_limit``).
    """
    call = _fanout_call(loop, ctx)
    if call is None:
        return False
    starred = [a.value for a in call.args if a.star == "*"]
    if not starred:
        positional = [a.value for a in call.args if a.keyword is None]
        return not positional or all(isinstance(p, cst.Call) for p in positional)
    return all(limits.source_limit(s, ctx) is not None for s in starred)


def _exception_result(value: cst.BaseExpression, ctx: Context) -> bool:
    """*value* holds an outcome that may be an exception: an item of a fan-out's results, or ``task.exception()``."""
    value = _unwrap(value)
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "exception":
        return not value.args
    if isinstance(value, cst.Subscript):
        value = value.value
    if isinstance(value, cst.Name):
        loop = ctx.loop_with_target(value.value)
        if loop is not None:
            return _fanout_call(loop, ctx) is not None
        bound = ctx.lookup(value.value)
        if bound and bound[1] and bound[1][-1] is not None:
            inner = _unwrap(bound[1][-1])  # exc = task.exception()
            return isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value == "exception"
    return False


def _int(expr: cst.BaseExpression) -> int | None:
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0)
    name = (dotted(expr) or "").rsplit(".", 1)[-1].upper()
    return 429 if name == "TOO_MANY_REQUESTS" else 503 if name == "SERVICE_UNAVAILABLE" else None


def _status(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Attribute) and expr.attr.value in _STATUS_ATTRS


def _status_failure(test: cst.Comparison) -> bool | None:
    """True for a status comparison that holds on failure (``== 429``, ``>= 500``, ``!= 200``), False when it holds on success, None otherwise."""
    if len(test.comparisons) != 1:
        return None
    comp = test.comparisons[0]
    left, right, op = test.left, comp.comparator, comp.operator
    if _status(right) and not _status(left):
        left, right = right, left
        flip = {cst.GreaterThan: cst.LessThan, cst.GreaterThanEqual: cst.LessThanEqual,
                cst.LessThan: cst.GreaterThan, cst.LessThanEqual: cst.GreaterThanEqual}
        op = flip.get(type(op), type(op))()  # type: ignore[operator]
    if not _status(left):
        return None
    if isinstance(op, (cst.In, cst.NotIn)) and isinstance(right, (cst.Tuple, cst.List, cst.Set)):
        codes = [_int(e.value) for e in right.elements]
        if not codes or None in codes:
            return None
        failing = all(c >= 400 for c in codes)  # type: ignore[operator]
        if not failing and not all(c < 400 for c in codes):  # type: ignore[operator]
            return None
        return failing if isinstance(op, cst.In) else not failing
    code = _int(right)
    if code is None:
        return None
    if isinstance(op, cst.Equal):
        return True if code >= 400 else False if 200 <= code < 300 else None
    if isinstance(op, cst.NotEqual):
        return True if 200 <= code < 300 else None  # `!= 404` holds on success too
    if isinstance(op, (cst.GreaterThanEqual, cst.GreaterThan)):
        return True if code >= 400 else None
    if isinstance(op, (cst.LessThan, cst.LessThanEqual)):
        return False if code <= 400 else None
    return None


def _full(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        return expr.func.attr.value in ("full", "is_full") and not expr.args
    if isinstance(expr, (cst.Name, cst.Attribute)):
        name = expr.value if isinstance(expr, cst.Name) else expr.attr.value
        return bool(_FULL_NAME.search(name.lower()))
    return False


def failure_test(test: cst.BaseExpression, ctx: Context) -> tuple[str, bool] | None:
    """``(kind, holds_on_failure)`` for an ``if`` test on a dependency's result, else None.

    Kinds: ``EXCEPTION_RESULT`` (``isinstance(r, Exception)`` on an item of
    a fan-out's results, ``task.exception()``), ``HTTP_ERROR``
    (``resp.status_code == 429``, ``>= 500``, ``not resp.ok``,
    ``resp.is_error``), ``FULL_BUFFER`` (``queue.full()``, ``buffer_full``).
    ``holds_on_failure`` is False for the success test (``resp.ok``,
    ``not isinstance(r, Exception)``), whose ``else`` is the failure branch.
    """
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = failure_test(test.expression, ctx)
        return (inner[0], not inner[1]) if inner else None
    if isinstance(test, cst.BooleanOperation):
        for side in (test.left, test.right):
            found = failure_test(side, ctx)
            if found and found[1]:
                return found  # `task.exception() and not cancelled`: the failure side decides
        return None
    if isinstance(test, cst.Call):
        name = dotted(test.func)
        if name == "isinstance" and len(test.args) == 2 and _exception_class(test.args[1].value):
            return (EXCEPTION_RESULT, True) if _exception_result(test.args[0].value, ctx) else None
        if _exception_result(test, ctx):
            return EXCEPTION_RESULT, True
        if _full(test):
            return FULL_BUFFER, True
        return None
    if isinstance(test, cst.Comparison):
        failing = _status_failure(test)
        if failing is not None:
            return HTTP_ERROR, failing
        comp = test.comparisons[0] if len(test.comparisons) == 1 else None
        if comp is not None and isinstance(comp.comparator, cst.Name) and comp.comparator.value == "None":
            if isinstance(comp.operator, (cst.IsNot, cst.NotEqual)) and _exception_result(test.left, ctx):
                return EXCEPTION_RESULT, True  # exc = task.exception(); if exc is not None
        return None
    if isinstance(test, cst.Attribute):
        if test.attr.value in _ERROR_FLAGS:
            return HTTP_ERROR, True
        if test.attr.value in _SUCCESS_FLAGS and isinstance(test.value, (cst.Name, cst.Attribute)):
            return HTTP_ERROR, False
    if isinstance(test, (cst.Name, cst.Attribute)):
        if _full(test):
            return FULL_BUFFER, True
        if isinstance(test, cst.Name) and _exception_result(test, ctx):
            return EXCEPTION_RESULT, True
    return None


def failure_branch(ctx: Context) -> FailureBranch | None:
    """The innermost ``if`` in the current function whose branch around the visited node runs on a failed result."""
    ancestors = ctx.ancestors
    for i in range(len(ancestors) - 1, 0, -1):
        node = ancestors[i]
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ExceptHandler)):
            return None
        parent = ancestors[i - 1]
        if isinstance(parent, cst.If) and (node is parent.body or node is parent.orelse):
            found = failure_test(parent.test, ctx)
            if found is not None:
                kind, on_failure = found
                in_body = node is parent.body
                if in_body == on_failure:
                    return FailureBranch(parent, kind, in_body)
    return None


def local_fault(handler: cst.ExceptHandler, ctx=None) -> bool:
    """True when *handler* catches only errors of local work on the item, or verdicts on it
    (the ``per-item-errors`` table: ``ValueError``, ``json.JSONDecodeError``, ``*NotFound``, ``*Forbidden`` ...).  *ctx* (a Context) resolves imported names and the configured table.

    A bare ``except`` or ``except Exception`` may catch a dependency's
    failure, so it is not local.
    """
    if handler.type is None:
        return False
    entries = tables.table("per-item-errors", ctx.settings if ctx is not None else None)
    suffixes = tuple(e[1:] for e in entries if e.startswith("*"))
    types = [e.value for e in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
    for t in types:
        name = dotted(t) or ""
        qual = (ctx.qualname(t) if ctx is not None else None) or name
        last = name.rsplit(".", 1)[-1]
        if not ({name, qual, last} & entries) and not (suffixes and last.endswith(suffixes)):
            return False
    return True


def per_item_severity(handler: cst.ExceptHandler | None, ctx) -> tuple[str, str] | None:
    """``("low", why)`` when *handler* catches only per-item errors (``local_fault``), or catches
    everything after an earlier handler of its ``try`` re-raised the dependency's errors
    (``dependency.reraised``), or catches only HTTP error responses its work raises as 4xx verdicts
    (``verdict_raises.verdict_catch``): it never sees a dependency's failure, so its log line repeats per
    bad item, not per item in an outage; else None."""
    if handler is None:
        return None
    if not local_fault(handler, ctx):
        from boundlint.analysis.facts.dependency import reraised
        from boundlint.analysis.facts.verdict_raises import verdict_catch

        verdict = verdict_catch(handler, ctx) if ctx is not None else ""
        if verdict:
            return "low", f"the handler {verdict}: it logs per refused item, not per outage"
        why = reraised(handler, ctx) if ctx is not None else ""
        return ("low", f"{why}: the handler sees only per-item faults") if why else None
    return "low", "the handler catches only per-item faults, not a dependency's failure"
