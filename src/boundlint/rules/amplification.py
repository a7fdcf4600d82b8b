"""BND3xx failure amplification: a log line per failed item, a retry with no pause.

In the incident every failed cache call was logged: millions of blocking log
writes per second turned a cache problem into a thread explosion, GC pauses
and OOM restarts.  These rules find the error handling that multiplies a
failure by the number of items (or by the speed of a spinning loop).  What
counts as a logger, a guard and a pause is decided in
``boundlint.analysis.logging_calls`` and ``boundlint.analysis.storms``; which functions run once per item of a
fan-out, in ``boundlint.analysis.workers``.
"""
from __future__ import annotations

import re

import libcst as cst

from boundlint.analysis.context import Context, Loop
from boundlint.analysis.limits import iter_nodes
from boundlint.analysis.logging_calls import LogCall, describe, log_call, rate_limited
from boundlint.analysis.storms import (
    function_node, guarded, handler_loop, iterations_bounded, loop_source, loop_storm_limit, paced, retry_decorated,
    try_stops_loop,
)
from boundlint.analysis.names import dotted
from boundlint.analysis.walk import children
from boundlint.analysis.workers import SPAWN_RE, worker_index
from boundlint.rules.base import Example, Rule, short

_LOGGERS_DOC = """
    ## What counts as a log line
    A call at warning level or above: `warning` / `warn` / `error` /
    `exception` / `critical` / `fatal` (and structlog's `aerror` ...) or
    `log(level, ...)` with a level of WARNING or more, on a logger, on the
    `logging` module, `traceback.print_exc()` / `print_exception()`,
    `print(..., file=sys.stderr)` and `sys.stderr.write(...)`.  A logger is recognised by how it was made
    (`logging.getLogger`, `structlog.get_logger`, `loguru.logger`, a
    `get_logger` / `get_task_logger` helper, `getChild` / `bind` on a
    logger), else by its name: `logger`, `log`, `LOG`, `_logger`, `_LOGGER`,
    `self.logger`, `self.log`, any name ending in `logger`, and the names in
    the `logger-names` option.  A name that merely starts with "log" is not
    a logger (`self.login_task.exception()` is no log call).
"""

# Necessary text of each finding: an except handler, a warning-or-above method / print_exc / stderr,
# and a loop (BND301) or a fan-out call (BND302).
# Each an AND of cheap searches (a substring first), never one pattern of lookaheads,
# which backtracks over the whole file once per alternative.
_LOGS = re.compile(r"\.\s*a?(?:warning|warn|error|exception|critical|fatal|log)\b|\bprint_exc\b|\bprint_exception\b|\bstderr\b")
_LOOP_LOG_PREFILTER = ("except", _LOGS, re.compile(r"\b(?:for|while)\b"))
_WORKER_LOG_PREFILTER = ("except", _LOGS, SPAWN_RE)

_OPTIONS_DOC = """
    ## Options
    In `[tool.boundlint.amplification]`: `logger-names` adds logger names;
    `rate-limited-loggers` lists loggers or helpers (as written, e.g.
    `throttled_log`, or by qualified name) that rate-limit what they write.
"""


def _loop_text(loop: Loop) -> str:
    source = loop_source(loop)
    return f"`{source}`" if loop.kind == "while" else f"a loop over `{source}`"


# -- BND301 --------------------------------------------------------------------------

class LogStormInLoop(Rule):
    __doc__ = """
    ## What it does
    Flags a log call at warning level or above in an `except` handler inside a
    `for` / `async for` / `while` loop over an unbounded source: the handler
    writes one log line per failed iteration.

    ## Why is this bad?
    Failures come in bursts.  When the dependency behind the loop goes down,
    every item fails, and the loop writes one (often blocking, often
    traceback-sized) log line per item, thousands per second.  The logging
    pipeline becomes the bottleneck: threads block on the handler's lock,
    disks and log shippers fill, and the service falls over for a reason
    unrelated to the original fault.

    ## What counts as a limit
    - a loop over a bounded source (the shared rules of BND1xx: a literal,
      `range(N)` with a constant `N`, a slice `xs[:N]`, a constant name ...);
      fixed-size batches bound concurrency but not the number of iterations,
      so a loop over batches still counts; a `while n < limit` loop whose
      counter is incremented inside is a counted retry;
    - a counter or sampling guard around the call: `if errors < N` on a
      counter the loop increments, `if i % N == 0`, a `random` sample, or a
      once-only flag the branch sets (`if not warned: warned = True`,
      `if key not in seen: seen.add(key)`);
    - a `raise`, `return` or `break` right after the log call: the error
      leaves the loop, so it is logged once;
    - a retry or fallback loop that stops at its first success: its
      attempts are few, unless it is an endless retry that goes straight
      back to the failing call (BND303's finding), which logs once per spin;
    - a pause on the failing path: `time.sleep` / `asyncio.sleep` / anyio /
      trio sleep of at least 0.1 s (or of a computed delay), or
      `Event.wait(timeout)`, in the handler or among the loop body's
      statements, or an iterator that backs off before each round
      (`async for ws in websockets.connect(uri)`, tenacity's `Retrying`),
      so the loop writes at most a few lines a second;
    - a loop that waits for a person each time (`input()`, `getpass()`,
      `prompt()`): a REPL writes one line per failed command;
    - a rate-limited logger or helper (see Options);
    - `debug` / `info` levels, and logging after the loop;
    - a module of a `migrations` package: a data migration runs once per
      deployment, and a line per bad row is its report.
    """ + _LOGGERS_DOC + _OPTIONS_DOC
    code, name = "BND301", "log-storm-in-loop"
    prefilter = _LOOP_LOG_PREFILTER
    message = "`{call}` {what} on every failed iteration of {loop}"
    hint = "count failures and log once after the loop, rate-limit or sample the log line, or emit a metric instead"
    invalid = (
        Example("error_per_item", """
            import logging

            log = logging.getLogger(__name__)

            def flush(samples):
                for name, value in samples.items():
                    try:
                        send(name, value)
                    except OSError as exc:
                        log.error("error sending metric %s: %s", name, exc)  # error: BND301 col 13
            """),
        Example("consumer_loop", """
            import logging

            logger = logging.getLogger(__name__)

            def run(consumer):
                while True:
                    message = consumer.poll()
                    try:
                        handle(message)
                    except ValueError:
                        logger.exception("cannot handle %s", message.offset)  # error: BND301 col 13
            """),
    )
    valid = (
        Example("count_and_log_once", """
            import logging

            log = logging.getLogger(__name__)

            def flush(samples):
                failed = 0
                for name, value in samples.items():
                    try:
                        send(name, value)
                    except OSError:
                        failed += 1
                if failed:
                    log.error("%d of %d metrics not sent", failed, len(samples))
            """),
        Example("sampled", """
            import logging

            log = logging.getLogger(__name__)

            def flush(samples):
                errors = 0
                for name, value in samples.items():
                    try:
                        send(name, value)
                    except OSError:
                        errors += 1
                        if errors <= 10:
                            log.warning("error sending %s", name)
            """),
        Example("reraised", """
            import logging

            log = logging.getLogger(__name__)

            def flush(samples):
                for name, value in samples.items():
                    try:
                        send(name, value)
                    except OSError:
                        log.error("error sending %s", name)
                        raise
            """),
    )

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        if not ctx.frame.handlers or not ctx.frame.loops or _migration(ctx.path):
            return
        log = log_call(node, ctx)
        if log is None or rate_limited(log, ctx):
            return
        found = handler_loop(ctx)
        if found is None or found[1] is None:
            return
        handler, loop = found
        if loop_storms(ctx, handler, loop):
            self.report(node, call=log.text, what=describe(log), loop=_loop_text(loop))


def _migration(path: str) -> bool:
    """A module of a ``migrations`` package (Django, Alembic ...): it runs once per deployment, not per request."""
    return "migrations" in path.replace("\\", "/").split("/")[:-1]


def loop_storms(ctx: Context, handler: cst.ExceptHandler, loop: Loop) -> bool:
    """True when a log call in *handler* writes a line per failed iteration of *loop*.

    A retry loop stops at its first success, so its attempts are few, unless
    it spins: an endless retry with no pause (BND303's finding) logs once
    per attempt, as fast as the CPU allows.
    """
    limit = loop_storm_limit(ctx, handler, loop)
    if limit is None:
        return not _waits_for_user(loop.node, ctx)
    return limit.startswith("a retry") and spinning_retry(handler, ctx) is not None


def _waits_for_user(loop_node: cst.CSTNode, ctx: Context) -> bool:
    """True when each iteration waits for a person to type (``input()``, ``getpass()``, ``click.prompt()``): a REPL."""
    for n in iter_nodes(loop_node):
        if isinstance(n, cst.Call):
            q = ctx.qualname(n.func) or dotted(n.func) or ""
            name = q.rsplit(".", 1)[-1]
            if name in _READS_KEYBOARD or (name in _PROMPTS and q.split(".", 1)[0] in _PROMPT_LIBRARIES):
                return True
    return False


# Calls that block on the keyboard whatever their receiver; prompt()/ask()/confirm() only from a prompt library.
_READS_KEYBOARD = frozenset({"input", "raw_input", "getpass", "getkey", "getch", "get_wch", "getstr"})
_PROMPT_LIBRARIES = frozenset({"click", "typer", "rich", "questionary", "prompt_toolkit", "inquirer", "InquirerPy", "getpass"})


# -- BND302 --------------------------------------------------------------------------

class LogStormInWorker(Rule):
    __doc__ = """
    ## What it does
    Flags a log call at warning level or above in an `except` handler of a
    function or coroutine that a fan-out in the same module runs once per
    item: the coroutines of a `gather` over a comprehension, the target of
    `create_task` / `ensure_future` / `start_soon` / `run_in_executor` /
    `Thread(...).start()` in an unbounded loop, the function an executor
    `submit`s or `map`s over an unbounded collection.  The finding is on the
    log call; the message names the fan-out site.

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
      worker still logs before it raises.

    A log call in a loop inside the worker is BND301's finding, not this one.
    """ + _LOGGERS_DOC + _OPTIONS_DOC
    code, name = "BND302", "log-storm-in-worker"
    prefilter = _WORKER_LOG_PREFILTER
    message = "`{call}` {what} for every failed item: `{worker}` runs per item of `{site}`"
    hint = "log one summary after the fan-out (gather(..., return_exceptions=True)), or rate-limit the log line"
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
        self._candidates: list[tuple[cst.Call, cst.CSTNode, LogCall]] = []

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        worker_index(ctx).note_call(node, ctx)
        if not ctx.frame.handlers:
            return
        log = log_call(node, ctx)
        if log is None or rate_limited(log, ctx):
            return
        found = handler_loop(ctx)
        if found is None:
            return
        handler, loop = found
        if loop is not None and loop_storms(ctx, handler, loop):
            return  # BND301 reports it
        func = function_node(ctx)
        if func is None or guarded(ctx, func, func):
            return
        self._candidates.append((node, func, log))

    def leave_Module(self, node: cst.Module, ctx: Context) -> None:
        index = worker_index(ctx)
        for call, func, log in self._candidates:
            site = index.site_of(func)
            if site is not None:
                self.report(call, call=log.text, what=describe(log), worker=_func_name(func), site=site.describe())
        self._candidates.clear()


def _func_name(node: cst.CSTNode) -> str:
    return node.name.value if isinstance(node, cst.FunctionDef) else "<lambda>"


# -- BND303 --------------------------------------------------------------------------

# Not failures of a dependency: a timeout or empty/full queue (the call already waited, or the
# handler makes room), a would-block
# signal of non-blocking I/O (the loop waits for readiness), BaseException (cancellation is never retried).
_WAITING_ERRORS = ("timeout", "timedout", "empty", "full", "wouldblock", "blockingio", "interrupted", "wantread", "wantwrite")
_NOT_RETRIED = frozenset({"BaseException", "GeneratorExit", "KeyboardInterrupt", "SystemExit", "CancelledError"})
_PROMPTS = frozenset({"input", "raw_input", "getpass", "prompt", "ask", "confirm", "getkey", "getch", "get_wch", "getstr"})
_CONSUMERS = frozenset({"pop", "popleft", "popitem", "get", "get_nowait", "next", "__next__", "read", "readline", "recv"})
_ENDLESS_ITERS = frozenset({"itertools.count", "itertools.repeat", "itertools.cycle"})


class RetryWithoutBackoff(Rule):
    __doc__ = """
    ## What it does
    Flags the `except` handler of a retry loop (a `while True` or other
    unbounded loop whose `try` leaves the loop on success), or of a
    reconnect loop (the `try` runs a session that only ends by failing: its
    last statement, inside any `with`, is an `async for`, a `while`, or a
    `for` over `listen()` / `consume()` / `subscribe()` ...), that goes
    straight back to the failing call, by `continue` or by falling through,
    with no sleep or backoff on the way.

    ## Why is this bad?
    A retry with no pause is a hot spin.  When the dependency is down, the
    loop calls it as fast as the CPU allows, multiplying the load on the
    failing service exactly when it needs relief, and every process doing
    the same thing makes recovery impossible (a retry storm).

    ## What counts as a limit
    - a pause anywhere in the loop: `time.sleep`, `asyncio.sleep`,
      `anyio.sleep`, `trio.sleep` of at least 0.1 s (or of a computed delay),
      `Event.wait(timeout)`, a `backoff` helper;
    - a tenacity, backoff or stamina retry decorator on the function;
    - a bounded loop (a constant `range`, a `while n < limit` counter that
      the loop increments), or a handler that can leave the loop (a
      `raise`, `return` or `break` anywhere in it, e.g. once a counter
      reaches its limit);
    - a handler for a timeout or an empty queue (`TimeoutError`,
      `queue.Empty`): the failing call already waited; for a would-block
      signal of non-blocking I/O (`BlockingIOError`, `ssl.SSLWantReadError`,
      `InterruptedError`): the loop waits for readiness; for
      `BaseException` / `CancelledError` (cancellation is never retried);
    - a loop that waits for user input (`input()`, `prompt()`);
    - a loop that changes what the next attempt works on: something the
      `try` reads is reassigned in the handler or elsewhere in the loop body
      (a new file name, the rest of a buffer) or consumed there
      (`dirs.pop()`, `queue.get()`).
    """
    code, name = "BND303", "retry-without-backoff"
    prefilter = ("except", re.compile(r"\b(?:while|count|repeat|cycle)\b"))
    message = "`except {error}` sends `{loop}` straight back to `{call}` with no sleep or backoff"
    hint = "wait before retrying: exponential backoff with jitter (tenacity, backoff, stamina) and a cap on attempts"
    invalid = (
        Example("reconnect_spin", """
            import psycopg2

            def connect(dsn):
                while True:
                    try:
                        return psycopg2.connect(dsn)
                    except psycopg2.OperationalError:  # error: BND303 col 9
                        continue
            """),
    )
    valid = (
        Example("exponential_backoff", """
            import random
            import time

            import psycopg2

            def connect(dsn):
                delay = 0.5
                while True:
                    try:
                        return psycopg2.connect(dsn)
                    except psycopg2.OperationalError:
                        time.sleep(delay + random.random() * delay)
                        delay = min(delay * 2, 30)
            """),
    )

    def visit_ExceptHandler(self, node: cst.ExceptHandler, ctx: Context) -> None:
        found = spinning_retry(node, ctx)
        if found is not None:
            loop, call = found
            error = short(node.type, 60) if node.type is not None else "BaseException"
            self.report(node, error=error, loop=_loop_head(loop), call=short(call.func) + "(...)")


def spinning_retry(handler: cst.ExceptHandler, ctx: Context) -> tuple[Loop, cst.Call] | None:
    """``(loop, retried call)`` when *handler* sends an endless retry loop straight back to its call, else None.

    Works at the handler or anywhere inside it (the handler is found among ``ctx.ancestors``).
    """
    at = next((i for i in range(len(ctx.ancestors) - 1, -1, -1) if ctx.ancestors[i] is handler), len(ctx.ancestors))
    ancestors = ctx.ancestors[:at]
    loop = next((lp for lp in reversed(ctx.frame.loops) if any(a is lp.node for a in ancestors)), None)
    if loop is None or len(ancestors) < 3:
        return None
    try_node, block = ancestors[-1], ancestors[-2]
    if ancestors[-3] is not loop.node or getattr(loop.node, "body", None) is not block:
        return None  # the try is not a statement of the loop body
    if not _endless(loop, ctx) or not _retry_shape(loop, try_node):
        return None
    if _handler_leaves(handler) or _waiting_error(handler) or _prompts(loop.node, ctx) or _changes_attempt(handler, try_node, block):
        return None
    call = next((n for n in iter_nodes(try_node.body) if isinstance(n, cst.Call)), None)
    if call is None or paced([loop.node], ctx) or retry_decorated(ctx):
        return None
    return loop, call


def _endless(loop: Loop, ctx: Context) -> bool:
    if loop.kind == "while":
        return iterations_bounded(loop, ctx) is None
    if loop.kind == "for" and isinstance(loop.iter, cst.Call):
        name = ctx.qualname(loop.iter.func) or ""
        return name in _ENDLESS_ITERS and not (name == "itertools.repeat" and len(loop.iter.args) > 1)
    return False


def _loop_head(loop: Loop) -> str:
    if loop.kind == "while":
        return "while " + short(loop.test)
    return "for ... in " + short(loop.iter)


_STREAM_METHODS = re.compile(r"^(listen|consume|subscribe|messages|stream|events|watch|iter_messages|iter_events)$")


def _retry_shape(loop: Loop, try_node: cst.CSTNode) -> bool:
    """True when success leaves the loop (see ``try_stops_loop``), or sets a flag the ``while not done`` test reads.

    Also a reconnect loop: the ``try`` runs a session that only ends by
    failing (its last statement, inside any ``with``, is an ``async for``,
    a ``while`` or a ``for`` over ``listen()`` / ``consume()`` ...), so
    the handler goes straight back to reconnecting.
    """
    if try_stops_loop(try_node, loop) or _runs_session(getattr(try_node, "body", None)):
        return True
    test = loop.test
    if loop.kind == "while" and isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        flag = dotted(test.expression)
        for n in iter_nodes(try_node.body):
            if isinstance(n, cst.Assign) and any(dotted(t.target) == flag for t in n.targets):
                return True
    return False


def _runs_session(block: cst.BaseSuite | None) -> bool:
    if not isinstance(block, cst.IndentedBlock) or not block.body:
        return False
    last = block.body[-1]
    if isinstance(last, cst.With):
        return _runs_session(last.body)
    if isinstance(last, cst.While):
        return True
    if isinstance(last, cst.For):
        if last.asynchronous is not None:
            return True
        it = last.iter
        return isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) and bool(_STREAM_METHODS.match(it.func.attr.value))
    return False


def _handler_leaves(handler: cst.ExceptHandler) -> bool:
    """True when the handler can leave the loop: a ``raise`` / ``return`` / ``break`` anywhere in it (not in a nested loop)."""
    stack = list(handler.body.body) if isinstance(handler.body, cst.IndentedBlock) else [handler.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Raise, cst.Return)):
            return True
        if isinstance(node, cst.Break):
            return True
        if isinstance(node, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Call):
            name = dotted(node.func) or ""
            if name in ("sys.exit", "exit", "os._exit", "quit"):
                return True
        stack.extend(children(node))
    return False


def _waiting_error(handler: cst.ExceptHandler) -> bool:
    if handler.type is None:
        return False
    types = [e.value for e in handler.type.elements] if isinstance(handler.type, cst.Tuple) else [handler.type]
    for t in types:
        name = (dotted(t) or "").rsplit(".", 1)[-1]
        if name in _NOT_RETRIED or any(word in name.lower() for word in _WAITING_ERRORS):
            return True
    return False


def _prompts(loop_node: cst.CSTNode, ctx: Context) -> bool:
    """True when the loop waits for the user (``input()``, ``prompt()``, curses ``getkey()`` ...)."""
    for n in iter_nodes(loop_node):
        if isinstance(n, cst.Call):
            name = (ctx.qualname(n.func) or dotted(n.func) or "").rsplit(".", 1)[-1]
            if name in _PROMPTS or "input" in name.lower() or "prompt" in name.lower():
                return True
    return False


def _changes_attempt(handler: cst.ExceptHandler, try_node: cst.CSTNode, block: cst.IndentedBlock) -> bool:
    """True when each round changes what the ``try`` works on, so the next attempt is a different call, not a retry.

    Something the ``try`` reads is reassigned in the handler or elsewhere in
    the loop body, or consumed there (``dirs.pop()``, ``queue.get()``); the
    ``try`` takes the next item of an iterator (``next(keys)``); or the call
    is handed an object the loop changes (``self.offset += N`` then
    ``read_header(self)``).
    """
    written: set[str] = set()
    roots = [handler.body] + [stmt for stmt in block.body if stmt is not try_node]
    for root in roots:
        for n in iter_nodes(root):
            if isinstance(n, cst.Assign):
                written.update(k for k in (dotted(t.target) for t in n.targets) if k)
                for t in n.targets:
                    if isinstance(t.target, (cst.Tuple, cst.List)):
                        written.update(k for k in (dotted(e.value) for e in t.target.elements) if k)
            elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
                key = dotted(n.target)
                if key:
                    written.add(key)
            elif isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value in _CONSUMERS:
                key = dotted(n.func.value)
                if key:
                    written.add(key)
    roots_written = {k.split(".", 1)[0] for k in written if "." in k}
    for n in iter_nodes(try_node.body):
        if isinstance(n, (cst.Name, cst.Attribute)) and dotted(n) in written:
            return True
        if isinstance(n, cst.Call) and dotted(n.func) == "next":
            return True  # each attempt takes the next item: iteration, not a retry
        if isinstance(n, cst.Arg) and isinstance(n.value, cst.Name) and n.value.value in roots_written:
            return True  # the call is handed the object whose state the loop changed (fromtarfile(self))
    return False
