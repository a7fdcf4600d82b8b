"""BND302 log-storm-in-worker: a log line per failed item in a worker a fan-out runs once per item."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.context import Context
from boundlint.analysis.logging_calls import LogCall, describe, log_call, rate_limited
from boundlint.analysis.storms import function_node, guarded, handler_loop
from boundlint.analysis.callbacks import callback_index, hands_back, queue_worker
from boundlint.analysis.failure_results import failure_branch, local_fault, per_item_severity
from boundlint.analysis.workers import worker_index
from boundlint.analysis.facts.dependency import caught
from boundlint.analysis.facts.once_flag import seen_guard
from boundlint.analysis.facts.placement import tried_body
from boundlint.rules.amplification.log_storms import _LOGGERS_DOC, _OPTIONS_DOC, _WORKER_LOG_PREFILTER, loop_storms, result_loop
from boundlint.rules.base import Example, Rule, chain_loop


class LogStormInWorker(Rule):
    __doc__ = """
    ## What it does
    Flags a log call at warning level or above in an `except` handler of a
    function or coroutine that a fan-out in the same module runs once per
    item: the coroutines of a `gather` over a comprehension, the target of
    `create_task` / `ensure_future` / `start_soon` / `run_in_executor` /
    `Thread(...).start()` in an unbounded loop, the function an executor
    `submit`s or `map`s over an unbounded collection.  The finding is on the
    log call; the message names the fan-out site.  Outside `except`, a log
    call under an `if` on a failed result counts the same (a 429, an
    exception a task returned; see BND301).  Callbacks run per item too: a
    done-callback attached to every task an unbounded loop (or a per-item
    worker or handler) creates (`task.add_done_callback(report)`), and a
    message handler registered with a broker (`client.on_message = handle`,
    `message_callback_add(topic, handle)`, `on_message=` /
    `on_message_callback=`, `callback=` / `cb=` of `subscribe` / `consume`,
    kombu's `callbacks=[handle]` of a consumer and `register_callback(handle)`),
    and a task a queue runs once per message, by its decorator (`@shared_task`,
    `@app.task`, `@dramatiq.actor`, `@broker.subscriber(...)`: the
    `worker-decorators` table less the `periodic-decorators`), unless its
    handler hands the failure back to the queue's retry
    (`raise self.retry(exc=exc, countdown=60)` in a bound task).  A function
    that another module of the project runs per item counts too: called in
    an unbounded loop over its caller's input or over rows a query returns,
    or fanned out there, directly or through up to two plain calls (the
    evidence is that chain); also one called on every pass of a `while`
    loop that does not pause, when the handler returns at once (the loop
    then spins on the failing dependency: BND303 reports the loop).  Not
    when the handler re-raises, or the log line is followed by a `raise` on
    its own path (`if not fail_open: log.error(...); raise ...`): the
    caller's round fails with it; nor
    behind a seen-key guard (`if key in self._seen: return` ...
    `self._seen.add(key)`: once per key).

    ## Why is this bad?
    When the dependency fails, every item's worker fails, so the fan-out
    writes one log line per item, all at once.  A concurrency limit does not
    help: a bounded pool still logs once per failed item.  In the incident,
    20,000 tasks per request each logged their failed cache call.

    ## What counts as a limit
    - the fan-out runs over a bounded source (`gather(a(), b())`, a literal,
      `range(N)` with a constant `N`), or it starts a fixed pool of workers
      (`for _ in range(8): tg.start_soon(worker, queue)`);
    - a counter, sampling or once-only guard around the call (as in BND301);
    - a rate-limited logger or helper (see Options);
    - `debug` / `info` levels.  A `raise` after the log does not help: each
      worker still logs before it raises;
    - a done-callback attached to one task, or to tasks made outside any
      unbounded loop, or one that does not log (`running.discard`);
    - in a message handler, an `except` that catches only errors of local
      work on the message, or verdicts on it (the `per-item-errors` table:
      `ValueError`, `KeyError`, `json.JSONDecodeError`, `ValidationError`,
      `*NotFound`, `PermissionError`, `*Forbidden`, `*Blocked` ...): a
      malformed or refused message is its own fault, not a failing
      dependency's.  `except Exception` counts.

    Found, at `low` severity: a worker's `try` whose dependency calls all
    fail inside a `try` that catches everything and does not raise again,
    there or in a project function it calls (also one it hands to a thread
    pool, `run_in_executor(None, partial(self.put, k))`), as in BND301.

    Found at `low` severity (hidden by default): a worker whose handler
    catches only errors of its own item or verdicts on it (the
    `per-item-errors` table: `ValueError`, `*NotFound` ...): an outage
    raises something else, so the worker logs once per bad item.  So is a
    fan-out over a collection that configuration, the installation or the
    code fixes, or one derived from such a collection (as in BND301).

    Also at `low` severity: a worker's `try` shown to reach no dependency,
    read as in BND301 (the project's functions, methods called through
    their class or on an object whose class the code shows, role words of
    a receiver's name only as its last word, a coroutine handed to a task
    of its own, an argument shown not to be `None`), and a handler that
    catches only the 4xx HTTP error responses its work raises (as in
    BND301).

    A log call in a loop inside the worker is BND301's finding, not this one.
    """ + _LOGGERS_DOC + _OPTIONS_DOC
    code, name = "BND302", "log-storm-in-worker"
    fix = "suggestion"  # no automatic fix: the editor shows the hint as a display-only suggestion
    prefilter = _WORKER_LOG_PREFILTER
    message = "`{call}` {what} for every failed item: `{worker}` runs {where}"
    hint = "log one summary after the fan-out (gather(..., return_exceptions=True)), or rate-limit the log line"
    hints = {"message": "rate-limit or sample the log line, or count failures and log one summary per interval"}
    invalid = (
        Example("per_item_coroutine", """
            import asyncio
            import logging

            logger = logging.getLogger(__name__)

            async def hydrate(cache, uri, sem):
                async with sem:
                    try:
                        return await cache.get(uri)
                    except ConnectionError:
                        logger.error("cache read failed for %s", uri)  # error: BND302 col 13
                        return None

            async def get_posts(cache, uris):
                sem = asyncio.Semaphore(32)
                return await asyncio.gather(*(hydrate(cache, uri, sem) for uri in uris))
            """),
    )
    valid = (
        Example("summary_after_gather", """
            import asyncio
            import logging

            logger = logging.getLogger(__name__)

            async def hydrate(cache, uri, sem):
                async with sem:
                    return await cache.get(uri)

            async def get_posts(cache, uris):
                sem = asyncio.Semaphore(32)
                results = await asyncio.gather(*(hydrate(cache, uri, sem) for uri in uris), return_exceptions=True)
                failed = sum(isinstance(r, Exception) for r in results)
                if failed:
                    logger.warning("%d of %d cache reads failed", failed, len(results))
                return [r for r in results if not isinstance(r, Exception)]
            """),
        Example("fixed_worker_pool", """
            import anyio
            import logging

            logger = logging.getLogger(__name__)

            async def worker(queue):
                try:
                    await drain(queue)
                except OSError:
                    logger.error("worker stopped")

            async def main(queue):
                async with anyio.create_task_group() as tg:
                    for _ in range(8):
                        tg.start_soon(worker, queue)
            """),
    )

    def __init__(self, sink):
        super().__init__(sink)
        # (log call, function, log, handler, work, the function's qualified name, the log's path raises)
        self._candidates: list[tuple[cst.Call, cst.CSTNode, LogCall, cst.ExceptHandler | None, tuple, str | None,
                                     bool]] = []

    def visit_Assign(self, node: cst.Assign, ctx: Context) -> None:
        callback_index(ctx).note_assign(node, ctx)

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        worker_index(ctx).note_call(node, ctx)
        callback_index(ctx).note_call(node, ctx)
        log = log_call(node, ctx)
        if log is None or rate_limited(log, ctx):
            return
        handler = None
        if ctx.frame.handlers:
            found = handler_loop(ctx)
            if found is None:
                return
            handler, loop = found
            if loop is not None and loop_storms(ctx, handler, loop):
                return  # BND301 reports it
        else:
            branch = failure_branch(ctx)  # a failed result outside `except`: a 429, an exception gather returned
            if branch is None or result_loop(ctx, branch) is not None:
                return  # nothing failed, or BND301 reports it
        func = function_node(ctx)
        if func is None or guarded(ctx, func, func):
            return
        tried = tried_body(ctx.ancestors, handler) if handler is not None else None
        ends = handler is not None and (_reraises(handler) or _raises_after(ctx, handler))
        self._candidates.append((node, func, log, handler, (tried,) if tried is not None else (),
                                 ctx.function_qualname(), ends))

    def leave_Module(self, node: cst.Module, ctx: Context) -> None:
        index, callbacks = worker_index(ctx), callback_index(ctx)
        for call, func, log, handler, work, qual, ends in self._candidates:
            site = index.site_of(func)
            reached = caught(handler, ctx) if handler is not None else "a failed result of a dependency call"
            hint = ""
            if site is None:
                found = callbacks.site_of(func)
                queued = queue_worker(func, ctx) if found is None else None
                if queued is not None and not (handler is not None and hands_back(handler, func)):
                    found = queued, True
                if found is None and reached and handler is not None and not ends:
                    chain = _run_per_item(qual, ctx) if seen_guard(func) is None else None
                    if chain:
                        self.report(call, chain, call=log.text, what=describe(log), worker=_func_name(func),
                                    where=_per_item_of(chain_loop(chain, "its callers")), work=work,
                                    volume=("unknown", chain[0]),
                                    reached=reached, severity=per_item_severity(handler, ctx))
                    continue
                if found is None or (found[1] and handler is not None and local_fault(handler, ctx)):
                    continue  # a message handler's parse error is the message's fault, not the dependency's
                site, hint = found[0], self.hints["message"] if found[1] else ""
                reached = reached or "the failure of a task or message it is called back for"
            self.report(call, hint=hint, call=log.text, what=describe(log), worker=_func_name(func),
                        where=_per_item_of(site.describe()),
                        work=work, volume=getattr(site, "volume", None),
                        reached=reached, severity=per_item_severity(handler, ctx))
        self._candidates.clear()


# The longest chain that makes a function a per-item worker: the loop and two plain calls.  Deeper,
# fresh readers found the failure mostly stops the caller's round (a raise after the log line, a
# handler that always raises) or is paced by people: the log line is not one per item.
_WORKER_STEPS = 3


def _run_per_item(qual: str | None, ctx: Context) -> list[str] | None:
    """The chain when a project caller, in any module, runs the function *qual* per item, or on every pass
    of a ``while`` loop that does not pause when *qual* returns at once on a failure (``fails_fast``:
    ``while running: events = await stream.consume()``, where ``consume`` logs and returns ``[]``)."""
    if not ctx.project or qual is None:
        return None
    ref = ctx.project.ref(None, qual)
    chain = ctx.project.ask("per_item_through", ref, True, None, True)
    if chain and len(chain) > _WORKER_STEPS:
        return None  # further up, a caller's handling of the failure decides how often it is logged
    if chain and chain_loop(chain, "") == "while" and not ctx.project.ask("fails_fast", ref):
        return None  # a service loop's pass: a storm only when the function answers the failure at once
    return chain


def _reraises(handler: cst.ExceptHandler) -> bool:
    """True when *handler*'s own statements raise: the failure ends the caller's round too (unless the
    caller catches it, which its own judgement reads), so the log line is no storm of this function's."""
    return any(isinstance(small, cst.Raise) for stmt in handler.body.body if isinstance(stmt, cst.SimpleStatementLine)
               for small in stmt.body)


def _raises_after(ctx: Context, handler: cst.ExceptHandler) -> bool:
    """True when the log call being visited is followed, in its own block or one around it inside
    *handler*, by a ``raise`` (``if not fail_open: log.error(...); raise HTTPException(...)``): the
    path that logs ends the caller's round, as a handler that re-raises does."""
    child: cst.CSTNode | None = None
    for node in reversed(ctx.ancestors):
        if node is handler:
            return False
        if type(node) is cst.IndentedBlock and child is not None:
            at = next((i for i, stmt in enumerate(node.body) if stmt is child), None)
            after = node.body[at + 1:] if at is not None else ()
            if any(type(stmt) is cst.SimpleStatementLine and any(type(s) is cst.Raise for s in stmt.body)
                   for stmt in after):
                return True
        child = node
    return False


def _per_item_of(site: str) -> str:
    """``per item of `gather(...)` in `run``` for a fan-out site, ``on every pass of a `while` loop`` for one."""
    return "on every pass of a `while` loop" if site == "while" else f"per item of `{site}`"


def _func_name(node: cst.CSTNode) -> str:
    return node.name.value if isinstance(node, cst.FunctionDef) else "<lambda>"
