"""Recognising log calls: which calls write a log line at warning level or above, and through what.

``log_call(call, ctx)`` says whether a call writes a log line at warning
level or above.  Loggers are recognised by how they were made
(``logging.getLogger``, ``structlog.get_logger``, ``loguru.logger``,
``getChild`` / ``bind`` on a logger), by conventional names (``logger``,
``log``, ``LOG``, ``_logger``, ``self.logger`` ... and any name ending in
``logger``) and by the ``logger-names`` option; never by a name that merely
starts with "log" (``self.login_task.exception()`` is not a log call).
``rate_limited`` honours the ``rate-limited-loggers`` option.  When such a
call is a storm is judged in ``boundlint.analysis.storms``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import libcst as cst

from boundlint import tables

from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted


# Names a logger conventionally goes by (bare or as ``self.<name>``); any name ending in "logger" counts too.
DEFAULT_LOGGER_NAMES = tables.TABLES["logger-names"].entries
# Names of loggers or helpers that rate-limit what they write; the `rate-limited-loggers` option adds more.
DEFAULT_RATE_LIMITED_LOGGERS: tuple[str, ...] = ()
LOGGER_FACTORIES = frozenset(tables.TABLES["logger-factories"].entries)  # defaults; judgement reads the table
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
    """The ``logger-names`` table in effect: the conventional names, the option, the config."""
    cached = ctx.cache.get("logging_calls.names")
    if cached is None:
        cached = ctx.cache["logging_calls.names"] = tables.table("logger-names", ctx.settings)
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
    if type(value) is cst.Call:
        name = _call_name(value, ctx)
        short = name.rsplit(".", 1)[-1].lower()
        return name in rate_limited_names(ctx) or any(w in short for w in _RATE_WORDS)
    return False


def _bound_values(expr: cst.BaseExpression, ctx: Context) -> list[cst.BaseExpression]:
    if type(expr) is cst.Name:
        bound = ctx.lookup(expr.value)
        return [v for v in bound[1] if v is not None] if bound else []
    if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value in ("self", "cls"):
        return list(ctx.attr_values(expr.attr.value))
    return []


def is_logger(expr: cst.BaseExpression, ctx: Context, depth: int = 0) -> bool:
    """True when *expr* is a logger (or the ``logging`` module), judged by construction, then by name."""
    if depth > 3:
        return False
    q = ctx.qualname(expr)
    if q is not None and (q in LOGGING_MODULES or q in tables.table("logger-factories", ctx.settings)):
        return True
    if type(expr) is cst.Call:
        func = expr.func
        name = _call_name(expr, ctx)
        if name in tables.table("logger-factories", ctx.settings) or name.rsplit(".", 1)[-1] in _FACTORY_SHORTS:
            return True
        if type(func) is cst.Attribute and func.attr.value in _CHAIN_METHODS:
            return is_logger(func.value, ctx, depth + 1)
        return False
    values = _bound_values(expr, ctx)
    for value in values:
        if type(value) is cst.Call and is_logger(value, ctx, depth + 1):
            return True
    if type(expr) is cst.Name:
        return _named_logger(expr.value, ctx)
    if type(expr) is cst.Attribute:
        return _named_logger(expr.attr.value, ctx)
    return False


def _level_at_least_warning(expr: cst.BaseExpression, ctx: Context) -> bool:
    if type(expr) is cst.Integer:
        return int(expr.value, 0) >= 30
    name = dotted(expr) or ""
    return name.rsplit(".", 1)[-1] in _LEVEL_NAMES


def _receiver_text(expr: cst.BaseExpression) -> str:
    return dotted(expr) or (dotted(expr.func) + "(...)" if type(expr) is cst.Call and dotted(expr.func) else "<logger>")


def log_call(call: cst.Call, ctx: Context) -> LogCall | None:
    """The warning-or-above log line *call* writes, or None.

    Counts ``<logger>.warning/warn/error/exception/critical/fatal(...)``,
    ``<logger>.log(level, ...)`` with a level of WARNING or more, the same
    on the ``logging`` module, ``traceback.print_exc()`` /
    ``print_exception()``, ``print(..., file=sys.stderr)`` and
    ``sys.stderr.write(...)``.
    """
    func = call.func
    if type(func) is cst.Name:
        if func.value == "print" and ctx.names.resolve_name("print") is None:
            for arg in call.args:
                if arg.keyword is not None and arg.keyword.value == "file":
                    if (ctx.qualname(arg.value) or "") == "sys.stderr":
                        return LogCall(call, "stderr", "print(..., file=sys.stderr)")
            return None
    q = ctx.qualname(func)
    if q in ("traceback.print_exc", "traceback.print_exception"):
        return LogCall(call, "traceback", q + "()")
    if q == "sys.stderr.write":
        return LogCall(call, "stderr", "sys.stderr.write(...)")
    if type(func) is not cst.Attribute:
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


def stdout_print(call: cst.Call, ctx: Context) -> LogCall | None:
    """A bare ``print(...)`` to standard output (no ``file=``), or None.

    Not a log line in general (a CLI prints its report), but a spinning loop
    writes it as fast as the CPU allows, like any other output.
    """
    func = call.func
    if type(func) is cst.Name and func.value == "print" and ctx.names.resolve_name("print") is None:
        if not any(a.keyword is not None and a.keyword.value == "file" for a in call.args):
            return LogCall(call, "stdout", "print(...)")
    return None


def rate_limited(log: LogCall, ctx: Context) -> bool:
    """True when the call goes through a rate-limited logger or helper (by option or by construction)."""
    func = log.node.func
    names = rate_limited_names(ctx)
    if type(func) is cst.Attribute:
        receiver = func.value
        for text in (dotted(receiver), ctx.qualname(receiver)):
            if text and text in names:
                return True
        if any(_rate_limited_value(v, ctx) for v in _bound_values(receiver, ctx)):
            return True
        if type(receiver) is cst.Call and _rate_limited_value(receiver, ctx):
            return True
    for text in (dotted(func), ctx.qualname(func)):
        if text and text in names:
            return True
    return False


def describe(log: LogCall) -> str:
    """What the call writes, for messages: ``logs an error``, ``prints a traceback`` ..."""
    if log.level == "stderr":
        return "writes to stderr"
    if log.level == "stdout":
        return "prints a line"
    if log.level == "traceback":
        return "prints a traceback"
    if log.level in ("warning", "warn"):
        return "logs a warning"
    if log.level in ("critical", "fatal"):
        return "logs a critical error"
    return "logs an error"
