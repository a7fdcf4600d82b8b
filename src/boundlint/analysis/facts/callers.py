"""Where a function is called, for the volume reader: the calls of it in its own module, each with the
nodes that enclose it, when the project calls it from nowhere else."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted

# A parameter no call passes by position: only a keyword names it.
_KEYWORD_ONLY = 1 << 16


def _owner(func: cst.FunctionDef, chain: list[cst.CSTNode]) -> tuple[bool, cst.ClassDef | None] | None:
    """``(found, owner)``: the module-level class *func* is a method of (None for a module-level
    function); None when *func* is nested in a function or a nested class."""
    at = next((i for i, n in enumerate(chain) if n is func), None)
    if at is None:
        return None
    outer = [n for n in chain[:at] if isinstance(n, (cst.FunctionDef, cst.ClassDef))]
    if not outer:
        return True, None
    if len(outer) == 1 and type(outer[0]) is cst.ClassDef:
        return True, outer[0]
    return None


def _position(func: cst.FunctionDef, owner: cst.ClassDef | None, name: str) -> int | None:
    """The position a call passes *name* at (not counting ``self`` / ``cls``); ``_KEYWORD_ONLY`` for a
    keyword-only parameter; None for ``*args`` / ``**kwargs``."""
    params = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
    decorators = {dotted(d.decorator) for d in func.decorators}
    if owner is not None and "staticmethod" not in decorators and params:
        params = params[1:]
    if name in params:
        return params.index(name)
    if any(p.name.value == name for p in func.params.kwonly_params):
        return _KEYWORD_ONLY
    return None


def _calls_by_name(module: cst.Module) -> dict[str, list[tuple[cst.Call, tuple]]]:
    """Every call in *module* whose callee is a name or an attribute, by that name's last part, with a
    linked path of its enclosing nodes (``(node, outer path)``), in one walk."""
    from boundlint.analysis.walk.walker import children  # the checker has it loaded; the index never needs it

    out: dict[str, list[tuple[cst.Call, tuple]]] = {}
    stack: list[tuple[cst.CSTNode, tuple | None]] = [(module, None)]
    while stack:
        node, path = stack.pop()
        if type(node) is cst.Call:
            func = node.func
            last = func.value if type(func) is cst.Name else (
                func.attr.value if type(func) is cst.Attribute else None)
            if last is not None:
                out.setdefault(last, []).append((node, path))
        inner = (node, path)
        stack.extend((child, inner) for child in children(node))
    return out


def _chain(path: tuple | None) -> list[cst.CSTNode]:
    out = []
    while path is not None:
        out.append(path[0])
        path = path[1]
    return out[::-1]


def _sites(calls: list, name: str, owner: cst.ClassDef | None, static: bool) -> list | None:
    """``[(call, chain)]`` for each call of *name* among *calls*: ``name(...)`` for a module-level
    function; ``self.name(...)`` / ``cls.name(...)`` / ``Owner.name(...)`` (this last only for a static
    method) for a method; None when a call of it shapes the arguments otherwise (``Owner.name(self, ...)``)."""
    out: list[tuple[cst.Call, list[cst.CSTNode]]] = []
    for call, path in calls:
        func = call.func
        if owner is None and type(func) is cst.Name:
            out.append((call, _chain(path)))
        elif owner is not None and type(func) is cst.Attribute and type(func.value) is cst.Name:
            receiver = func.value.value
            if receiver in ("self", "cls") or (receiver == owner.name.value and static):
                out.append((call, _chain(path)))
            elif receiver == owner.name.value:
                return None
    return out


def calls_in_module(func: cst.FunctionDef, name: str, chain: list[cst.CSTNode], ctx) -> tuple[int, list] | None:
    """``(position, [(call, chain)])``: the position calls pass the parameter *name* of *func* at (not
    counting ``self`` / ``cls``; a large number for a keyword-only one) and every call of *func* the
    project makes, each with the nodes enclosing it, when all of them are in this module and found
    here; else None (also for ``*args`` / ``**kwargs``).

    *func* is a module-level function or a method of a module-level class (*chain* encloses it); the
    project index (``calls_of``) says which modules call it and how often.
    """
    placed = _owner(func, chain)
    if placed is None or not ctx.project:
        return None
    owner = placed[1]
    position = _position(func, owner, name)
    if position is None:
        return None
    local = func.name.value if owner is None else f"{owner.name.value}.{func.name.value}"
    answer = ctx.project.ask("calls_of", ctx.project.ref(None, local))
    if not answer or answer["modules"] not in ([], [ctx.project.module]):
        return None
    by_name = ctx.cache.get("calls_by_name")
    if by_name is None:
        by_name = ctx.cache["calls_by_name"] = _calls_by_name(ctx.module)
    static = any(dotted(d.decorator) == "staticmethod" for d in func.decorators)
    sites = _sites(by_name.get(func.name.value, []), func.name.value, owner, static)
    if sites is not None and owner is not None:  # a class of its own with the name calls its own
        sites = [s for s in sites if _class_of(s[1]) in (None, owner)
                 or func.name.value not in ctx.index.methods.get(_class_of(s[1]).name.value, {})]
    # the index keeps no calls made inside nested functions: counted here only
    if not sites or len([s for s in sites if not _unseen(s[1])]) != answer["count"]:
        return None
    return position, sites


def _class_of(chain: list[cst.CSTNode]) -> cst.ClassDef | None:
    return next((n for n in reversed(chain) if type(n) is cst.ClassDef), None)


def _unseen(chain: list[cst.CSTNode]) -> bool:
    """True when the project index keeps no link for a call *chain* encloses: it is made in a function
    defined inside another function.  (``self.m()`` in a subclass that inherits ``m`` the index links to
    the base's method: ``ProjectIndex.resolve``.)"""
    return sum(type(n) is cst.FunctionDef for n in chain) > 1


def built_in_module(cls: cst.ClassDef, ctx) -> list[tuple[cst.Call, list[cst.CSTNode]]] | None:
    """``[(call, chain)]``: every construction ``Cls(...)`` of the module-level class *cls* the project
    makes, each with the nodes enclosing it, when all of them are in this module and found here; else
    None (also when there is none)."""
    if not ctx.project or not any(stmt is cls for stmt in ctx.module.body):
        return None
    answer = ctx.project.ask("calls_of", ctx.project.ref(None, cls.name.value))
    if not answer or answer["modules"] not in ([], [ctx.project.module]):
        return None
    by_name = ctx.cache.get("calls_by_name")
    if by_name is None:
        by_name = ctx.cache["calls_by_name"] = _calls_by_name(ctx.module)
    sites = _sites(by_name.get(cls.name.value, []), cls.name.value, None, False)
    if not sites or len([s for s in sites if not _unseen(s[1])]) != answer["count"]:
        return None
    return sites
