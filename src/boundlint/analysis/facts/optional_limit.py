"""Is a fan-out the fallback of an optional concurrency limit that callers set?

A function may take its limit as an optional parameter and branch on it::

    async def check_all(models, max_concurrency=None):
        if max_concurrency:
            return await run_windowed(models, max_concurrency)
        return await asyncio.gather(*(check(m) for m in models))

The unbounded branch runs only when the caller passes no limit.  When every
call of the function in the project passes it, the limit is wired: the bound
is the callers' choice (their configuration), not a missing limit here.  The
evidence has three parts, all required:

- the fan-out sits in one branch of an ``if`` whose test reads a parameter
  that has a default (``max_concurrency``), or after such an ``if`` whose
  branch ends by returning or raising, or in such a branch with the bounded
  path after the ``if`` (``if limit is None: return await gather(...)``);
- the other branch passes that parameter to a limiter's constructor
  (``Semaphore(max_concurrency)``) or to a call that also takes the
  fan-out's collection (``run_windowed(models, max_concurrency)``);
- every call of the function in the project passes that parameter (the
  ``given`` query).  A limit that some caller leaves unset bounds nothing
  on that caller's path.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.analysis.facts.flag_args import block_exits
from boundlint.analysis.facts.walk import own_nodes


def _optional_params(func: cst.FunctionDef) -> set[str]:
    params = (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)
    return {p.name.value for p in params if p.default is not None}


def _names(node: cst.CSTNode) -> set[str]:
    return {n.value for n in own_nodes(node) if isinstance(n, cst.Name)}


def _branches(ancestors: list[cst.CSTNode], func: cst.FunctionDef):
    """``(if, other branch)`` for each ``if`` of *func* around the visited node, innermost last."""
    at = next((i for i, n in enumerate(ancestors) if n is func), None)
    if at is None:
        return
    inside = ancestors[at + 1:]
    for i, node in enumerate(inside[:-1]):
        below = inside[i + 1]
        if isinstance(node, cst.If):
            if below is node.body and node.orelse is not None:
                yield node, node.orelse
            elif below is node.orelse:
                yield node, node.body
            elif below is node.body and block_exits(node.body) and i and isinstance(inside[i - 1], cst.IndentedBlock):
                # `if limit is None: return await gather(...)`: the statements after it are the other branch
                stmts = list(inside[i - 1].body)
                yield node, stmts[stmts.index(node) + 1:] if node in stmts else []
        elif isinstance(node, cst.IndentedBlock):
            # `if limit: return bounded(...)` earlier in the block: the rest is its else branch
            for stmt in node.body:
                if stmt is below:
                    break
                if isinstance(stmt, cst.If) and stmt.orelse is None and block_exits(stmt.body):
                    yield stmt, stmt.body


def _bounded_call(branch: cst.CSTNode | list, param: str, items: set[str], ctx) -> str:
    """How *branch* bounds the items: ``"bounds its items with `Semaphore(...)`"`` for a limiter's
    constructor that *param* sizes, ``"runs its items through `f(...)`"`` for a call that takes *param*
    with one of the *items* names (the fan-out's collection); else ""."""
    from boundlint.analysis import limits

    for node in (n for part in (branch if isinstance(branch, list) else [branch]) for n in own_nodes(part)):
        if not isinstance(node, cst.Call):
            continue
        passed = [a.value for a in node.args]
        if not any(isinstance(v, cst.Name) and v.value == param for v in passed):
            continue
        q = ctx.qualname(node.func) or dotted(node.func) or ""
        limiter = q in limits.LIMITER_TYPES or q.rsplit(".", 1)[-1] in limits.LIMITER_CLASS_NAMES
        text = f"`{dotted(node.func) or 'a call'}(...)`"
        if limiter:
            return f"bounds its items with {text}"
        if any(isinstance(v, cst.Name) and v.value in items for v in passed):
            return f"runs its items through {text}"
    return ""


def optional_limit(volume: cst.BaseExpression | None, ctx) -> str:
    """Why the fan-out being visited runs only when its callers leave an optional limit unset, which
    every call in the project sets (see the module doc); "" when that is not shown.

    *volume* is the collection the fan-out runs over (its root name must reach the bounded branch's
    call, unless that call builds a limiter); *ctx* is the traversal's Context, positioned on the
    fan-out.  Answer, e.g. ``"an optional limit: `check_all()` runs its items through
    `run_windowed(...)` when `max_concurrency` is passed, and every call passes it: `main()` (app/jobs.py:12)"``.
    """
    scope = ctx.scope.function()
    func = scope.node if scope is not None else None
    qual = ctx.function_qualname()
    if not isinstance(func, cst.FunctionDef) or qual is None or not ctx.project:
        return ""
    optional = _optional_params(func)
    root = (dotted(volume) or "").split(".", 1)[0] if volume is not None else ""
    for test_if, other in _branches(ctx.ancestors, func):
        for param in sorted(_names(test_if.test) & optional):
            bounded = _bounded_call(other, param, {root} - {""}, ctx)
            if not bounded:
                continue
            given = ctx.project.ask("given", ctx.project.ref(None, qual), param)
            if given:
                return (f"an optional limit: `{func.name.value}()` {bounded} when "
                        f"`{param}` is passed, and every call passes it: `{given['caller']}()` ({given['where']})")
    return ""
