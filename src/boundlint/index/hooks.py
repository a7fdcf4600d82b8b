"""What a module shows of when its functions run, for the "runs once" judgement through callers.

``role(func, bases)`` gives a ``def`` the role its own signs give it, by the
same tables as ``analysis.facts.placement`` (``once``, ``request``, ``worker``), with
``entry`` for a once-function that starts a whole program (table
``entry-points``: ``main()``, a CLI command): it runs once, but it may hold a
server's or worker's loops, so what it calls is not shown to run once.

``links(tree, ref, module)`` reads the whole module once for the functions it
hands over rather than calls: ``hooks``, the refs registered as start-up,
shutdown or lifespan hooks (``FastAPI(lifespan=f)``, ``on_startup=[f]``,
``app.add_event_handler("startup", f)``, ``app.on_shutdown.append(f)``: a
keyword, attribute or string named in ``once-functions`` or
``once-decorators``, entry points excepted), and ``passed``, the refs handed
anywhere else as a value (``scheduler.add_job(f, ...)``, ``Thread(target=f)``):
those run as often as the receiver likes.
"""
from __future__ import annotations

import ast
from typing import Callable

from boundlint import tables
from boundlint.kinds.roles import ONCE, role_of
from boundlint.index.body import child_fields
from boundlint.index.reader import _WORKER_METHODS
from boundlint.index.shapes import dotted

ENTRY = "entry"


def hook_names() -> frozenset[str]:
    """The names that register a start-up, shutdown or lifespan hook (``on_startup=``, ``lifespan=``)."""
    return (tables.table("once-functions") | tables.table("once-decorators")) - tables.table("entry-points")


_hook_names = hook_names


def role(func: ast.FunctionDef | ast.AsyncFunctionDef, bases: list[str] | None) -> str | None:
    """``once``, ``entry``, ``request``, ``worker`` or None for the ``def`` *func* (*bases*: its class's
    base refs, None for a plain function)."""
    names = [dotted(d.func if isinstance(d, ast.Call) else d) or "" for d in func.decorator_list]
    # a plain dotted name unparses to itself: only other decorators (calls) need the unparser
    text = " ".join(n if type(d) is not ast.Call and n else ast.unparse(d) for d, n in zip(func.decorator_list, names))
    short = None if bases is None else frozenset(b.rsplit(".", 1)[-1] for b in bases)
    key = (tuple(names), text, func.name, short)
    found = _ROLES.get(key, _ROLES)
    if found is _ROLES:
        if len(_ROLES) >= _ROLES_MAX:
            _ROLES.clear()
        found = _ROLES[key] = _role(names, text, func.name, short)
    return found


# A role by its signs, remembered: most functions have no decorator and share a few keys; the index asks
# with the default tables (no settings), which never change in a process.  Bounded: emptied when full.
_ROLES: dict[tuple, str | None] = {}
_ROLES_MAX = 50_000


def _role(names: list[str], text: str, name: str, short: frozenset[str] | None) -> str | None:
    found = role_of(names, text, name, short)
    entries = tables.table("entry-points")
    if found == ONCE and (name in entries or any(n.rsplit(".", 1)[-1] in entries for n in names)):
        return ENTRY
    return found


def links(tree: ast.Module, ref: Callable[[ast.AST], str | None], module: str,
          walked: dict | None = None) -> tuple[list[str], list[str]]:
    """``(hooks, passed)``: sorted refs of the functions *tree* registers as once hooks (also by a call of a
    ``hook-registrars`` method: ``app.before_server_start(partial(f, x))``), and of those it hands over as a
    value anywhere else, a hook handed elsewhere too in both (*ref* resolves a name; *module* is the module's
    own name; *walked*: id of a ``def`` -> the ``body.walk`` of its body, whose calls are taken from it).
    A function handed to an executor's ``submit`` / ``map`` is neither: the reader records that as a call."""
    hook_names = _hook_names()
    registrars = tables.table("hook-registrars")
    hooks: set[str] = set()
    passed: set[str] = set()

    def named(expr: ast.AST, owner: str | None) -> list[str]:
        items = expr.elts if isinstance(expr, (ast.List, ast.Tuple, ast.Set)) else [expr]
        out = []
        for item in items:
            name = dotted(item) if isinstance(item, (ast.Name, ast.Attribute)) else None
            if name is None:
                continue
            head, _, rest = name.partition(".")
            found = f"{module}.{owner}.{rest}" if head in ("self", "cls") and owner and rest else ref(item)
            if found is not None:
                out.append(found)
        return out

    for owner, node in _calls(tree, walked or {}):
        func = node.func
        strings = {a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        for kw in node.keywords:
            (hooks if kw.arg in hook_names else passed).update(named(kw.value, owner))
        hooked = (bool(strings & hook_names)  # add_event_handler("startup", f)
                  or isinstance(func, ast.Attribute) and func.attr in ("append", "extend", "add")
                  and (dotted(func.value) or "").rsplit(".", 1)[-1] in hook_names)  # app.on_startup.append(f)
        registrar = isinstance(func, ast.Attribute) and func.attr in registrars
        if isinstance(func, ast.Call) and {a.value for a in func.args if isinstance(a, ast.Constant)} & hook_names:
            hooks.update(r for a in node.args for r in named(a, owner))  # app.on_event("startup")(f)
            continue
        for at, arg in enumerate(node.args):
            if registrar:  # app.before_server_start(partial(app._start_servers, apps=apps))
                target = _unwrapped(arg)
                hooks.update(named(target, owner) or _sibling(target, owner, tree, module))
                continue
            if not hooked and at == _worker_position(func):
                continue  # executor.submit(f, x): one run per call, recorded as a call by the reader
            (hooks if hooked else passed).update(named(arg, owner))
    return sorted(hooks), sorted(passed)  # a hook also handed elsewhere (a route) is in both


def _unwrapped(expr: ast.AST) -> ast.AST:
    """The function of ``partial(f, ...)``, else *expr*."""
    if isinstance(expr, ast.Call) and (dotted(expr.func) or "").rsplit(".", 1)[-1] == "partial" and expr.args:
        return expr.args[0]
    return expr


def _sibling(expr: ast.AST, owner: str | None, tree: ast.Module, module: str) -> list[str]:
    """``[module.Owner.m]`` for ``other.m`` registered inside class *owner* when that class defines ``m``:
    another instance of the class (``primary._start_servers`` in a classmethod), else []."""
    if owner is None or not isinstance(expr, ast.Attribute):
        return []
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef) and cls.name == owner:
            if any(isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == expr.attr for f in cls.body):
                return [f"{module}.{owner}.{expr.attr}"]
            return []
    return []


def _worker_position(func: ast.AST) -> int | None:
    """Where ``pool.submit(f, ...)`` / ``pool.map(f, items)`` / ``loop.run_in_executor(None, f)`` take the
    function they run once per call (or per item), else None."""
    if isinstance(func, ast.Attribute) and func.attr in _WORKER_METHODS:
        return 1 if func.attr == "run_in_executor" else 0
    return None


# children that hold no call: names, constants and parameters (whose annotations register nothing)
_LEAVES = frozenset({ast.Name, ast.Constant, ast.arg})


def _calls(tree: ast.Module, walked: dict):
    """``(enclosing class name or None, call)`` for every call with arguments in *tree* (decorators
    included); the body of a ``def`` in *walked* is not walked again (see ``links``)."""
    stack: list[tuple[str | None, ast.AST]] = [(None, tree)]
    Call, ClassDef, AST, leaves = ast.Call, ast.ClassDef, ast.AST, _LEAVES
    while stack:
        owner, node = stack.pop()
        kind = type(node)
        fields = child_fields(kind)  # no contexts, operators nor import aliases: they hold no call
        if kind is Call:
            if node.args or node.keywords:
                yield owner, node
        elif kind is ClassDef:
            owner = node.name
        elif id(node) in walked:
            body = walked[id(node)]
            for call in body.hook_calls:
                yield owner, call
            stack.extend((owner, c) for c in body.classes)  # a class sets its own name as the owner
            fields = tuple(f for f in fields if f != "body")
        for field in fields:  # the children, skipping leaves that hold no call
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend([(owner, v) for v in value if type(v) not in leaves and isinstance(v, AST)])
            elif type(value) not in leaves and isinstance(value, AST):
                stack.append((owner, value))
