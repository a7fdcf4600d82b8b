"""Limiters a decorator brings: the spawned function is wrapped by one whose wrapper enters a shared limiter.

``@limit_concurrency(10)`` on ``fetch`` where ``limit_concurrency(n)`` builds one
``asyncio.Semaphore(n)`` and its nested ``wrapper`` does ``async with sem:
return await fn(...)``: every call of ``fetch`` waits for one of the ``n``
slots, so a fan-out over ``fetch`` runs ``n`` at once.  The decorator is
found in this module (read here) or in another one (the project index's
``wrapped_limiter`` fact, ``index.wrapped``); the decoration's arguments are
judged where it is written: a size from the input's length bounds nothing,
and a limiter the factory takes must be one.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from boundlint import tables
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted
from boundlint.analysis.limits.sources import iter_nodes, size_from_input
from boundlint.tables.defaults import LIMITER_WORDS
from boundlint.verdicts import LIMITER, Limit


@dataclass(frozen=True)
class Wrapped:
    """What a decorator's wrapper enters: ``wrapper`` (the nested def's name), ``sized_by`` (the
    factory's parameters the limiter's size is computed from), ``param`` (the factory parameter
    that is the limiter itself, which the decoration must pass) and ``where`` (``path:line`` of
    the wrapper in another module, else ``""``)."""

    wrapper: str
    sized_by: tuple[str, ...] = ()
    param: str | None = None
    where: str = ""


def decorator_limit(target: cst.FunctionDef, ctx: Context) -> Limit | None:
    """``"a limiter in `wrapper` of decorator `limit`"`` when one of *target*'s decorators (a name,
    or a call of a factory: ``@limit(10)``, ``@mod.limit(10)``) wraps it in a shared limiter, else None."""
    for deco in target.decorators:
        expr = deco.decorator
        call = expr if isinstance(expr, cst.Call) else None
        factory = call.func if call is not None else expr
        if not isinstance(factory, (cst.Name, cst.Attribute)):
            continue
        local = ctx.resolve_callable(factory)
        if isinstance(local, cst.FunctionDef):
            found, params = wrapped_limiter(local, ctx), _param_names(local)
        else:
            found, params = _project_wrapped(factory, ctx)
        if found is not None and _decoration_shares(found, params, call, ctx):
            return Limit(LIMITER, f"a limiter in `{found.wrapper}` of decorator `{dotted(factory)}`", found.where)
    return None


def wrapped_limiter(factory: cst.FunctionDef, ctx: Context) -> Wrapped | None:
    """The first def nested in *factory* (any depth) that enters a limiter shared by all its calls:
    built by a limiter constructor in an enclosing def (*factory* included: once per decoration),
    a module-level limiter, or a parameter of an enclosing def that is one.  One the wrapper builds
    itself is one per call: it bounds nothing.  A *factory* that returns none of the defs it nests is
    no decorator: None."""
    if not _returns_nested(factory):
        return None
    for wrapper, chain in _nested_defs(factory, [factory]):
        for entered in _entered(wrapper):
            found = _shared(entered, wrapper, chain, factory, ctx)
            if found is not None:
                return found
    return None


def _returns_nested(func: cst.FunctionDef) -> bool:
    nodes = list(iter_nodes(func.body))
    nested = {n.name.value for n in nodes if isinstance(n, cst.FunctionDef)}
    return any(isinstance(n, cst.Return) and isinstance(n.value, cst.Name) and n.value.value in nested for n in nodes)


def _nested_defs(func: cst.FunctionDef, chain: list[cst.FunctionDef]):
    """``(nested def, its enclosing defs outermost first)`` for every def under *func*, any depth."""
    for node in iter_nodes(func.body):
        if isinstance(node, cst.FunctionDef):
            yield node, chain
            yield from _nested_defs(node, [*chain, node])


def _entered(func: cst.FunctionDef):
    """What *func*'s own body enters: ``with`` / ``async with`` items and ``x.acquire()`` receivers."""
    from boundlint.tables.defaults import SLOT_GRABS

    for node in iter_nodes(func.body):
        if isinstance(node, cst.WithItem):
            yield node.item
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in SLOT_GRABS:
            yield node.func.value


def _shared(entered: cst.BaseExpression, wrapper: cst.FunctionDef, chain: list[cst.FunctionDef],
            factory: cst.FunctionDef, ctx: Context) -> Wrapped | None:
    from boundlint.analysis.limits.limiters import _limiter_constructor, _project_instance_limiter, is_limiter

    name = wrapper.name.value
    if isinstance(entered, cst.Call):  # a limiter built here is one per call; a helper may hand out a shared one
        return None if _limiter_constructor(entered, ctx) else (Wrapped(name) if is_limiter(entered, ctx) else None)
    if isinstance(entered, cst.Attribute):
        root = entered
        while isinstance(root, cst.Attribute):
            root = root.value
        if isinstance(root, cst.Name) and root.value in ("self", "cls"):
            return None  # the instance of the wrapped method, not the decorator's
        return Wrapped(name) if is_limiter(entered, ctx) else None
    if not isinstance(entered, cst.Name):
        return None
    key = entered.value
    if key in _assigned(wrapper) or _param(wrapper, key) is not None:
        return None  # bound anew on every call, or handed in by each caller
    for outer in reversed(chain):
        values = _assigned(outer).get(key)
        if values is not None:
            built = next((v for v in values if _limiter_constructor(v, ctx)), None)
            if built is not None:
                size = built.args[0].value if built.args else None
                if size is not None and _own_size(size, ctx):
                    return None  # one slot per item of what the factory measures
                return Wrapped(name, _params_in(size, factory))
            return Wrapped(name) if LIMITER_WORDS.search(key) else None
        param = _param(outer, key)
        if param is not None:
            if _annotated_limiter(param, ctx):
                return Wrapped(name)
            return Wrapped(name, param=key) if outer is factory else None
    values = ctx.index.constants.get(key)
    if values:
        calls = [v for v in values if isinstance(v, cst.Call)]
        return Wrapped(name) if (any(is_limiter(v, ctx) for v in calls) if calls else LIMITER_WORDS.search(key)) else None
    instance = _project_instance_limiter(entered, ctx)
    shared = instance if instance is not None else bool(LIMITER_WORDS.search(key))
    return Wrapped(name) if shared else None


def _own_size(size: cst.BaseExpression, ctx: Context) -> bool:
    """True when the size takes ``len()`` of what the factory is given or finds: one slot per item."""
    return any(isinstance(n, cst.Call) and dotted(n.func) == "len" and size_from_input(n, ctx) for n in iter_nodes(size))


def _assigned(func: cst.FunctionDef) -> dict[str, list[cst.BaseExpression]]:
    """Names *func*'s own body assigns (nested defs excluded), with their values, unless declared
    ``nonlocal`` / ``global`` there."""
    out: dict[str, list[cst.BaseExpression]] = {}
    shared: set[str] = set()
    for node in iter_nodes(func.body):
        if isinstance(node, (cst.Nonlocal, cst.Global)):
            shared.update(n.name.value for n in node.names)
        elif isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    out.setdefault(target.target.value, []).append(node.value)
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value is not None:
            out.setdefault(node.target.value, []).append(node.value)
        elif isinstance(node, cst.WithItem) and node.asname is not None and isinstance(node.asname.name, cst.Name):
            out.setdefault(node.asname.name.value, []).append(node.item)
    return {k: v for k, v in out.items() if k not in shared}


def _param(func: cst.FunctionDef, name: str) -> cst.Param | None:
    p = func.params
    return next((x for x in (*p.posonly_params, *p.params, *p.kwonly_params) if x.name.value == name), None)


def _param_names(func: cst.FunctionDef) -> list[str]:
    p = func.params
    return [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)]


def _params_in(expr: cst.BaseExpression | None, factory: cst.FunctionDef) -> tuple[str, ...]:
    """The names of *factory*'s parameters that *expr* reads, in order of first use."""
    own = set(_param_names(factory))
    seen: list[str] = []
    for node in iter_nodes(expr) if expr is not None else ():
        if isinstance(node, cst.Name) and node.value in own and node.value not in seen:
            seen.append(node.value)
    return tuple(seen)


def _annotated_limiter(param: cst.Param, ctx: Context) -> bool:
    if param.annotation is None:
        return False
    text = ctx.qualname(param.annotation.annotation) or dotted(param.annotation.annotation) or ""
    return text in tables.table("limiters", ctx.settings) or (
        text.rsplit(".", 1)[-1] in tables.table("limiter-class-names", ctx.settings))


def _project_wrapped(factory: cst.BaseExpression, ctx: Context) -> tuple[Wrapped | None, list[str]]:
    """The ``wrapped_limiter`` fact of a decorator defined in another module of the project."""
    ref = ctx.project_ref(factory)
    answer = ctx.project.ask("wrapped_limiter", ref) if ref is not None else None
    if not answer:
        return None, []
    found = Wrapped(answer["wrapper"], tuple(answer["sized_by"]), answer["param"], answer["where"])
    return found, list(answer["params"])


def _decoration_shares(found: Wrapped, params: list[str], call: cst.Call | None, ctx: Context) -> bool:
    """True when the decoration's arguments keep the limiter shared and sized by the code: no size
    from the input's length, and the limiter the factory takes (if any) is one."""
    from boundlint.analysis.limits.limiters import is_limiter

    for param in found.sized_by:
        arg = _argument(param, params, call)
        if arg is not None and size_from_input(arg, ctx):
            return False
    if found.param is not None:
        arg = _argument(found.param, params, call)
        return arg is not None and is_limiter(arg, ctx)
    return True


def _argument(param: str, params: list[str], call: cst.Call | None) -> cst.BaseExpression | None:
    """The expression *call* passes for the factory parameter *param* (*params*: the factory's, in order)."""
    if call is None:
        return None
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == param:
            return arg.value
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    index = params.index(param) if param in params else -1
    return positional[index] if 0 <= index < len(positional) else None
