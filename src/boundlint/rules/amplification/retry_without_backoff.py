"""BND303 retry-without-backoff: an endless retry loop that goes straight back to the failing call."""
from __future__ import annotations

import re

import libcst as cst

from boundlint.analysis.context import Context, Loop
from boundlint.analysis.limits import iter_nodes
from boundlint.analysis.names import dotted
from boundlint.analysis.pacing import skipped_pause
from boundlint.analysis.pauses import _MIN_PAUSE, paced, sleep_call
from boundlint.analysis.storms import iterations_bounded, retry_decorated, try_stops_loop
from boundlint.analysis.walk import children
from boundlint.analysis.facts.dependency import caught
from boundlint.rules.base import Example, Rule, short
from boundlint.rules.prefilter import Words

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
    with no sleep or backoff on the way.  Also the `except` of any endless
    polling or worker loop whose pause runs only on the success path: at
    the end of the `try`, in its `else`, after a handler that `continue`s,
    or under an `if` that holds only when the `try` answered (`if resp is
    not None: ...; time.sleep(30)`), also a sleep too short to pace a
    failing loop (a spin lock's `time.sleep(0.02)` between tries that runs
    only while the store answers).  When the dependency is down, each
    failed round skips the pause and the loop spins.

    A `while` loop with no `except` of its own counts too, when a project
    function it calls (in any module, also a method of `self.stream`)
    catches a dependency's error and returns at once, with no pause
    (`except ResponseError: log.error(...); return []`): the loop goes
    straight back to the failing call.  The finding is on the loop; not
    when the loop can `break`, `return` or `raise`, nor when it pauses.

    ## Why is this bad?
    A retry with no pause is a hot spin.  When the dependency is down, the
    loop calls it as fast as the CPU allows, multiplying the load on the
    failing service exactly when it needs relief, and every process doing
    the same thing makes recovery impossible (a retry storm).

    ## What counts as a limit
    - a pause on the failing path: `time.sleep`, `asyncio.sleep`,
      `anyio.sleep`, `trio.sleep` of at least 0.1 s (or of a computed delay),
      `Event.wait(timeout)` (`stop_event.wait(interval)`), a `backoff`
      helper, or a helper from another module of the project that sleeps on
      every call (the `sleeps` table names the pauses: `boundlint tables
      sleeps`), in the handler, the `finally`, the loop's test, the `try`'s
      first statement, or the loop body before or after the `try` (not
      behind a `continue`, nor under an `if` that holds only on success);
      a retry loop with no pause anywhere is the first shape, a pause that
      only the success path reaches is the second;
    - a tenacity, backoff or stamina retry decorator on the function;
    - a bounded loop (a constant `range`, a `while n < limit` counter that
      the loop increments, a `while ttl > 0` countdown), or a handler that can leave the loop (a
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
    # no `except` needed: a loop's callee in another module can answer the failure at once (`visit_While`)
    prefilter = Words("while", "count", "repeat", "cycle")
    message = "{handler} sends `{loop}` straight back to `{call}` with no sleep or backoff{skipped}"
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
        Example("pause_on_success_only", """
            import threading

            def sync_forever(client, stop: threading.Event):
                while not stop.is_set():
                    try:
                        client.sync()
                        stop.wait(60)
                    except ConnectionError:  # error: BND303 col 9
                        pass
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
        Example("pause_in_finally", """
            import threading

            def sync_forever(client, stop: threading.Event):
                while not stop.is_set():
                    try:
                        client.sync()
                    except ConnectionError:
                        pass
                    finally:
                        stop.wait(60)
            """),
    )

    def visit_ExceptHandler(self, node: cst.ExceptHandler, ctx: Context) -> None:
        found = spinning_retry(node, ctx)
        if found is not None:
            loop, call, pause = found
            error = short(node.type, 60) if node.type is not None else "BaseException"
            evidence = (f"`{short(pause)}` runs only when the `try` succeeds ({ctx.where(pause)})",) if pause is not None else ()
            skipped = f" (`{short(pause)}` runs only on success)" if pause is not None else _too_short(node, ctx)
            self.report(node, evidence, handler=f"`except {error}`", loop=_loop_head(loop), call=short(call.func) + "(...)",
                        skipped=skipped,
                        work=(call,), volume=loop.iter, reached=caught(node, ctx))

    def visit_While(self, node: cst.While, ctx: Context) -> None:
        """A loop with no ``except`` of its own whose callee answers a failure at once (``index.fails_fast``):
        ``while running: events = await stream.consume()`` where ``consume`` returns ``[]`` on an error."""
        if not ctx.project:
            return
        loop = Loop("while", node, test=node.test)  # hooks run before the walker enters the loop
        if not _endless(loop, ctx) or paced([node], ctx) or retry_decorated(ctx) or _prompts(node, ctx):
            return
        for stmt in node.body.body:
            if isinstance(stmt, cst.Try):
                return  # the loop's own handlers are judged where they are
        if any(isinstance(n, (cst.Break, cst.Return, cst.Raise)) for n in _own_exits(node.body)):
            return  # it can leave on what the callee answers (`if not rows: break`): not shown to spin
        for call in (n for stmt in node.body.body for n in iter_nodes(stmt) if isinstance(n, cst.Call)):
            ref = ctx.callee_ref(call)
            found = ctx.project.ask("fails_fast", ref) if ref is not None else None
            if found:
                callee = short(call.func).rsplit(".", 1)[-1]
                self.report(node, (found,), handler=f"the `except` in `{callee}()`", loop=_loop_head(loop),
                            call=short(call.func) + "(...)", skipped="", work=(call,), volume=loop.iter,
                            reached="a failed call it answers at once")
                return


def _own_exits(block: cst.CSTNode):
    """The nodes of *block* outside nested loops, functions and classes: where a ``break`` leaves it."""
    stack = [block]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(c for c in node.children if not isinstance(c, (cst.For, cst.While, cst.FunctionDef,
                                                                      cst.ClassDef, cst.Lambda)))


def spinning_retry(handler: cst.ExceptHandler, ctx: Context) -> tuple[Loop, cst.Call, cst.Call | None] | None:
    """``(loop, retried call, skipped pause)`` when *handler* sends an endless loop straight back to its call, else None.

    Two shapes: a retry or reconnect loop (see ``_retry_shape``) with no
    pause at all, and any endless loop (a polling or worker loop too) whose
    pauses all sit off the failing path (``pacing.skipped_pause``: at the
    end of the ``try``, in its ``else``, after a handler that ``continue``s,
    under an ``if`` that holds only on success); the third item is that
    pause, None for the first shape.  Works at the handler or anywhere
    inside it (the handler is found among ``ctx.ancestors``).
    """
    at = next((i for i in range(len(ctx.ancestors) - 1, -1, -1) if ctx.ancestors[i] is handler), len(ctx.ancestors))
    ancestors = ctx.ancestors[:at]
    loop = next((lp for lp in reversed(ctx.frame.loops) if any(a is lp.node for a in ancestors)), None)
    if loop is None or len(ancestors) < 3:
        return None
    try_node, block = ancestors[-1], ancestors[-2]
    if ancestors[-3] is not loop.node or getattr(loop.node, "body", None) is not block:
        return None  # the try is not a statement of the loop body
    if not _endless(loop, ctx) or not isinstance(try_node, cst.Try):
        return None
    if _handler_leaves(handler) or _waiting_error(handler) or _prompts(loop.node, ctx) or _changes_attempt(handler, try_node, block):
        return None
    call = next((n for n in iter_nodes(try_node.body) if isinstance(n, cst.Call)), None)
    if call is None or retry_decorated(ctx):
        return None
    if not paced([loop.node], ctx) and _retry_shape(loop, try_node):
        return loop, call, None
    pause = skipped_pause(loop, try_node, handler, ctx)
    return (loop, call, pause) if pause is not None else None


def _endless(loop: Loop, ctx: Context) -> bool:
    if loop.kind == "while":
        return iterations_bounded(loop, ctx) is None
    if loop.kind == "for" and isinstance(loop.iter, cst.Call):
        name = ctx.qualname(loop.iter.func) or ""
        return name in _ENDLESS_ITERS and not (name == "itertools.repeat" and len(loop.iter.args) > 1)
    return False


def _too_short(handler: cst.ExceptHandler, ctx: Context) -> str:
    """`` that paces it: its `time.sleep(0.01)` pauses 0.01 s, less than 0.1 s`` when *handler* sleeps for
    a constant too short to count as a pause; "" otherwise."""
    for node in iter_nodes(handler.body):
        if isinstance(node, cst.Call) and sleep_call(node, ctx):
            args = [a for a in node.args if a.star == ""]
            if args and isinstance(args[0].value, (cst.Integer, cst.Float)):
                seconds = float(args[0].value.value.replace("_", ""))
                if seconds < _MIN_PAUSE:
                    return f" that paces it: its `{short(node)}` pauses {seconds:g} s, less than {_MIN_PAUSE:g} s"
    return ""


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
    written -= _results(try_node.body)  # `resp = None` before `try: resp = get()` resets a result, not an input
    for n in iter_nodes(try_node.body):
        if isinstance(n, (cst.Name, cst.Attribute)) and dotted(n) in written:
            return True
        if isinstance(n, cst.Call) and dotted(n.func) == "next":
            return True  # each attempt takes the next item: iteration, not a retry
        if isinstance(n, cst.Arg) and isinstance(n.value, cst.Name) and n.value.value in roots_written:
            return True  # the call is handed the object whose state the loop changed (fromtarfile(self))
    return False


def _results(block: cst.CSTNode) -> set[str]:
    """Names that *block* only assigns (``resp = get()``) and never reads: what the attempt produces, not its input."""
    targets: set[int] = set()
    bound: set[str] = set()
    for n in iter_nodes(block):
        if isinstance(n, cst.Assign):
            for t in n.targets:
                if isinstance(t.target, cst.Name):
                    targets.add(id(t.target))
                    bound.add(t.target.value)
    read = {n.value for n in iter_nodes(block) if isinstance(n, cst.Name) and id(n) not in targets}
    return bound - read
