"""Recognising log calls, and judging when logging a failure per iteration is a log storm.

``log_call(call, ctx)`` says whether a call writes a log line at warning
level or above, and through what.  Loggers are recognised by how they were
made (``logging.getLogger``, ``structlog.get_logger``, ``loguru.logger``,
``getChild`` / ``bind`` on a logger), by conventional names (``logger``,
``log``, ``LOG``, ``_logger``, ``self.logger`` ... and any name ending in
``logger``) and by the ``logger-names`` option; never by a name that merely
starts with "log" (``self.login_task.exception()`` is not a log call).

The storm judgement shared by BND301/BND302 and the backoff judgement of
BND303 live here too: counter and sampling guards, an exit right after the
log, a sleep that paces the loop, a retry decorator.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.names import dotted

# Names a logger conventionally goes by (bare or as ``self.<name>``); any name ending in "logger" counts too.
DEFAULT_LOGGER_NAMES = ("logger", "log", "LOG", "LOGGER", "_logger", "_log", "_LOGGER", "_LOG", "logs", "_logs")
# Names of loggers or helpers that rate-limit what they write; the `rate-limited-loggers` option adds more.
DEFAULT_RATE_LIMITED_LOGGERS: tuple[str, ...] = ()
LOGGER_FACTORIES = frozenset({
    "logging.getLogger", "logging.LoggerAdapter", "logging.Logger", "logging.getLoggerClass",
    "structlog.get_logger", "structlog.getLogger", "structlog.wrap_logger", "structlog.stdlib.get_logger",
    "celery.utils.log.get_task_logger", "celery.utils.log.get_logger", "logbook.Logger",
    "twisted.logger.Logger", "loguru.logger",
})
# A call to any of these (whatever module provides it) makes a logger.
_FACTORY_SHORTS = frozenset({"getLogger", "get_logger", "get_task_logger", "get_run_logger", "getChild", "LoggerAdapter"})
# Methods of a logger that return a logger.
_CHAIN_METHODS = frozenset({"bind", "opt", "new", "getChild", "patch", "contextualize", "with_fields", "bind_contextvars"})
LOGGING_MODULES = frozenset({"logging", "absl.logging", "loguru.logger", "structlog"})
WARNING_METHODS = frozenset({
    "warning", "warn", "error", "exception", "critical", "fatal",
    "awarning", "aerror", "aexception", "acritical", "afatal",  # structlog's async methods
})
_LEVEL_NAMES = frozenset({"WARNING", "WARN", "ERROR", "CRITICAL", "FATAL"})
_RATE_WORDS = ("ratelimit", "rate_limit", "throttl", "sampled", "every_n", "first_n", "once")

SLEEPS = frozenset({
    "time.sleep", "asyncio.sleep", "anyio.sleep", "trio.sleep", "gevent.sleep", "eventlet.sleep",
    "eventlet.greenthread.sleep", "anyio.sleep_until", "trio.sleep_until", "trio.sleep_forever",
})
_MIN_PAUSE = 0.1  # seconds: a shorter constant sleep does not pace a failing loop
_RETRY_DECORATOR_MODULES = ("tenacity", "backoff", "stamina", "retrying", "retry", "async_retrying", "aioretry")
_RETRY_DECORATOR_NAMES = frozenset({"retry", "on_exception", "on_predicate", "retry_async", "retry_context", "retrying"})
_MUTATORS = frozenset({"add", "append", "update", "setdefault", "incr", "increment", "inc", "discard", "remove", "clear"})


@dataclass(frozen=True)
class LogCall:
    """A log line at warning level or above: ``level`` (``warning``, ``error``, ``stderr`` ...), ``text`` for messages."""

    node: cst.Call
    level: str
    text: str


def _option(ctx: Context, name: str, default: Iterable[str]) -> frozenset[str]:
    value = ctx.settings.option(name, None)
    if isinstance(value, str):
        value = [v.strip() for v in value.split(",") if v.strip()]
    return frozenset(default) | frozenset(value or ())


def logger_names(ctx: Context) -> frozenset[str]:
    """The conventional logger names plus the ``logger-names`` option."""
    cached = ctx.cache.get("logging_calls.names")
    if cached is None:
        cached = ctx.cache["logging_calls.names"] = _option(ctx, "logger-names", DEFAULT_LOGGER_NAMES)
    return cached  # type: ignore[return-value]


def rate_limited_names(ctx: Context) -> frozenset[str]:
    """Rate-limited loggers and helpers: the ``rate-limited-loggers`` option."""
    cached = ctx.cache.get("logging_calls.rate_limited")
    if cached is None:
        cached = ctx.cache["logging_calls.rate_limited"] = _option(ctx, "rate-limited-loggers", DEFAULT_RATE_LIMITED_LOGGERS)
    return cached  # type: ignore[return-value]


def _call_name(call: cst.Call, ctx: Context) -> str:
    return ctx.qualname(call.func) or dotted(call.func) or ""


def _named_logger(name: str, ctx: Context) -> bool:
    return name in logger_names(ctx) or name.lower().endswith("logger")


def _rate_limited_value(value: cst.BaseExpression, ctx: Context) -> bool:
    if isinstance(value, cst.Call):
        name = _call_name(value, ctx)
        short = name.rsplit(".", 1)[-1].lower()
        return name in rate_limited_names(ctx) or any(w in short for w in _RATE_WORDS)
    return False


def _bound_values(expr: cst.BaseExpression, ctx: Context) -> list[cst.BaseExpression]:
    if isinstance(expr, cst.Name):
        bound = ctx.lookup(expr.value)
        return [v for v in bound[1] if v is not None] if bound else []
    if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value in ("self", "cls"):
        return list(ctx.attr_values(expr.attr.value))
    return []


def is_logger(expr: cst.BaseExpression, ctx: Context, depth: int = 0) -> bool:
    """True when *expr* is a logger (or the ``logging`` module), judged by construction, then by name."""
    if depth > 3:
        return False
    q = ctx.qualname(expr)
    if q is not None and (q in LOGGING_MODULES or q in LOGGER_FACTORIES):
        return True
    if isinstance(expr, cst.Call):
        func = expr.func
        name = _call_name(expr, ctx)
        if name in LOGGER_FACTORIES or name.rsplit(".", 1)[-1] in _FACTORY_SHORTS:
            return True
        if isinstance(func, cst.Attribute) and func.attr.value in _CHAIN_METHODS:
            return is_logger(func.value, ctx, depth + 1)
        return False
    values = _bound_values(expr, ctx)
    for value in values:
        if isinstance(value, cst.Call) and is_logger(value, ctx, depth + 1):
            return True
    if isinstance(expr, cst.Name):
        return _named_logger(expr.value, ctx)
    if isinstance(expr, cst.Attribute):
        return _named_logger(expr.attr.value, ctx)
    return False


def _level_at_least_warning(expr: cst.BaseExpression, ctx: Context) -> bool:
    if isinstance(expr, cst.Integer):
        return int(expr.value, 0) >= 30
    name = dotted(expr) or ""
    return name.rsplit(".", 1)[-1] in _LEVEL_NAMES


def _receiver_text(expr: cst.BaseExpression) -> str:
    return dotted(expr) or (dotted(expr.func) + "(...)" if isinstance(expr, cst.Call) and dotted(expr.func) else "<logger>")


def log_call(call: cst.Call, ctx: Context) -> LogCall | None:
    """The warning-or-above log line *call* writes, or None.

    Counts ``<logger>.warning/warn/error/exception/critical/fatal(...)``,
    ``<logger>.log(level, ...)`` with a level of WARNING or more, the same
    on the ``logging`` module, ``traceback.print_exc()`` /
    ``print_exception()`` and ``print(..., file=sys.stderr)``.
    """
    func = call.func
    if isinstance(func, cst.Name):
        if func.value == "print" and ctx.names.resolve_name("print") is None:
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "file":
                    if (ctx.qualname(arg.value) or "") == "sys.stderr":
                        return LogCall(call, "stderr", "print(..., file=sys.stderr)")
            return None
    q = ctx.qualname(func)
    if q in ("traceback.print_exc", "traceback.print_exception"):
        return LogCall(call, "traceback", q + "()")
    if not isinstance(func, cst.Attribute):
        return None
    method = func.attr.value
    if method in WARNING_METHODS:
        level = method[1:] if method.startswith("a") else method
        level = "error" if level == "exception" else level
    elif method in ("log", "alog"):
        positional = [a for a in call.args if a.keyword is None and a.star == ""]
        level_arg = positional[0].value if positional else next(
            (a.value for a in call.args if a.keyword is not None and a.keyword.value == "level"), None)
        if level_arg is None or not _level_at_least_warning(level_arg, ctx):
            return None
        level = (dotted(level_arg) or "warning").rsplit(".", 1)[-1].lower()
    else:
        return None
    if not is_logger(func.value, ctx):
        return None
    return LogCall(call, level, f"{_receiver_text(func.value)}.{method}(...)")


def rate_limited(log: LogCall, ctx: Context) -> bool:
    """True when the call goes through a rate-limited logger or helper (by option or by construction)."""
    func = log.node.func
    names = rate_limited_names(ctx)
    if isinstance(func, cst.Attribute):
        receiver = func.value
        for text in (dotted(receiver), ctx.qualname(receiver)):
            if text and text in names:
                return True
        if any(_rate_limited_value(v, ctx) for v in _bound_values(receiver, ctx)):
            return True
        if isinstance(receiver, cst.Call) and _rate_limited_value(receiver, ctx):
            return True
    for text in (dotted(func), ctx.qualname(func)):
        if text and text in names:
            return True
    return False


# -- where the log call sits ---------------------------------------------------------

def _index(ctx: Context, node: cst.CSTNode) -> int:
    ancestors = ctx.ancestors
    for i in range(len(ancestors) - 1, -1, -1):
        if ancestors[i] is node:
            return i
    return -1


def _loop_anchor(loop: Loop) -> cst.CSTNode:
    return loop.owner if loop.kind == "comp" and loop.owner is not None else loop.node


def iterations_bounded(loop: Loop, ctx: Context) -> str | None:
    """Why *loop* runs a bounded number of iterations, or None.

    The shared ``limits.loop_limit`` judgement, except that fixed-size
    batches bound concurrency, not the number of iterations; a ``while``
    counter compared with a configured maximum and incremented in the loop
    is a counted retry; an UPPER_CASE name is a constant of the code, a
    name bound to ``a if cond else b`` is bounded when both are,
    ``hooks or []`` when ``hooks`` is, a class built from a literal
    (``OrderedSet([a, b])``) is as long as the literal, and a listing of
    the package's own directory (``os.listdir(os.path.dirname(__file__))``)
    is fixed by the install.
    """
    found = limits.loop_limit(loop, ctx)
    if found == "fixed-size batches":
        return None
    if found is not None:
        return found
    if loop.kind == "while" and _counted(loop):
        return "a counted retry"
    source = loop.iter
    if isinstance(source, cst.BooleanOperation) and isinstance(source.operator, cst.Or):
        left = limits.source_limit(source.left, ctx) or _constant_name(source.left, ctx)
        if left and limits.source_limit(source.right, ctx):
            return left  # hooks or []
    found = _constant_name(source, ctx) or _wrapped_literal(source, ctx) or _own_files(source, ctx)
    if found:
        return found
    if isinstance(source, cst.Name):
        bound = ctx.lookup(source.value)
        value = bound[1][-1] if bound and bound[1] else None
        if isinstance(value, cst.IfExp) and limits.source_limit(value.body, ctx) and limits.source_limit(value.orelse, ctx):
            return "a literal"
    return None


_DIR_LISTERS = frozenset({"os.walk", "os.listdir", "os.scandir", "glob.glob", "glob.iglob", "pkgutil.iter_modules", "pkgutil.walk_packages"})
_PATH_LISTERS = frozenset({"iterdir", "glob", "rglob", "walk"})


def _wrapped_literal(source: cst.BaseExpression | None, ctx: Context) -> str | None:
    """``OrderedSet([a, b])``, ``deque((x, y))``: a class built from one literal has the literal's size."""
    if isinstance(source, cst.Call) and len(source.args) == 1 and source.args[0].keyword is None and source.args[0].star == "":
        name = (dotted(source.func) or "").rsplit(".", 1)[-1]
        if name[:1].isupper() and limits.source_limit(source.args[0].value, ctx) == "a literal":
            return "a literal"
    return None


def _own_files(source: cst.BaseExpression | None, ctx: Context) -> str | None:
    """A listing of the package's own directory (a path built from ``__file__`` / ``__path__``): fixed by the install."""
    if not isinstance(source, cst.Call):
        return None
    name = ctx.qualname(source.func) or ""
    if name in _DIR_LISTERS:
        roots = [a.value for a in source.args]
    elif isinstance(source.func, cst.Attribute) and source.func.attr.value in _PATH_LISTERS:
        roots = [source.func.value]
    else:
        return None
    return "the package's own files" if any(_from_module_path(r, ctx, 0) for r in roots) else None


def _from_module_path(expr: cst.BaseExpression, ctx: Context, depth: int) -> bool:
    if depth > 4:
        return False
    for node in _nodes(expr):
        if isinstance(node, cst.Name):
            if node.value in ("__file__", "__path__"):
                return True
            bound = ctx.lookup(node.value)
            if bound is not None and any(v is not None and _from_module_path(v, ctx, depth + 1) for v in bound[1]):
                return True
    return False


def _constant_name(source: cst.BaseExpression | None, ctx: Context) -> str | None:
    if isinstance(source, (cst.Name, cst.Attribute)):
        name = source.value if isinstance(source, cst.Name) else source.attr.value
        if _upper(name) and (not isinstance(source, cst.Name) or ctx.lookup_param(name) is None):
            return "a constant"
    return None


def _upper(name: str) -> bool:
    stripped = name.strip("_")
    return bool(stripped) and stripped.upper() == stripped and any(c.isalpha() for c in stripped)


def _counted(loop: Loop) -> bool:
    test = loop.test
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    op = test.comparisons[0].operator
    if isinstance(op, (cst.LessThan, cst.LessThanEqual)):
        key = dotted(test.left)
    elif isinstance(op, (cst.GreaterThan, cst.GreaterThanEqual)):
        key = dotted(test.comparisons[0].comparator)
    else:
        return False
    return key is not None and key in _augmented(loop.node)


def handler_loop(ctx: Context) -> tuple[cst.ExceptHandler, Loop | None] | None:
    """``(innermost except handler, innermost unbounded loop around it)``; None outside a handler."""
    handlers = ctx.frame.handlers
    if not handlers:
        return None
    handler = handlers[-1]
    at = _index(ctx, handler)
    for loop in reversed(ctx.frame.loops):
        if _index(ctx, _loop_anchor(loop)) < at and iterations_bounded(loop, ctx) is None:
            return handler, loop
    return handler, None


def loop_source(loop: Loop) -> str:
    """The loop's iterated expression (or ``while <test>``) for messages, at most 40 characters."""
    if loop.iter is not None:
        return _short(loop.iter)
    return "while " + _short(loop.test) if loop.test is not None else "a loop"


def _short(node: cst.CSTNode, limit: int = 40) -> str:
    code = " ".join(cst.Module(body=[]).code_for_node(node).split())
    return code if len(code) <= limit else code[: limit - 3] + "..."


# -- guards --------------------------------------------------------------------------

def _nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    return limits.iter_nodes(node)


def _key(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Subscript):
        return dotted(expr.value)
    return dotted(expr)


def _augmented(root: cst.CSTNode) -> set[str]:
    """Keys of ``x += ...`` / ``self.n += ...`` / ``counts[k] += ...`` under *root*, and ``x = x + 1``."""
    out = set()
    for node in _nodes(root):
        if isinstance(node, cst.AugAssign):
            key = _key(node.target)
            if key:
                out.add(key)
        elif isinstance(node, cst.Assign) and isinstance(node.value, cst.BinaryOperation):
            for target in node.targets:
                key = _key(target.target)
                if key and key in (dotted(node.value.left), dotted(node.value.right)):
                    out.add(key)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("incr", "increment", "inc"):
            key = dotted(node.func.value)
            if key:
                out.add(key)
    return out


def _changed(root: cst.CSTNode) -> set[str]:
    """Keys assigned, augmented or mutated (``seen.add(k)``, ``warned[k] = True``) under *root*."""
    out = _augmented(root)
    for node in _nodes(root):
        if isinstance(node, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                key = _key(target)
                if key:
                    out.add(key)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _MUTATORS:
            key = dotted(node.func.value)
            if key:
                out.add(key)
    return out


def _test_keys(test: cst.BaseExpression) -> set[str]:
    out = set()
    for node in _nodes(test):
        if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)):
            key = _key(node)
            if key:
                out.add(key)
    return out


def _compared_keys(test: cst.BaseExpression) -> set[str]:
    out = set()
    for node in _nodes(test):
        if isinstance(node, cst.Comparison):
            for operand in (node.left, *(c.comparator for c in node.comparisons)):
                key = _key(operand)
                if key:
                    out.add(key)
    return out


def guard_kind(test: cst.BaseExpression, body: cst.CSTNode, scope_root: cst.CSTNode, ctx: Context) -> str | None:
    """Why an ``if`` with *test* and *body* keeps a log line from repeating, or None.

    ``a sampling guard``: a modulo (``i % 100 == 0``) or a ``random`` call;
    ``a counter guard``: a comparison on a name incremented under
    *scope_root* (``errors += 1 ... if errors < N``); ``a once-only flag``:
    a name the branch itself sets or adds to (``if not warned: warned = True``,
    ``if key not in seen: seen.add(key)``).
    """
    for node in _nodes(test):
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
            return "a sampling guard"
        if isinstance(node, cst.Call) and (ctx.qualname(node.func) or dotted(node.func) or "").startswith("random."):
            return "a sampling guard"
    compared = _compared_keys(test)
    if compared and compared & _augmented(scope_root):
        return "a counter guard"
    if _test_keys(test) & _changed(body):
        return "a once-only flag"
    return None


def _path(ctx: Context, start: int) -> list[cst.CSTNode]:
    return ctx.ancestors[start + 1:] if start >= 0 else list(ctx.ancestors)


def guarded(ctx: Context, start: cst.CSTNode, scope_root: cst.CSTNode) -> str | None:
    """A counter, sampling or once-only guard on an ``if`` between *start* and the current node."""
    for node in _path(ctx, _index(ctx, start)):
        if isinstance(node, cst.If):
            found = guard_kind(node.test, node, scope_root, ctx)
            if found:
                return found
    return None


def _leaves(stmt: cst.CSTNode, ctx: Context) -> bool:
    """True for a statement that leaves the loop: ``raise``, ``return``, ``break``, ``sys.exit()``."""
    if isinstance(stmt, cst.SimpleStatementLine):
        return any(_leaves(s, ctx) for s in stmt.body)
    if isinstance(stmt, (cst.Raise, cst.Return, cst.Break)):
        return True
    if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
        name = _call_name(stmt.value, ctx)
        return name in ("sys.exit", "os._exit", "exit", "quit", "os.abort")
    return False


def exits_after(ctx: Context, handler: cst.ExceptHandler) -> bool:
    """True when the current node's statement is followed, in the handler, by a ``raise`` / ``return`` / ``break``."""
    path = _path(ctx, _index(ctx, handler))
    for i in range(len(path) - 1, 0, -1):
        node, parent = path[i], path[i - 1]
        if isinstance(node, (cst.For, cst.While)):
            return False  # a break there would leave only the inner loop
        if isinstance(node, cst.BaseSmallStatement) and isinstance(parent, cst.SimpleStatementLine):
            siblings = list(parent.body)
        elif isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            siblings = list(parent.body)
        else:
            continue
        try:
            at = next(j for j, s in enumerate(siblings) if s is node)
        except StopIteration:
            continue
        if any(_leaves(s, ctx) for s in siblings[at + 1:]):
            return True
    return False


def pause_call(call: cst.Call, ctx: Context) -> bool:
    """True for a call that waits before the next attempt.

    A sleep of at least 0.1 s or of a computed length, ``Event.wait(timeout)``
    and other ``wait...(timeout)`` methods, ``asyncio.wait_for``.
    """
    name = _call_name(call, ctx)
    short = name.rsplit(".", 1)[-1]
    if name in SLEEPS or short in ("sleep", "_sleep", "sleep_until", "backoff", "_backoff", "wait_backoff"):
        args = [a for a in call.args if a.star == ""]
        if not args:
            return True
        value = args[0].value
        if isinstance(value, (cst.Integer, cst.Float)):
            return float(value.value.replace("_", "")) >= _MIN_PAUSE
        return True
    if short.startswith("wait") and isinstance(call.func, cst.Attribute):
        # Event.wait(timeout), Condition.wait(timeout), pool.wait_for_connection(timeout=...)
        return any(a.star == "" for a in call.args)
    if name in ("asyncio.wait_for", "anyio.fail_after", "anyio.move_on_after"):
        return True
    return False


def paced(nodes: Iterable[cst.CSTNode], ctx: Context) -> bool:
    """True when a pause (see ``pause_call``) runs somewhere under *nodes* (nested defs excluded)."""
    for root in nodes:
        for node in _nodes(root):
            if isinstance(node, cst.Call) and pause_call(node, ctx):
                return True
    return False


def loop_pacing(loop: Loop, handler: cst.ExceptHandler, ctx: Context) -> bool:
    """True when a failed iteration of *loop* waits: a pause in *handler*, in the loop's test, among the loop body's own statements, first in the ``try`` or in its ``finally``."""
    if paced([handler.body], ctx):
        return True
    if loop.test is not None and paced([loop.test], ctx):
        return True
    body = getattr(loop.node, "body", None)
    if body is None:
        return False
    top = [s for s in body.body if isinstance(s, cst.SimpleStatementLine)] if isinstance(body, cst.IndentedBlock) else [body]
    # the first statement of the handler's try runs before anything in it can fail
    try_node = next((a for a in ctx.ancestors if isinstance(a, cst.Try) and handler in a.handlers), None)
    if try_node is not None and isinstance(try_node.body, cst.IndentedBlock) and try_node.body.body:
        first = try_node.body.body[0]
        if isinstance(first, cst.SimpleStatementLine):
            top.append(first)
    if try_node is not None and try_node.finalbody is not None:
        top.append(try_node.finalbody)  # runs after every attempt
    return paced(top, ctx)


def retry_decorated(ctx: Context) -> bool:
    """True when the enclosing function carries a tenacity / backoff / stamina retry decorator."""
    scope = ctx.scope.function()
    node = scope.node if scope is not None else None
    if not isinstance(node, cst.FunctionDef):
        return False
    for deco in node.decorators:
        expr = deco.decorator.func if isinstance(deco.decorator, cst.Call) else deco.decorator
        name = ctx.qualname(expr) or dotted(expr) or ""
        if name.split(".", 1)[0] in _RETRY_DECORATOR_MODULES or name.rsplit(".", 1)[-1] in _RETRY_DECORATOR_NAMES:
            return True
    return False


def function_node(ctx: Context) -> cst.CSTNode | None:
    """The innermost function or lambda being visited, or None at module or class level."""
    scope = ctx.scope.function()
    return scope.node if scope is not None else None


def describe(log: LogCall) -> str:
    """What the call writes, for messages: ``logs an error``, ``prints a traceback`` ..."""
    if log.level == "stderr":
        return "writes to stderr"
    if log.level == "traceback":
        return "prints a traceback"
    if log.level in ("warning", "warn"):
        return "logs a warning"
    if log.level in ("critical", "fatal"):
        return "logs a critical error"
    return "logs an error"


def loop_storm_limit(ctx: Context, handler: cst.ExceptHandler, loop: Loop) -> str | None:
    """Why a log call in *handler* does not repeat once per failed iteration of *loop*, or None.

    A counter, sampling or once-only guard; a ``raise`` / ``return`` /
    ``break`` right after it (the error leaves the loop); a retry or
    fallback loop that stops once the ``try`` succeeds; a pause of at
    least 0.1 s on the failing path (the loop writes at most a few lines a
    second).
    """
    found = guarded(ctx, loop.node, loop.node)
    if found:
        return found
    if exits_after(ctx, handler):
        return "the error leaves the loop"
    try_node = ctx.ancestors[_index(ctx, handler) - 1]
    if try_stops_loop(try_node, loop):
        return "a retry or fallback loop: it stops at the first success"
    if loop_pacing(loop, handler, ctx):
        return "the loop pauses after a failure"
    return None


# -- retry and fallback loops --------------------------------------------------------

def _exit_line(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(s, (cst.Break, cst.Return)) for s in stmt.body)


def leaves_on_success(block: cst.BaseSuite | None) -> bool:
    """True when *block* leaves its loop once its work succeeds.

    A ``break`` / ``return`` among the block's own statements, in a ``with``
    or ``try`` body (or ``else``) among them, or under an ``if`` that tests a
    result assigned earlier in the block (``resp = fetch(); if resp is not
    None: return resp``).
    """
    if block is None:
        return False
    if isinstance(block, cst.SimpleStatementSuite):
        return any(isinstance(s, (cst.Break, cst.Return)) for s in block.body)
    assigned: set[str] = set()
    for stmt in block.body:
        if _exit_line(stmt):
            return True
        if isinstance(stmt, cst.With) and leaves_on_success(stmt.body):
            return True
        if isinstance(stmt, cst.Try) and (leaves_on_success(stmt.body) or (stmt.orelse is not None and leaves_on_success(stmt.orelse.body))):
            return True
        if isinstance(stmt, cst.If) and assigned & _test_keys(stmt.test) and leaves_on_success(stmt.body):
            return True
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Assign, cst.AnnAssign)):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    assigned.update(k for k in map(dotted, targets) if k)
    return False


def try_stops_loop(try_node: cst.CSTNode, loop: Loop) -> bool:
    """True when the loop ends once *try_node* (a statement of the loop body) succeeds: a retry or fallback loop."""
    if leaves_on_success(try_node.body) or (getattr(try_node, "orelse", None) is not None and leaves_on_success(try_node.orelse.body)):
        return True
    body = getattr(loop.node, "body", None)
    if not isinstance(body, cst.IndentedBlock):
        return False
    statements = list(body.body)
    for i, stmt in enumerate(statements):
        if stmt is try_node:
            return i + 1 < len(statements) and _exit_line(statements[i + 1])
    return False
