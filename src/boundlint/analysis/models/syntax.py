"""Reading names and arguments off the CST: qualified names, keyword and positional arguments, options."""
from __future__ import annotations

import fnmatch
from typing import Iterable, Iterator

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted


def _text(node: cst.CSTNode, limit: int = 60) -> str:
    code = " ".join(cst.Module(body=[]).code_for_node(node).split())
    return code if len(code) <= limit else code[: limit - 3] + "..."


def option_list(ctx: Context, name: str, default: Iterable[str]) -> tuple[str, ...]:
    """A list-valued setting: a sequence or a comma-separated string; *default* when unset."""
    value = ctx.settings.option(name, None)
    if value is None:
        return tuple(default)
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return tuple(str(v) for v in value)  # type: ignore[union-attr]


def matches_any(name: str, patterns: Iterable[str]) -> bool:
    """True when *name* matches one of the glob *patterns* (``*Request``), case-sensitively."""
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def full_name(expr: cst.BaseExpression, ctx: Context) -> str:
    """Canonical qualified name when imported, else the dotted text, else ``""``."""
    return ctx.qualname(expr) or dotted(expr) or ""


def short_name(expr: cst.BaseExpression, ctx: Context) -> str:
    """Last component of :func:`full_name`."""
    return full_name(expr, ctx).rsplit(".", 1)[-1]


def kwarg(call: cst.Call, *names: str) -> cst.BaseExpression | None:
    """The value of the first keyword argument among *names*, or None."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value in names:
            return a.value
    return None


def positional(call: cst.Call) -> list[cst.BaseExpression]:
    """Positional argument values of *call*, without starred ones."""
    return [a.value for a in call.args if a.keyword is None and a.star == ""]


def _not_none(expr: cst.BaseExpression | None) -> bool:
    return expr is not None and not (isinstance(expr, cst.Name) and expr.value == "None")


def iter_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under *node* (nested defs included; they are small validator bodies)."""
    return limits.iter_nodes(node, into_defs=True)
