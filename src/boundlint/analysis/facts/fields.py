"""A field of a value object, for the volume reader: ``plan.breakpoints`` where ``plan`` is a
parameter annotated with a frozen dataclass of this module, which the project builds only here.

Each construction passes the field by keyword; what it passes, judged where the construction
is, is what the field holds (a frozen dataclass is never changed after it is built).
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.analysis.facts import bindings, callers


def _frozen(cls: cst.ClassDef) -> bool:
    """True for ``@dataclass(frozen=True)`` (``dataclasses.dataclass`` too)."""
    for deco in cls.decorators:
        call = deco.decorator
        if isinstance(call, cst.Call) and (dotted(call.func) or "").rsplit(".", 1)[-1] == "dataclass" and any(
                a.keyword is not None and a.keyword.value == "frozen" and isinstance(a.value, cst.Name)
                and a.value.value == "True" for a in call.args):
            return True
    return False


def _declares(cls: cst.ClassDef, field: str) -> bool:
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    return any(isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.target.value == field
        for small in stmt.body) for stmt in body)


def passed(root: str, field: str, funcs: list[cst.FunctionDef], ctx) -> tuple[str, list] | None:
    """``(class name, [(value, chain)])``: what each construction of the class the parameter *root* is
    annotated with passes as *field*, with the nodes enclosing the construction; None unless *root*
    is a parameter of the innermost function of *funcs* that binds it, annotated with a frozen dataclass
    of this module declaring *field*, built only in this module and always with *field* by keyword."""
    func = next((f for f in reversed(funcs) if bindings.param(f, root) is not None
                 or root in bindings.assignments(f)), None)
    param = bindings.param(func, root) if func is not None else None
    if param is None or param.annotation is None or root in bindings.assignments(func):
        return None
    name = dotted(param.annotation.annotation) or ""
    cls = ctx.index.classes.get(name)
    if cls is None or not _frozen(cls) or not _declares(cls, field):
        return None
    sites = callers.built_in_module(cls, ctx)
    if not sites:
        return None
    out = []
    for call, chain in sites:
        value = next((a.value for a in call.args if a.keyword is not None and a.keyword.value == field), None)
        if value is None or any(a.star for a in call.args):
            return None
        out.append((value, chain))
    return name, out
