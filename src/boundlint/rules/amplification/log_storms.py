"""What BND301 and BND302 share: their doc sections, text prefilters, and whether a handler's log in a loop storms."""
from __future__ import annotations

import re

import libcst as cst

from boundlint.analysis.context import Context, Loop
from boundlint.analysis.limits import iter_nodes
from boundlint.analysis.names import dotted
from boundlint.analysis.storms import loop_storm_limit
from boundlint.analysis.workers import SPAWN_RE
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
_LOGS = re.compile(r"\.\s*a?(?:warning|warn|error|exception|critical|fatal|log)\b|\bprint_exc\b|\bprint\s*\(|\bprint_exception\b|\bstderr\b")
_LOOP_LOG_PREFILTER = ("except", _LOGS, re.compile(r"\b(?:for|while)\b"))
_WORKER_LOG_PREFILTER = ("except", _LOGS, SPAWN_RE)
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
