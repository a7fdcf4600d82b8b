"""Length checks in code: ``len`` comparisons that cap a collection, and the validators that hold them."""
from __future__ import annotations

from typing import Iterable

import libcst as cst

from boundlint.analysis.context import Context
from boundlint.analysis.models.kinds import class_statements
from boundlint.analysis.models.syntax import _not_none, iter_nodes, kwarg, positional, short_name


def _is_len_call(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1


def len_checks(body: cst.CSTNode) -> list[cst.BaseExpression]:
    """Arguments of ``len(x)`` calls that *body* caps from above.

    A test that raises when true caps ``x`` when ``len(x)`` is on its larger
    side (``if len(v) > N: raise``, ``if N < len(v): raise``); an allowing
    test (``assert``, ``return``, an ``if`` that does not raise, a negated
    raising test) caps it when ``len(x)`` is on its smaller side
    (``assert len(v) <= N``).  A minimum or non-empty check
    (``if len(v) < 1: raise``, ``== 0``), a duplicate check
    (``len(v) > len(set(v))``) and a pairing check (``len(a) != len(b)``)
    cap nothing.
    """
    out: list[cst.BaseExpression] = []
    for node in iter_nodes(body):
        if isinstance(node, cst.If):
            out.extend(_capped_lens(node.test, _raises(node.body)))
        elif isinstance(node, cst.Assert):
            out.extend(_capped_lens(node.test, False))
        elif isinstance(node, cst.Return) and node.value is not None:
            out.extend(_capped_lens(node.value, False))
    return out


def _raises(body: cst.BaseSuite) -> bool:
    """True when a block raises among its own statements."""
    smalls = body.body if isinstance(body, cst.SimpleStatementSuite) else [
        small for stmt in body.body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body]
    return any(isinstance(small, cst.Raise) for small in smalls)


def _capped_lens(test: cst.BaseExpression, rejecting: bool) -> list[cst.BaseExpression]:
    """``len(x)`` arguments *test* bounds from above; *rejecting* when the test being true is refused."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _capped_lens(test.expression, not rejecting)
    if isinstance(test, cst.BooleanOperation):
        return _capped_lens(test.left, rejecting) + _capped_lens(test.right, rejecting)
    if not isinstance(test, cst.Comparison):
        return []
    out = []
    left = test.left
    for comp in test.comparisons:
        right = comp.comparator
        if isinstance(comp.operator, (cst.GreaterThan, cst.GreaterThanEqual)):
            larger, smaller = left, right
        elif isinstance(comp.operator, (cst.LessThan, cst.LessThanEqual)):
            larger, smaller = right, left
        else:
            larger = smaller = None
        if larger is not None and not (_is_len_call(larger) and _is_len_call(smaller)):
            capped = larger if rejecting else smaller
            if _is_len_call(capped):
                out.append(capped.args[0].value)
        left = right
    return out


def _mentioned_names(expr: cst.BaseExpression) -> set[str]:
    """Field names an expression refers to: ``self.items`` / ``values["items"]`` / ``data.get("items")``."""
    out: set[str] = set()
    for node in iter_nodes(expr):
        if isinstance(node, cst.Attribute):
            out.add(node.attr.value)
        elif isinstance(node, cst.Name):
            out.add(node.value)
        elif isinstance(node, cst.SimpleString):
            try:
                value = node.evaluated_value
            except Exception:
                continue
            if isinstance(value, str):
                out.add(value)
    return out


def function_checks_len(func: cst.BaseExpression, ctx: Context) -> bool:
    """True when *func* names a same-module function (or is a lambda) whose body compares a ``len``."""
    if isinstance(func, cst.Lambda):
        return bool(_capped_lens(func.body, False))  # lambda v: len(v) <= 10
    target = None
    if isinstance(func, cst.Name):
        target = ctx.index.functions.get(func.value)
        if target is None:
            for methods in ctx.index.methods.values():
                if func.value in methods:
                    target = methods[func.value]
                    break
    elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        target = ctx.index.methods.get(func.value.value, {}).get(func.attr.value)
    return isinstance(target, cst.FunctionDef) and bool(len_checks(target.body))


def _decorator_names(func: cst.FunctionDef, ctx: Context) -> list[tuple[str, cst.BaseExpression]]:
    out = []
    for deco in func.decorators:
        d = deco.decorator
        out.append((short_name(d.func if isinstance(d, cst.Call) else d, ctx), d))
    return out


def _string_args(call: cst.BaseExpression) -> list[str]:
    if not isinstance(call, cst.Call):
        return []
    out = []
    for a in call.args:
        if a.keyword is None and isinstance(a.value, cst.SimpleString):
            try:
                value = a.value.evaluated_value
            except Exception:
                continue
            if isinstance(value, str):
                out.append(value)
    return out


def _helper_caps(cls: cst.ClassDef, method: cst.FunctionDef, ctx: Context) -> list[str]:
    """``["`f` (path:line)"]`` when the validator *method* of the model *cls* rejects its value (its
    first parameter after ``self`` / ``cls``) through a project helper, in any module, that raises
    once the value's length is too large (``return enforce_batch_limit(value)`` from ``limits.py``:
    the index's ``size_checked``); else ``[]``."""
    if not ctx.project or any(_is_len_call(n) for n in iter_nodes(method.body)):
        return []  # its own `len` tests are judged here (`len_checks`): only a helper's are the index's
    found = ctx.project.ask("size_checked", ctx.project.ref(None, f"{cls.name.value}.{method.name.value}"), 0)
    return [found] if found else []


def model_len_checks(model_nodes: Iterable[cst.ClassDef], field_names: set[str], ctx: Context) -> set[str]:
    """Names of fields a model's own code caps with a ``len`` check.

    Counts pydantic ``@field_validator("f")`` / ``@validator("f")`` (not
    ``each_item=True``) and marshmallow ``@validates("f")`` bodies that compare
    a ``len``; ``@model_validator`` / ``@root_validator`` / ``@validates_schema``
    / ``__post_init__`` / ``__attrs_post_init__`` bodies that compare
    ``len`` of the field; attrs ``@f.validator`` methods that compare a ``len``.
    """
    checked: set[str] = set()
    for cls in model_nodes:
        for stmt in class_statements(cls):
            if not isinstance(stmt, cst.FunctionDef):
                continue
            checks = None
            if stmt.name.value.startswith("validate_") and stmt.name.value[9:] in field_names:
                if len_checks(stmt.body) or _helper_caps(cls, stmt, ctx):  # DRF: validate_<field>(self, value)
                    checked.add(stmt.name.value[9:])
            if stmt.name.value == "validate":  # DRF: validate(self, attrs) checks len(attrs["f"])
                for arg in len_checks(stmt.body):
                    checked |= _mentioned_names(arg) & field_names
            if stmt.name.value in ("__post_init__", "__attrs_post_init__", "__init__"):
                checks = len_checks(stmt.body)
                for arg in checks:
                    checked |= _mentioned_names(arg) & field_names
                continue
            for name, deco in _decorator_names(stmt, ctx):
                if name == "validator" and isinstance(deco, cst.Attribute) and isinstance(deco.value, cst.Name):
                    # attrs: @items.validator
                    if checks is None:
                        checks = len_checks(stmt.body)
                    if checks and deco.value.value in field_names:
                        checked.add(deco.value.value)
                elif name in ("field_validator", "validator", "validates"):
                    if isinstance(deco, cst.Call) and kwarg(deco, "each_item") is not None:
                        each = kwarg(deco, "each_item")
                        if isinstance(each, cst.Name) and each.value == "True":
                            continue
                    if checks is None:
                        checks = len_checks(stmt.body) or _helper_caps(cls, stmt, ctx)
                    if checks:
                        names = _string_args(deco)
                        checked |= field_names if "*" in names else set(names) & field_names
                elif name in ("model_validator", "root_validator", "validates_schema", "pre_load", "post_load"):
                    if checks is None:
                        checks = len_checks(stmt.body)
                    for arg in checks:
                        checked |= _mentioned_names(arg) & field_names
    return checked


def _validator_limit(expr: cst.BaseExpression | None, ctx: Context) -> str | None:
    """attrs ``validator=`` / marshmallow ``validate=``: ``max_len(N)``, ``Length(max=N)``, a len-checking function."""
    if expr is None:
        return None
    for node in iter_nodes(expr):
        if isinstance(node, cst.Call):
            head = short_name(node.func, ctx)
            if head == "max_len" and (positional(node) or kwarg(node, "max_length")):
                return "`validators.max_len(...)`"
            if head == "Length" and _not_none(kwarg(node, "max")):
                return "`validate.Length(max=...)`"
            if head == "Length" and _not_none(kwarg(node, "equal")):
                return "`validate.Length(equal=...)`"
            if head in ("Length",) and len(positional(node)) >= 2 and _not_none(positional(node)[1]):
                return "`validate.Length(max=...)`"
        elif isinstance(node, (cst.Name, cst.Lambda)) and function_checks_len(node, ctx):
            return "a validator that checks `len`"
    return None
