"""What BND301 and BND302 share: their doc sections, text prefilters, and whether a handler's log in a loop storms."""
from __future__ import annotations

import re

import libcst as cst

from boundlint.analysis.context import Context, Loop
from boundlint.analysis.limits import iter_nodes
from boundlint.analysis.names import dotted
from boundlint.analysis.failure_results import FailureBranch, fanout_results_bounded
from boundlint.analysis.pauses import paced
from boundlint.analysis.storms import exits_after, guarded, iterations_bounded, loop_storm_limit
from boundlint.rules.prefilter import AnyOf, Literals, Words
from boundlint.rules.amplification.retry_without_backoff import _PROMPTS, spinning_retry

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
_LOGS = AnyOf(re.compile(r"\.\s*a?(?:warning|warn|error|exception|critical|fatal|log)\b"),
              Words("print_exc", "print_exception", "stderr"), Words("print", after=r"\s*\("))
# A failure a handler catches, or a failed result an `if` tests (failure_results): isinstance, a status, a full buffer.
_FAILURE = AnyOf(Words("except", "isinstance"), Literals(".exception(", "status", "full"), re.compile(r"\.ok\b"),
                 Words("is_", after=r"\w*error\b"))
_LOOP_LOG_PREFILTER = (_FAILURE, _LOGS, Words("for", "while"))
# The worker can be run per item from another module (``per_item_through``): no per-item word is needed here.
_WORKER_LOG_PREFILTER = (_FAILURE, _LOGS)
_OPTIONS_DOC = """
    ## Options
    In `[tool.boundlint.amplification]`: `logger-names` adds logger names;
    `rate-limited-loggers` lists loggers or helpers (as written, e.g.
    `throttled_log`, or by qualified name) that rate-limit what they write.
"""


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


def result_loop(ctx: Context, branch: FailureBranch) -> Loop | None:
    """The unbounded loop in which *branch* (an ``if`` on a failed result) logs once per failed iteration, or None.

    The innermost loop of the function around the ``if`` that runs an
    unbounded number of times and does not walk the results of a fixed
    fan-out (``gather(a(), b())``); None when a counter, sampling or
    once-only guard, an exit right after the log call, or a pause in the
    branch or among the loop body's statements limits it, or when each
    iteration waits for a person.
    """
    at = _index(ctx, branch.node)
    for loop in reversed(ctx.frame.loops):
        anchor = loop.owner if loop.kind == "comp" and loop.owner is not None else loop.node
        if _index(ctx, anchor) >= at:
            continue
        if iterations_bounded(loop, ctx) is not None or fanout_results_bounded(loop, ctx):
            return None
        if guarded(ctx, loop.node, loop.node) or exits_after(ctx, branch.node):
            return None
        taken = branch.node.body if branch.in_body else branch.node.orelse
        body = getattr(loop.node, "body", None)
        top = [s for s in body.body if isinstance(s, cst.SimpleStatementLine)] if isinstance(body, cst.IndentedBlock) else []
        if paced([taken, *top], ctx) or _waits_for_user(loop.node, ctx):
            return None
        return loop
    return None


def _index(ctx: Context, node: cst.CSTNode) -> int:
    for i in range(len(ctx.ancestors) - 1, -1, -1):
        if ctx.ancestors[i] is node:
            return i
    return -1


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
