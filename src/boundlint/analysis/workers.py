"""The per-item workers of a module's fan-outs, found during the one traversal.

A worker is a same-module function, method or lambda that a fan-out site
runs once per item of an unbounded source: the coroutine a ``gather`` over
a comprehension calls, the target of ``create_task`` / ``ensure_future`` /
``start_soon`` / ``run_in_executor`` / ``Thread(...).start()`` in an
unbounded loop, the function an executor ``map``s over an unbounded
collection.  A concurrency limit does not matter here (a bounded pool still
runs the worker once per item); a bounded source or a fixed worker pool
(``for _ in range(8)``) does.

A worker may be defined before or after its fan-out site, so rules note the
candidate nodes they find inside functions and ask ``WorkerIndex.site_of``
once the module is done (``leave_Module``).  The index is shared by every
rule of the file through ``ctx.cache``; each call is examined once.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.analysis.storms import iterations_bounded
from boundlint.analysis.names import dotted
from boundlint.verdicts import BATCHES, kind_of
from boundlint.analysis.spawns import Spawn, new_awaitables, spawn_of

_TO_THREAD = frozenset({"asyncio.to_thread", "anyio.to_thread.run_sync", "trio.to_thread.run_sync"})
# Method or function names a spawn_of() call site can have (an imported alias is checked separately);
# the rules' text prefilters look for them.
SPAWN_NAMES = frozenset({
    "gather", "wait", "as_completed", "create_task", "ensure_future", "start_soon", "start", "run_in_executor",
    "submit", "map", "imap", "imap_unordered", "starmap", "apply_async", "map_async", "starmap_async",
    "spawn", "spawn_n", "spawn_later", "spawn_after",
})
_MAP_METHODS = frozenset({"map", "imap", "imap_unordered", "starmap", "map_async", "starmap_async"})


@dataclass(frozen=True)
class WorkerSite:
    """Where a worker is fanned out: ``api`` (``asyncio.gather(...)``) in function ``where``."""

    api: str
    where: str
    # ``(kind, why)`` of the collection the site fans out over (facts.volume), judged where it is.
    volume: tuple[str, str] = ("unknown", "")

    def describe(self) -> str:
        """``asyncio.gather(...)` in `handler`` style text for messages (inner backticks included)."""
        return f"{self.api}` in `{self.where}" if self.where != "<module>" else self.api


class WorkerIndex:
    """Same-module callables run once per item by a fan-out, keyed by ``id`` of their def or lambda."""

    def __init__(self) -> None:
        self.sites: dict[int, WorkerSite] = {}
        self.direct: list[tuple[cst.BaseExpression, WorkerSite]] = []
        self._keep: list[cst.CSTNode] = []
        self._seen: set[int] = set()

    def site_of(self, func: cst.CSTNode | None) -> WorkerSite | None:
        """The fan-out that runs *func* per item, or None."""
        return self.sites.get(id(func)) if func is not None else None

    def note_call(self, call: cst.Call, ctx: Context) -> None:
        """Record the workers *call* fans out per item (idempotent per call)."""
        func = call.func
        last = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else ""
        if last not in SPAWN_NAMES and not ctx.names.resolve_name(last):
            return  # cheap: no spawn API is called by this name
        if id(call) in self._seen:
            return
        self._seen.add(id(call))
        spawn = spawn_of(call, ctx)
        if spawn is None:
            return
        scope = ctx.scope.function()
        site = WorkerSite(_api(spawn, call), scope.name if scope is not None else "<module>", _volume(spawn, ctx))
        for target in _per_item_targets(spawn, ctx):
            self.direct.append((target, site))
            self._register(target, site, ctx, 0)

    def _register(self, target: cst.BaseExpression, site: WorkerSite, ctx: Context, depth: int) -> None:
        node = ctx.resolve_callable(target)
        if type(node) is cst.Lambda:
            self._add(node, site)
            body = node.body.expression if type(node.body) is cst.Await else node.body
            if type(body) is cst.Call and depth < 2:
                self._register(body.func, site, ctx, depth + 1)
        elif type(node) is cst.FunctionDef:
            self._add(node, site)

    def _add(self, node: cst.CSTNode, site: WorkerSite) -> None:
        self.sites.setdefault(id(node), site)
        self._keep.append(node)


def _volume(spawn: Spawn, ctx: Context) -> tuple[str, str]:
    """Where the collection that *spawn* fans out over comes from (``analysis.facts.volume``), judged at the site."""
    from boundlint.analysis.facts.volume import volume

    call = spawn.call
    if ctx.frame.loops and ctx.frame.loops[-1].iter is not None:
        source = ctx.frame.loops[-1].iter
    else:
        starred = [a.value for a in call.args if a.star == "*"]
        positional = [a.value for a in call.args if a.keyword is None and a.star == ""]
        source = starred[0] if starred else positional[1] if spawn.kind == "pool" and len(positional) > 1 else None
    return volume(source, list(ctx.ancestors), ctx, ctx.path) if source is not None else ("unknown", "")


def worker_index(ctx: Context) -> WorkerIndex:
    """The file's shared WorkerIndex (created on first use)."""
    index = ctx.cache.get("workers")
    if index is None:
        index = ctx.cache["workers"] = WorkerIndex()
    return index  # type: ignore[return-value]


def _api(spawn: Spawn, call: cst.Call) -> str:
    if spawn.kind == "thread":
        return spawn.api + "()"
    if "." in spawn.api:
        return spawn.api + "(...)"
    return (dotted(call.func) or spawn.api) + "(...)"


def _unbounded(limit: str | None) -> bool:
    return limit is None or kind_of(limit) == BATCHES


def _in_unbounded_loop(ctx: Context) -> bool:
    return any(iterations_bounded(loop, ctx) is None for loop in ctx.frame.loops)


def _per_item_targets(spawn: Spawn, ctx: Context) -> list[cst.BaseExpression]:
    """The callables *spawn* runs once per item of an unbounded source."""
    call = spawn.call
    if spawn.kind == "gather":
        if spawn.api == "asyncio.gather":
            candidates = [a.value for a in call.args if a.star == "*"]
        else:
            candidates = [a.value for a in call.args if a.keyword is None and a.star == ""][:1]
        out = []
        for expr in candidates:
            built = new_awaitables(expr, ctx)
            if built is None or built.target is None:
                continue
            per_item = _in_unbounded_loop(ctx) or any(_unbounded(limits.source_limit(s, ctx)) for s in built.sources)
            if not per_item:
                continue
            out.append(_through_thread(expr, built.target, ctx))
        return out
    target = spawn.target
    if target is None:
        return []
    method = call.func.attr.value if type(call.func) is cst.Attribute else ""
    if spawn.kind == "pool" and method in _MAP_METHODS:
        positional = [a.value for a in call.args if a.keyword is None and a.star == ""]
        if len(positional) >= 2 and _unbounded(limits.source_limit(positional[1], ctx)):
            return [target]
    return [target] if _in_unbounded_loop(ctx) else []


def _through_thread(expr: cst.BaseExpression, target: cst.BaseExpression, ctx: Context) -> cst.BaseExpression:
    """``f`` for a comprehension of ``asyncio.to_thread(f, x)``; else *target*."""
    if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)) and type(expr.elt) is cst.Call:
        elt = expr.elt
        if (ctx.qualname(elt.func) or "") in _TO_THREAD and elt.args:
            return elt.args[0].value
    return target
