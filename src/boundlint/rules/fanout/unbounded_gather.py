"""BND101 unbounded-gather: ``asyncio.gather()`` over one new coroutine per input item."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.spawns import NewAwaitables, new_awaitables
from boundlint.rules.base import Example, Rule, short
from boundlint.rules.prefilter import Words
from boundlint.rules.fanout.spawn_limits import _doc, limiter_chain, lowered, unshared_limiter


class UnboundedGather(Rule):
    __doc__ = _doc("""
    ## What it does
    Flags `asyncio.gather()` (and `asyncio.wait()` / `asyncio.as_completed()`
    handed bare coroutines) over a collection of new coroutines whose size the
    input decides: a starred comprehension, generator, `map()`, or a list built
    in a loop.

    Found at `low` severity: coroutines whose work is shown to reach no
    dependency.  Each coroutine is read: the project's own functions, and
    methods called through their class (`Job._reset(row)`) or on an object
    whose class the code shows (`REGISTRY = Registry()`, `path: Path`, an
    element of an annotated container: `g = self._groups.get(key)` with
    `self._groups: dict[str, Group]`).
    A coroutine out of sight that is awaited counts as waiting on I/O; one
    of the project's, read and of unknown effect, does not.

    ## Why is this bad?
    `gather` starts every coroutine at once.  A request with 20,000 items opens
    20,000 concurrent calls to the dependency behind them: the connection pool
    overflows, sockets pile up in TIME_WAIT, and the error handling of each
    failed call multiplies the damage.  Nothing applies backpressure.
    """)
    code, name = "BND101", "unbounded-gather"
    prefilter = Words("gather", "wait", "as_completed")
    message = "`{call}` starts one coroutine per item of `{source}` with no concurrency limit"
    hint = "acquire an asyncio.Semaphore inside each coroutine, or gather fixed-size batches"
    invalid = (
        Example("starred_generator", """
            import asyncio

            async def handler(ids):
                return await asyncio.gather(*(fetch(i) for i in ids))  # error: BND101 col 18
            """),
        Example("list_built_in_loop", """
            import asyncio

            async def upload_all(client, files):
                jobs = []
                for f in files:
                    jobs.append(client.post("/upload", content=f))
                await asyncio.gather(*jobs)  # error: BND101 col 11
            """),
    )
    valid = (
        Example("semaphore_per_task", """
            import asyncio

            async def handler(ids):
                sem = asyncio.Semaphore(20)

                async def one(i):
                    async with sem:
                        return await fetch(i)

                return await asyncio.gather(*(one(i) for i in ids))
            """),
        Example("fixed_arguments", """
            import asyncio

            async def load():
                return await asyncio.gather(fetch_users(), fetch_documents())
            """),
        Example("fixed_batches", """
            import asyncio
            import itertools

            async def handler(ids):
                for batch in itertools.batched(ids, 50):
                    await asyncio.gather(*(fetch(i) for i in batch))
            """),
    )

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        q = ctx.qualname(node.func)
        if q not in ("asyncio.gather", "asyncio.wait", "asyncio.as_completed"):
            return
        if q == "asyncio.gather":
            candidates = [a.value for a in node.args if a.star == "*"]
        else:
            first = next((a.value for a in node.args if a.keyword is None and a.star == ""), None)
            candidates = [first] if first is not None else []
        for expr in candidates:
            built = new_awaitables(expr, ctx)
            if built is None:
                chain = _callers_spawn(expr, ctx)
                if chain:
                    reached = ctx.project.ask("spawned_dependency", ctx.project.ref(None, ctx.function_qualname()),
                                              expr.value)
                    self.report(node, chain, call=short(node.func) + "(...)", source=short(expr), volume=("input", chain[0]),
                                reached=reached or "")
                    return
                continue
            if self._bounded(built, ctx, node):
                continue
            source = built.sources[0] if built.sources else expr
            self.report(node, limiter_chain(node, built.target, ctx), call=short(node.func) + "(...)", source=short(source),
                        volume=source, work=(expr,) if built.target is None else (expr, built.target),
                        severity=lowered(None, node, source, ctx),
                        fix="gather" if q == "asyncio.gather" and type(expr) in (cst.ListComp, cst.GeneratorExp) else "")
            return

    @staticmethod
    def _bounded(built: NewAwaitables, ctx: Context, call: cst.Call | None = None) -> bool:
        if limits.teardown_call(built.target):
            return True
        if built.target is not None and not (call and unshared_limiter(call, ctx)):
            if limits.callee_limit(built.target, ctx) or limits.passed_limiter(built.target, _target_args(built.target, call), ctx):
                return True
        if not built.sources:
            return False
        for item in built.loops:
            if isinstance(item, Loop) and item.kind == "while":
                if limits.loop_limit(item, ctx) is None:
                    return False
        return all(limits.source_limit(s, ctx) or limits.batch_limit(s, ctx) for s in built.sources if s is not None)


def _target_args(target: cst.BaseExpression, call: cst.Call | None) -> list[cst.Arg]:
    """The arguments of the call of *target* inside the gather *call* (``fetch(slots, u)``), else []."""
    for node in limits.iter_nodes(call) if call is not None else ():
        if isinstance(node, cst.Call) and node.func is target:
            return list(node.args)
    return []


def _callers_spawn(expr: cst.BaseExpression, ctx: Context) -> list[str] | None:
    """The chain when *expr* is a parameter that callers, in any module, fill with one new coroutine
    per item of request input (``run_all(jobs)`` called with ``[refresh(a) for a in account_ids]``)."""
    if not ctx.project or not isinstance(expr, cst.Name) or ctx.lookup_param(expr.value) is None:
        return None
    qual = ctx.function_qualname()
    if qual is None:
        return None
    return ctx.project.ask("spawn_sources", ctx.project.ref(None, qual), expr.value)  # type: ignore[return-value]
