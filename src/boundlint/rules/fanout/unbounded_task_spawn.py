"""BND102 unbounded-task-spawn: a task started per item of an unbounded loop or comprehension."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.analysis.facts.walk import mentions
from boundlint.analysis.names import dotted
from boundlint.analysis.spawns import is_event_loop, is_task_group, spawn_of, spawned_work
from boundlint.rules.base import Example, Rule, chain_loop, short
from boundlint.rules.prefilter import Words
from boundlint.rules.fanout.spawn_limits import (_doc, lowered, limiter_chain, region_loops, spawn_limit,
                                                 unshared_limiter)


def _awaits_before(func: cst.CSTNode, spawn: cst.Call) -> bool:
    """True when *func*'s own code awaits a call other than a sleep before it reaches *spawn* (source order)."""
    stack = [func.body]
    while stack:
        node = stack.pop()
        if node is spawn:
            return False
        if isinstance(node, cst.Await) and isinstance(node.expression, cst.Call) \
                and (dotted(node.expression.func) or "").rsplit(".", 1)[-1] != "sleep":
            return True
        if not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            stack.extend(reversed(node.children))
    return False


# The longest chain that makes a function's own spawn one task per item: the loop and two plain calls.
# Deeper, fresh readers found fixed spawns (a process's two output readers) under a CLI's loop.
_SPAWN_STEPS = 3


def _handed_back(func: cst.CSTNode, ctx: Context) -> bool:
    """True when the spawn being visited hands its task out of *func* still running: returned
    (``return asyncio.create_task(c)``), kept in a collection (``self._tasks.append(create_task(c))``),
    or bound to a name that *func* returns or keeps and never awaits (``task = create_task(c)``)."""
    parent = ctx.parent()
    if isinstance(parent, cst.Return):
        return True
    if isinstance(parent, cst.Arg):
        held = ctx.parent(2)
        return isinstance(held, cst.Call) and isinstance(held.func, cst.Attribute) \
            and held.func.attr.value in ("append", "add") and isinstance(ctx.parent(3), cst.Expr)
    if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name)):
        return False
    name = parent.targets[0].target.value
    kept = False
    for node in limits.iter_nodes(func.body):
        if isinstance(node, cst.Await) and mentions(node, name):
            return False  # awaited here: the call waits for its own task
        if isinstance(node, cst.Return) and isinstance(node.value, cst.Name) and node.value.value == name:
            kept = True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("append", "add") \
                and any(isinstance(a.value, cst.Name) and a.value.value == name for a in node.args):
            kept = True
    return kept


class UnboundedTaskSpawn(Rule):
    __doc__ = _doc("""
    ## What it does
    Flags a task started per item of an unbounded loop or comprehension:
    `TaskGroup.create_task`, anyio `start_soon` / `start`, trio nursery
    `start_soon` / `start`, `asyncio.create_task`, `asyncio.ensure_future`,
    `loop.create_task`, `loop.run_in_executor` (on the loop's default executor
    or one boundlint cannot see), and gevent / eventlet
    `spawn` (a greenlet per call); also such a function applied by `map()`
    (`map(asyncio.create_task, coros)`).  A task started and let go (a bare
    statement) on every call of a function counts when a caller, in any
    module of the project, calls that function per item of its input or of
    rows a query returns, directly or through up to two plain calls
    (`producer.produce(row)` in a loop, where
    `produce` runs `loop.create_task(publish(...))` and returns), unless
    the function first awaits other work, which paces its callers.  So does
    a task the function hands back still running (returned, kept in a list,
    or bound to a name it returns or keeps and never awaits: a spawn helper,
    `task = asyncio.create_task(c); self._tasks.append(task)`), when such a
    caller does not await what the call hands back.

    ## Why is this bad?
    Each iteration starts another concurrent task and nothing waits for a
    free slot, so the number of tasks in flight grows with the input (or with
    the rate of a stream).  One large batch or a burst of messages becomes
    thousands of concurrent calls to the dependency behind them.
    """)
    code, name = "BND102", "unbounded-task-spawn"
    prefilter = Words("create_task", "ensure_future", "start_soon", "run_in_executor", "start", "spawn", "spawn_n", "spawn_later",
                      "spawn_after")
    message = "`{call}` starts a task per item of `{source}` with no concurrency limit"
    hint = "acquire a semaphore (anyio: CapacityLimiter) in each task, or run a fixed pool of workers reading a queue"
    invalid = (
        Example("taskgroup_comprehension", """
            import asyncio

            async def run_prompts(client, prompts):
                async with asyncio.TaskGroup() as tg:
                    tasks = [tg.create_task(client.complete(p)) for p in prompts]  # error: BND102 col 18
                return [t.result() for t in tasks]
            """),
        Example("anyio_stream", """
            from anyio.abc import TaskGroup

            async def serve(tg: TaskGroup, subscription):
                async for run in subscription:
                    tg.start_soon(fetch_artifacts, run)  # error: BND102 col 9
            """),
    )
    valid = (
        Example("capacity_limiter", """
            import anyio
            from anyio import CapacityLimiter

            async def render(src, limiter: CapacityLimiter):
                async with limiter:
                    await convert(src)

            async def render_all(sources):
                limiter = CapacityLimiter(4)
                async with anyio.create_task_group() as tg:
                    for src in sources:
                        tg.start_soon(render, src, limiter)
            """),
        Example("fixed_worker_pool", """
            import anyio

            async def main(queue):
                async with anyio.create_task_group() as tg:
                    for _ in range(8):
                        tg.start_soon(worker, queue)
            """),
    )

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "map":
            self._mapped_spawn(node, ctx)
            return
        spawn = spawn_of(node, ctx)
        if spawn is None or spawn.kind != "task":
            return
        loops = region_loops(spawn, ctx)
        if not loops:
            self._spawn_per_call(node, spawn, ctx)
            return
        found, limit = spawn_limit(spawn, loops, ctx)
        if found is not None and limit is None:
            self.report(node, limiter_chain(node, spawn.target, ctx),
                        call=spawn.api + "(...)" if "." in spawn.api else short(node.func) + "(...)", source=found.source,
                        volume=found.loop.iter, work=spawned_work(spawn), severity=lowered(found.loop, node, found.loop.iter, ctx))


    def _spawn_per_call(self, node: cst.Call, spawn, ctx: Context) -> None:
        """A task started and let go on every call of a function (``loop.create_task(publish(...))`` as a bare
        statement) that a caller, in any module of the project, runs once per item: one task per item."""
        qual = ctx.function_qualname()
        if not ctx.project or qual is None or spawn.receiver is None \
                and spawn.api not in ("asyncio.create_task", "asyncio.ensure_future"):
            return
        scope = ctx.scope.function()
        let_go = isinstance(ctx.parent(), cst.Expr)
        if not let_go and (scope is None or not _handed_back(scope.node, ctx)):
            return
        if scope is not None and _awaits_before(scope.node, node):
            return  # the call waits on its own work first: its callers' loop is paced by it, not by the task
        # a task handed back runs on unless the caller awaits it: only callers that do not count
        chain = ctx.project.ask("per_item_through", ctx.project.ref(None, qual), False, None, True, not let_go)
        if chain and len(chain) <= _SPAWN_STEPS:
            api = spawn.api + "(...)" if "." in spawn.api else short(node.func) + "(...)"
            source = chain_loop(chain, f"{qual.rsplit('.', 1)[-1]}()")
            self.report(node, tuple(chain), call=api, source=source,
                        volume=("unknown", chain[0]), work=spawned_work(spawn))

    def _mapped_spawn(self, node: cst.Call, ctx: Context) -> None:
        """``map(asyncio.create_task, coros)``: the spawn function applied to every item of a collection."""
        args = [a.value for a in node.args if a.keyword is None and a.star == ""]
        if len(args) < 2 or ctx.names.resolve_name("map") is not None:
            return
        func, source = args[0], args[1]
        q = ctx.qualname(func) or ""
        if q not in ("asyncio.create_task", "asyncio.ensure_future"):
            if not (isinstance(func, cst.Attribute) and func.attr.value == "create_task"
                    and (is_task_group(func.value, ctx) or is_event_loop(func.value, ctx))):
                return
            q = short(func)
        if limits.source_limit(source, ctx) or limits.batch_limit(source, ctx):
            return
        if isinstance(source, cst.Name):
            bound = ctx.lookup(source.value)
            value = bound[1][-1] if bound and bound[1] else None
            if isinstance(value, (cst.GeneratorExp, cst.ListComp)):
                source = value  # coros = [fetch(u) for u in urls]
        if isinstance(source, (cst.GeneratorExp, cst.ListComp)) and isinstance(source.elt, cst.Call):
            if limits.callee_limit(source.elt.func, ctx) and not unshared_limiter(source, ctx):
                return
            source = source.for_in.iter
        self.report(node, call=q + "(...)", source=short(source), volume=source, work=(node,))
