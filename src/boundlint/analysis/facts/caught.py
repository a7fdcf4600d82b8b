"""What an ``except`` handler shows about the dependency its ``try`` reaches.

``caught(handler, ctx)`` names the dependency error a handler catches;
``reraised(handler, ctx)`` says when an earlier handler of the same ``try``
re-raises the dependency's errors, so a later catch-all sees only the item's
own faults.  Both find the handler's ``try`` among ``ctx.ancestors`` (the
traversal's nodes down to the one being visited).
"""
from __future__ import annotations

import libcst as cst

from boundlint import tables
from boundlint.analysis.names import dotted
from boundlint.kinds import calls


def caught(handler: cst.ExceptHandler | None, ctx) -> str:
    """``"catches `httpx.HTTPError`"`` when *handler* catches an exception only a failing dependency
    raises (the ``dependency-errors`` table, or an exception of a ``dependency-modules`` package); else "".

    An exception that local file work raises too (the ``local-io-errors`` table: ``OSError``,
    ``IOError``, ``EnvironmentError``) shows a dependency only when the handler's ``try`` (found
    among ``ctx.ancestors``) is not shown to do local work alone: when ``reaches`` answers NO for
    its body, catching ``OSError`` says nothing.
    """
    if handler is None or handler.type is None:
        return ""
    errors = tables.table("dependency-errors", ctx.settings)
    local_io = tables.table("local-io-errors", ctx.settings)
    types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    for item in types:
        expr = item.value if isinstance(item, cst.Element) else item
        text = dotted(expr) or ""
        qual = ctx.qualname(expr) or text
        if qual in errors or text in errors or (
                "." in qual and calls.classify(qual, None, None, ctx.settings, verbs=False) == calls.DEPENDENCY):
            if (qual in local_io or text in local_io) and _local_try(handler, ctx):
                continue  # `os.remove(p)` raises OSError too: no dependency in sight
            return f"catches `{text}`"
    return ""


def _try_of(handler: cst.ExceptHandler, ctx) -> tuple[cst.Try, list[cst.CSTNode]] | None:
    """The ``try`` among ``ctx.ancestors`` that *handler* belongs to, with the nodes down to it."""
    for i in range(len(ctx.ancestors) - 1, -1, -1):
        node = ctx.ancestors[i]
        if isinstance(node, cst.Try) and any(h is handler for h in node.handlers):
            return node, ctx.ancestors[:i + 1]
    return None


def _local_try(handler: cst.ExceptHandler, ctx) -> bool:
    from boundlint.analysis.facts.dependency import NO, reaches  # it re-exports this module

    found = _try_of(handler, ctx)
    return found is not None and reaches([found[0].body], found[1], ctx, failures=True)[0] == NO


def reraised(handler: cst.ExceptHandler, ctx) -> str:
    """``"an earlier handler re-raises `DBAPIError`"`` when *handler* catches everything (a bare
    ``except``, ``except Exception``) and an earlier handler of its ``try`` (among ``ctx.ancestors``)
    catches every failure of the dependency (the ``dependency-outage-errors`` table: a driver's base
    error, ``ConnectionError``) and raises again: an outage never reaches *handler*, which sees only
    the item's own faults; else ""."""
    from boundlint.analysis.facts.dependency import _broad

    if not _broad(handler):
        return ""
    found = _try_of(handler, ctx)
    if found is None:
        return ""
    for earlier in found[0].handlers:
        if earlier is handler:
            break
        body = earlier.body.body if isinstance(earlier.body, cst.IndentedBlock) else ()
        last = body[-1] if body else None
        raises = isinstance(last, cst.SimpleStatementLine) and any(isinstance(s, cst.Raise) for s in last.body)
        outage = _outage(earlier, ctx) if raises else ""
        if outage:
            return f"an earlier handler re-raises `{outage}`"
    return ""


def _outage(handler: cst.ExceptHandler, ctx) -> str:
    """The exception *handler* catches that covers every failure of its dependency, an outage
    included (the ``dependency-outage-errors`` table), as written; else ""."""
    if handler.type is None:
        return ""
    entries = tables.table("dependency-outage-errors", ctx.settings)
    for item in handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]:
        expr = item.value if isinstance(item, cst.Element) else item
        text = dotted(expr) or ""
        if text in entries or (ctx.qualname(expr) or text) in entries:
            return text
    return ""
