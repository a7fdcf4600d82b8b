"""BND301 log-storm-in-loop: a log line per failed iteration of an unbounded loop."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.context import Context, Loop
from boundlint.analysis.logging_calls import describe, log_call, rate_limited, stdout_print
from boundlint.analysis.storms import handler_loop, loop_source
from boundlint.analysis.failure_results import failure_branch, per_item_severity
from boundlint.analysis.facts.dependency import NO, caught, reaches
from boundlint.analysis.facts.placement import tried_body
from boundlint.rules.amplification.log_storms import _LOGGERS_DOC, _LOOP_LOG_PREFILTER, _OPTIONS_DOC, loop_storms, result_loop
from boundlint.rules.amplification.retry_without_backoff import spinning_retry
from boundlint.rules.base import Example, Rule


def _loop_text(loop: Loop) -> str:
    source = loop_source(loop)
    return f"`{source}`" if loop.kind == "while" else f"a loop over `{source}`"


class LogStormInLoop(Rule):
    __doc__ = """
    ## What it does
    Flags a log call at warning level or above in an `except` handler inside a
    `for` / `async for` / `while` loop over an unbounded source: the handler
    writes one log line per failed iteration.  The same outside `except`,
    under an `if` on a dependency's failed *result*: an exception that
    `gather(..., return_exceptions=True)` returned
    (`if isinstance(r, Exception)`), a task's `exception()`, an HTTP error
    status (`resp.status_code == 429`, `>= 500`, `not resp.ok`, the `else`
    of `if resp.is_success`), a full queue or buffer (`if outbox.full()`).
    In a loop that spins (BND303's finding) a plain `print(...)` counts too.

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
    - a `raise`, `return` or `break` right after the log call, also in an
      enclosing block inside the loop (a cleanup's log in a handler that
      then re-raises): the error leaves the loop, so it is logged once;
    - a handler that sets a name the `while` condition needs to a falsy
      constant (`while running and ...:` ... `running = False`,
      `response = None`): the loop ends at its first failure;
    - a retry or fallback loop that stops at its first success: its
      attempts are few, unless it is an endless retry that goes straight
      back to the failing call (BND303's finding), which logs once per spin;
    - a pause on the failing path: `time.sleep` / `asyncio.sleep` / anyio /
      trio sleep of at least 0.1 s (or of a computed delay), or
      `Event.wait(timeout)` (`stop_event.wait(interval)`), in the handler,
      the `finally`, the loop's test, the `try`'s first statement, or the
      loop body before or after the `try`, or an iterator that backs off
      before each round (`async for ws in websockets.connect(uri)`,
      tenacity's `Retrying`), or a reconnect given its retry policy, which
      backs off while the connection fails (`conn.ensure_connection(errback,
      retries)`, table `reconnect-calls`), so the loop writes at most a few
      lines a second.  A pause only on the success path is none: at the end of the
      `try`, in its `else`, after a handler that `continue`s, or under an
      `if` that holds only when the `try` answered (`if resp is not None`);
    - for a failed result: a loop over the results of a fixed fan-out
      (`gather(a(), b(), return_exceptions=True)`), a loop over a literal,
      a counter or once-only guard, a `break` / `return` / `raise` after the
      log call, a pause in the branch; a check of local data
      (`if not row.get("id")`) is no failed result;
    - a counted loop: `while n < limit` with `n += 1`, or a countdown
      `while ttl > 0` with `ttl -= 1`;
    - a loop that waits for a person each time (`input()`, `getpass()`,
      `prompt()`): a REPL writes one line per failed command;
    - a rate-limited logger or helper (see Options);
    - `debug` / `info` levels, and logging after the loop;
    - a module of a `migrations` package: a data migration runs once per
      deployment, and a line per bad row is its report.

    Found at `low` severity (hidden by default; `--min-severity low` shows it):
    - a handler that catches only errors of the item's own work or
      verdicts on it (the `per-item-errors` table: `ValueError`,
      `KeyError`, `*NotFound`, `PermissionError`, `*Forbidden`,
      `*Blocked` ...): an outage raises something it does not catch, so
      it logs once per bad item, not once per item in an outage.
    - a `try` whose every dependency call fails inside an inner `try`
      that catches everything (a bare `except`, `except Exception`) and
      does not raise again, in the same function or in a project
      function it calls, in any module (a helper that logs and returns
      `None` when its request fails): the handler never sees the
      dependency fail, and the helper's own log line is judged where it
      is.  A call of a method the class leaves to its subclasses
      (`await self._handle(batch)` where `_handle` is an
      `@abstractmethod`, or only `...` / `raise NotImplementedError`) is
      judged by the project's overrides of it, in any module: low when
      every override absorbs its dependency's failures this way (or
      reaches none); one that lets a failure out keeps the finding.  In
      a `while` loop, a poll elsewhere in the pass (`item = await
      self._get_item()` before the `try`) is in the work judged only
      while the handler's own `try` is not shown to keep every
      dependency failure from it.
    - a loop over a collection that configuration, the installation or the
      code fixes: a settings object, a name that is or ends with a
      `bounded-names` entry (`caps.resolved_callbacks`), a read of the
      registry of a configured kind (`callback_manager.get_loggers()`), a web
      application's shared state (`request.app.state.MODELS`, unless the
      project stores request input in it), the
      results of a signal's `send(...)` (one per installed receiver), the
      keys of data a schema validated (a serializer's `validated_data`,
      `model.model_dump()`), and what is derived from one: a comprehension,
      `tuple` / `sorted` / `reversed` / `filter` of it, a helper's return,
      a parameter every caller in the project fills with one (also through a
      local bound only to one or to a literal of a few entries, or through
      its own parameter a few callers up), the results of a `gather`
      over one, a list filled in a loop over one.
    - a catch-all handler (`except Exception`) after a handler of the same
      `try` that catches every failure of the dependency (the
      `dependency-outage-errors` table: a driver's or client's base error
      such as `sqlalchemy.exc.DBAPIError`, `httpx.HTTPError`,
      `ConnectionError`) and raises it again: an outage never reaches the
      catch-all, which logs per bad item.  An error status alone
      (`aiohttp.ClientResponseError`) leaves the connection errors to it.
    - a `try` whose work is shown to reach no dependency: the project's own
      functions and methods are read, also a method called through its
      class (`Job._reset(row)`) or on an object whose class the code shows
      (a module instance `REGISTRY = Registry()`, a local or parameter
      annotated with a class or built by one, `path: Path`,
      `p = Path(x)`; an element of a container whose annotation names the
      element type, `g = self._groups.get(key)` with
      `self._groups: dict[str, Group]` in the class, `for layer in layers`
      with `layers: Sequence[Layer]`), in this module or another; a standard-library
      object's method is local work.  A handler that catches `OSError` /
      `IOError` / `EnvironmentError` (the `local-io-errors` table) shows a
      dependency only when the `try` is not shown to work on local files
      alone (`os.remove(path)` raises it too); socket and connection
      errors always do.  A receiver's name says it is a client only by a
      product word anywhere in it (`redis`, `s3`, `db`, `http`: the
      `dependency-receivers` table) or a role word as its last word
      (`self.http_client`, `upstream`: `dependency-receiver-roles`), so
      `group.upstream_ids.update(...)` is a set's update.  Building a
      class of a client package that is no client constructor (a timeout
      such as `httpx.Timeout(...)`, an error) does no I/O.  A coroutine
      handed to a task of its own (`asyncio.create_task(self.run(job))`)
      fails in that task, not here, unless the same work waits on a task
      (`await task`, `gather`, `wait`).  A local that copies an attribute
      of `self` (`jobs = self._jobs`) is what the attribute is, and one
      built by a standard-library object (`ctx.Queue()` after
      `ctx = multiprocessing.get_context()`) is in-process.  A call that
      hands a helper a value shown not to be `None` (a literal,
      `grants.get(key, [])`) skips the helper's branch for `None`
      (`x if x is not None else load(key)`).  The project index knows a
      module by its name below the folder of a launcher script (the
      `launcher-scripts` table: Django's `manage.py`), as that script
      imports it.
    - a handler that catches only HTTP error responses (the
      `http-error-responses` table: `fastapi.HTTPException` ...) that the
      `try`'s work in sight raises itself, each with a 4xx status and
      outside any `except` (`raise HTTPException(status_code=403)` from an
      access check): it logs per refused item; a failing database or
      client raises its own errors, which pass it by.  One such raise
      inside an `except` (a failure turned into a response) keeps it.
    """ + _LOGGERS_DOC + _OPTIONS_DOC
    code, name = "BND301", "log-storm-in-loop"
    fix = "suggestion"  # no automatic fix: the editor shows the hint as a display-only suggestion
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
                        store.save(message)
                    except ConnectionError:
                        logger.exception("cannot store %s", message.offset)  # error: BND301 col 13
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
        if not ctx.frame.loops or _migration(ctx.path):
            return
        if not ctx.frame.handlers:
            self._failed_result(node, ctx)
            return
        log = log_call(node, ctx)
        printed = stdout_print(node, ctx) if log is None else None
        if (log is None and printed is None) or (log is not None and rate_limited(log, ctx)):
            return
        found = handler_loop(ctx)
        if found is None or found[1] is None:
            return
        handler, loop = found
        if printed is not None:
            # a plain print is output like any other only where the loop spins (BND303's finding)
            if spinning_retry(handler, ctx) is None:
                return
            shown = printed
        elif loop_storms(ctx, handler, loop):
            shown = log
        else:
            return
        self.report(node, call=shown.text, what=describe(shown), loop=_loop_text(loop), **_evidence(handler, loop, ctx))

    def _failed_result(self, node: cst.Call, ctx: Context) -> None:
        """A log call under an ``if`` on a failed result (``isinstance(r, Exception)``, a 429) in an unbounded loop."""
        log = log_call(node, ctx)
        if log is None or rate_limited(log, ctx):
            return
        branch = failure_branch(ctx)
        loop = result_loop(ctx, branch) if branch is not None else None
        if loop is not None:
            self.report(node, call=log.text, what=describe(log), loop=_loop_text(loop), volume=loop.iter,
                        reached="a failed result of a dependency call")


def _evidence(handler: cst.ExceptHandler, loop: Loop, ctx: Context) -> dict:
    """What the finding's severity is judged on: the loop's collection, the work whose failure the
    handler sees (and, for a ``while`` loop, what each pass calls, unless the handler's own ``try`` is
    shown to let no dependency's failure out: then a failing poll elsewhere in the pass never reaches
    the handler), the dependency error it catches."""
    tried = tried_body(ctx.ancestors, handler)
    work = (tried,) if tried is not None else ()
    if loop.kind == "while" and isinstance(getattr(loop.node, "body", None), cst.BaseSuite) \
            and (tried is None or reaches((tried,), list(ctx.ancestors), ctx, failures=True)[0] != NO):
        work = (*work, loop.node.body)  # the storm is per pass: what each pass calls (a consumer's poll)
    # a handler that catches only the item's own faults never sees the dependency fail
    return {"volume": loop.iter, "work": work, "reached": caught(handler, ctx),
            "severity": per_item_severity(handler, ctx)}


def _migration(path: str) -> bool:
    """A module of a ``migrations`` package (Django, Alembic ...): it runs once per deployment, not per request."""
    return "migrations" in path.replace("\\", "/").split("/")[:-1]
