"""What a module shows of decorators that wrap a function in a shared limiter, for the project index.

``wraps_limiter(func, ref, instances)`` reads a module-level ``def`` used as
a decorator or a decorator factory (it returns a def it nests): the first def nested in it (any depth)
that enters (``with`` / ``async with`` / ``x.acquire()``) a limiter shared by
all its calls, as ``{"wrapper", "line", "sized_by", "param", "via"}``:

- built by a limiter constructor in an enclosing def (the factory or the
  decorator: once per decoration), ``sized_by`` naming the factory's
  parameters its size is computed from (the decoration's arguments decide);
- a module-level limiter (an instance of a ``limiters`` class, or a name that
  says so, as ``reader`` judges names);
- a parameter of an enclosing def annotated with a limiter type, or the
  factory's own parameter ``param`` (the decoration must pass a limiter);
- what a project helper hands out, ``via`` the refs of the helpers (``async with slot():``).

One the wrapper builds itself is one per call and bounds nothing: None.

``decorations(func, ref, instances)`` lists the decorators of a ``def`` that
may be such a factory: ``[{"ref", "args", "keywords"}]``, each argument
``"limiter"`` (a limiter built in the decoration), ``"len"`` (a ``len()`` of
something not literal), the ref of a name, or None.
"""
from __future__ import annotations

import ast
from typing import Callable

from boundlint import tables
from boundlint.kinds.calls import STDLIB
from boundlint.index.closures import _own_statements
from boundlint.index.shapes import _is_const, dotted
from boundlint.tables.defaults import LIMITER_WORDS

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEF_TYPES = frozenset(_DEFS)


def record(facts: dict, func: ast.FunctionDef | ast.AsyncFunctionDef, ref: Callable[[ast.AST], str | None],
           instances: dict[str, str], method: bool, body=None) -> None:
    """Add ``wraps_limiter`` (module-level defs) and ``decorated`` to *func*'s *facts*, each only when found
    (*body*: the ``body.walk`` of *func*, when the caller has it)."""
    found = None if method else wraps_limiter(func, ref, instances, body)
    if found is not None:
        facts["wraps_limiter"] = found
    decorated = decorations(func, ref, instances)
    if decorated:
        facts["decorated"] = decorated


def wraps_limiter(func: ast.FunctionDef | ast.AsyncFunctionDef, ref: Callable[[ast.AST], str | None],
                  instances: dict[str, str], body=None) -> dict | None:
    """The wrapper fact of *func* (see the module doc), or None when it returns none of the defs it
    nests (no decorator) or none of them enters a shared limiter.  A limiter entered directly wins
    over helpers (``via``: the refs of the first wrapper's helpers, outside the standard library)."""
    if not returns_nested(func, body):
        return None
    helpers: dict | None = None
    for wrapper, chain in _nested(func, [func]):
        for entered in _entered(wrapper):
            found = _shared(entered, wrapper, chain, ref, instances)
            if found is None:
                continue
            fact = {"wrapper": wrapper.name, "line": wrapper.lineno, "sized_by": [], "param": None, "via": None, **found}
            if not fact["via"]:
                return fact
            if helpers is None:
                helpers = {**fact, "via": []}
            if helpers["wrapper"] == wrapper.name and fact["via"] not in helpers["via"]:
                helpers["via"].append(fact["via"])
    return helpers


def returns_nested(func, body=None) -> bool:
    """True when *func*'s own body returns a def it defines (``return wrapper``): a decorator or a factory.
    *body*: the ``body.walk`` of *func*, whose own ``return`` statements spare the walk when none returns a name."""
    if body is not None:  # defs are statements: no expression walk
        names = {r.value.id for r in body.returns if type(r.value) is ast.Name}
        return bool(names) and any(type(n) in _DEF_TYPES and n.name in names for n in _own_statements(func.body))
    nested = {n.name for n in _own(func) if isinstance(n, _DEFS)}
    return any(isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id in nested for n in _own(func))


def decorations(func: ast.FunctionDef | ast.AsyncFunctionDef, ref: Callable[[ast.AST], str | None],
                instances: dict[str, str]) -> list[dict]:
    """The decorators of *func* that name a function of the project or a package (not the standard
    library, not a method of a module-level instance such as ``@router.post``), with their arguments."""
    out = []
    for deco in func.decorator_list:
        call = deco if isinstance(deco, ast.Call) else None
        target = call.func if call is not None else deco
        name = dotted(target)
        made = ref(target) if name is not None else None
        if made is None or made.split(".", 1)[0] in STDLIB or name.split(".", 1)[0] in instances:
            continue
        args = [_argument(a, ref) for a in call.args] if call is not None else []
        keywords = {k.arg: _argument(k.value, ref) for k in call.keywords if k.arg} if call is not None else {}
        if call is not None and any(isinstance(a, ast.Starred) for a in call.args):
            continue  # which argument fills which parameter is unknown
        out.append({"ref": made, "args": args, "keywords": keywords})
    return out


def _argument(expr: ast.AST, ref: Callable[[ast.AST], str | None]) -> str | None:
    if isinstance(expr, ast.Call):
        if dotted(expr.func) == "len" and expr.args and not _fixed(expr.args[0]):
            return "len"
        return "limiter" if _constructor(expr, ref) and not _len_sized(expr) else None
    return ref(expr) if dotted(expr) is not None else None


def _nested(func: ast.AST, chain: list):
    """``(nested def, its enclosing defs outermost first)`` for every def under *func*, any depth."""
    for node in _own(func):
        if isinstance(node, _DEFS):
            yield node, chain
            yield from _nested(node, [*chain, node])


def _own(func: ast.AST):
    """Nodes of *func*'s body, not descending into nested defs, classes or lambdas (those are yielded)."""
    stack = list(reversed(func.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (*_DEFS, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _entered(func: ast.AST):
    for node in _own(func):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            yield from (item.context_expr for item in node.items)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("acquire", "acquire_nowait")):
            yield node.func.value


def _constructor(expr: ast.AST, ref: Callable[[ast.AST], str | None]) -> bool:
    if not isinstance(expr, ast.Call):
        return False
    made = ref(expr.func) or dotted(expr.func) or ""
    return made in tables.table("limiters") or made.rsplit(".", 1)[-1] in tables.table("limiter-class-names")


def _len_sized(call: ast.Call) -> bool:
    """True when *call*'s first argument takes ``len()`` of something that is no literal or constant."""
    return any(isinstance(n, ast.Call) and dotted(n.func) == "len" and n.args and not _fixed(n.args[0])
               for a in call.args[:1] for n in ast.walk(a))


def _fixed(expr: ast.AST) -> bool:
    return isinstance(expr, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.Constant)) or _is_const(expr)


def _shared(entered: ast.AST, wrapper, chain: list, ref, instances: dict[str, str]) -> dict | None:
    if isinstance(entered, ast.Call):  # a limiter built here is one per call; a helper may hand out a shared one
        if _constructor(entered, ref):
            return None
        via = ref(entered.func)
        return {"via": via} if via is not None and via.split(".", 1)[0] not in STDLIB else None
    name = dotted(entered)
    if name is None:
        return None
    root = name.split(".", 1)[0]
    if isinstance(entered, ast.Attribute):
        return None if root in ("self", "cls") else _named(name, instances)
    if name in _assigned(wrapper) or name in _params(wrapper):
        return None  # bound anew on every call, or handed in by each caller
    factory = chain[0]
    for outer in reversed(chain):
        values = _assigned(outer).get(name)
        if values is not None:
            built = next((v for v in values if _constructor(v, ref)), None)
            if built is None:
                return {} if LIMITER_WORDS.search(name) else None
            if _len_sized(built):
                return None  # one slot per item of what the factory measures
            return {"sized_by": _params_in(built.args[0] if built.args else None, factory)}
        param = _params(outer).get(name)
        if param is not None:
            annotation = ref(param.annotation) or dotted(param.annotation) if param.annotation is not None else ""
            if annotation and (annotation in tables.table("limiters")
                               or annotation.rsplit(".", 1)[-1] in tables.table("limiter-class-names")):
                return {}
            return {"param": name} if outer is factory else None
    return _named(name, instances)


def _named(name: str, instances: dict[str, str]) -> dict | None:
    """A module-level limiter, judged as the reader judges the names a function enters."""
    made = instances.get(name)
    if made is not None:
        shared = made in tables.table("limiters") or made.rsplit(".", 1)[-1] in tables.table("limiter-class-names")
    else:
        shared = bool(LIMITER_WORDS.search(name.rsplit(".", 1)[-1]))
    return {} if shared else None


def _assigned(func) -> dict[str, list[ast.AST]]:
    """Names *func*'s own body assigns (``with ... as`` included), unless declared nonlocal / global there."""
    out: dict[str, list[ast.AST]] = {}
    shared: set[str] = set()
    for node in _own(func):
        if isinstance(node, (ast.Nonlocal, ast.Global)):
            shared.update(node.names)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            out.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if isinstance(item.optional_vars, ast.Name):
                    out.setdefault(item.optional_vars.id, []).append(item.context_expr)
    return {k: v for k, v in out.items() if k not in shared}


def _params(func) -> dict[str, ast.arg]:
    args = func.args
    return {a.arg: a for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}


def _params_in(expr: ast.AST | None, factory) -> list[str]:
    """The names of *factory*'s parameters that *expr* reads, in order of first use."""
    own = _params(factory)
    seen: list[str] = []
    for node in ast.walk(expr) if expr is not None else ():
        if isinstance(node, ast.Name) and node.id in own and node.id not in seen:
            seen.append(node.id)
    return seen
