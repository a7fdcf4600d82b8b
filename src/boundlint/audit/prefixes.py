"""Router prefixes for the exposure map's routes: ``GET /v1/users/{id}`` rather than ``GET /{id}``.

Per module, ``AuditCollector`` notes (through ``note_call`` and
``controller_path``):

- ``routers``: ``NAME = APIRouter(prefix="/users")``, ``Blueprint(..., url_prefix=)``,
  Litestar ``Router(path=)`` and the apps (``FastAPI()``, ``Flask()`` ...), each
  with its own prefix (``""``: none; None: not a literal, so unknown);
- ``includes``: ``app.include_router(users.router, prefix="/v1")``,
  ``app.register_blueprint(bp, url_prefix=)``, ``Router(path=, route_handlers=[...])``:
  which router (as the module names it) is mounted under which prefix;
- per handler, the receiver of its route decorator and the ``path`` of its
  Litestar ``Controller``.

``resolve(handlers_by_file, facts_by_file)`` then joins them across the
project: a handler's route gets every prefix above it, or the note
``(prefix unknown)`` when a prefix is not a literal, or when its router is
mounted nowhere in the audited files.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted

# Constructor name -> (kind, keyword holding the prefix, positional index of the prefix or None).
ROUTER_TYPES = {
    "APIRouter": ("router", "prefix", None), "Blueprint": ("router", "url_prefix", None),
    "Router": ("router", "path", 0), "Controller": ("router", "path", None),
    "FastAPI": ("app", None, None), "Flask": ("app", None, None), "Quart": ("app", None, None),
    "Sanic": ("app", None, None), "Litestar": ("app", None, None), "Starlette": ("app", None, None),
    "APIFlask": ("app", None, None), "NinjaAPI": ("app", None, None),
    "RouteTableDef": ("app", None, None),  # aiohttp: routes go to the app as written
}
INCLUDERS = {"include_router": "prefix", "register_blueprint": "url_prefix", "add_router": ""}
UNKNOWN = "(prefix unknown)"


def _literal(expr: cst.BaseExpression) -> str | None:
    """The text of a string literal, else None."""
    if isinstance(expr, cst.SimpleString) and isinstance(expr.evaluated_value, str):
        return expr.evaluated_value
    return None


def _argument(call: cst.Call, keyword: str | None, position: int | None) -> tuple[bool, str | None]:
    """``(given, literal)`` of the argument named *keyword* (or at *position*); ``(False, None)`` when absent."""
    for i, arg in enumerate(a for a in call.args if a.keyword is None and not a.star):
        if position is not None and i == position:
            return True, _literal(arg.value)
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return True, _literal(arg.value)
    return False, None


def note_call(node: cst.Call, ctx, facts: dict) -> None:
    """Record in *facts* (``routers``, ``includes``) what the call *node* says about router prefixes."""
    written = dotted(node.func) or ""
    last = written.rsplit(".", 1)[-1]
    if last in ROUTER_TYPES:
        kind, keyword, position = ROUTER_TYPES[last]
        given, prefix = _argument(node, keyword, position) if keyword else (False, None)
        parent = ctx.parent()
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
            facts["routers"][parent.targets[0].target.value] = [kind, prefix if given else "", given and prefix is None,
                                                                last]
        if last in ("Router", "Litestar"):  # Router(path="/api", route_handlers=[UserController, handler])
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value == "route_handlers" and isinstance(arg.value, (cst.List, cst.Tuple)):
                    for element in arg.value.elements:
                        _include(facts, element.value, ctx, prefix if given else "", given and prefix is None)
        return
    if last in INCLUDERS and isinstance(node.func, cst.Attribute) and node.args:
        into = dotted(node.func.value) or ""
        if last == "add_router":  # django-ninja: api.add_router("/users", router)
            if len(node.args) > 1:
                prefix = _literal(node.args[0].value)
                _include(facts, node.args[1].value, ctx, prefix or "", prefix is None, into)
            return
        given, prefix = _argument(node, INCLUDERS[last], None)
        # Flask: register_blueprint(bp, url_prefix=) replaces the blueprint's own url_prefix.
        _include(facts, node.args[0].value, ctx, prefix if given else "", given and prefix is None, into,
                 replaces=given and last == "register_blueprint")


def _include(facts: dict, target: cst.BaseExpression, ctx, prefix: str | None, unknown: bool, into: str = "",
             replaces: bool = False) -> None:
    written = dotted(target) or ""
    if written:
        facts["includes"].append([ctx.qualname(target) or "", written, prefix or "", unknown, into, replaces])


def controller_path(node: cst.ClassDef) -> tuple[bool, str | None] | None:
    """``(given, path)`` of a Litestar ``Controller`` subclass's ``path = "..."``; None for another class."""
    if not any((dotted(b.value) or "").rsplit(".", 1)[-1] == "Controller" for b in node.bases):
        return None
    for statement in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
        for small in getattr(statement, "body", ()):
            if isinstance(small, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                if any(isinstance(t, cst.Name) and t.value == "path" for t in targets) and small.value is not None:
                    return True, _literal(small.value)
    return False, None


def receiver(decorators) -> tuple[str, str] | None:
    """``(qualified, written)`` name of the object whose method is the route decorator (``router`` of
    ``@router.get("/x")``), from ``_Function.decorators``; None when no decorator is a method call."""
    for qual, written, is_call, _route in decorators:
        if is_call and "." in written:
            return (qual.rsplit(".", 1)[0] if "." in qual else ""), written.rsplit(".", 1)[0]
    return None


def _module_of(path: str) -> str:
    """``pkg/api/users.py`` -> ``pkg.api.users`` (``__init__`` dropped)."""
    stem = path[:-4] if path.endswith(".pyi") else path[:-3] if path.endswith(".py") else path
    parts = [p for p in stem.replace("\\", "/").split("/") if p not in ("", ".")]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _same_module(qual: str, path: str) -> bool:
    """True when the dotted module part of *qual* (``app.api.users`` of ``app.api.users.router``) names *path*."""
    module = qual.rsplit(".", 1)[0]
    dotted_path = _module_of(path)
    return bool(module) and (dotted_path == module or dotted_path.endswith("." + module))


def full_route(route: str, prefix: str | None) -> str:
    """*route* (``GET /{id}``) with *prefix* put before its path; None: ``GET /{id} (prefix unknown)``.

    A route whose path is not a literal (``GET``) or that has none (``rpc GetPosts``) is left as it is.
    """
    if prefix is None:
        return f"{route} {UNKNOWN}".strip()
    head, sep, tail = route.partition(" ")
    verb, path = (head, tail) if sep and not head.startswith("/") else ("", route)
    if not prefix or not path.startswith("/"):
        return route
    joined = prefix.rstrip("/") + "/" + path.lstrip("/")
    return f"{verb} {joined}".strip()


def prefix_of(path: str, facts: dict, handler: dict, project: list[tuple[str, dict]], depth: int = 0) -> str | None:
    """The prefix above *handler* (its facts, in the file *path* with module *facts*); None when unknown.

    *project* lists ``(path, facts)`` of every audited file.  Follows mounts up to 4 levels.
    """
    controller = handler.get("controller")
    if controller is not None:
        given, literal = controller
        if given and literal is None:
            return None
        name = handler.get("controller_class") or ""
        mount = _mounted(path, name, project, depth)
        return None if mount is None else mount[0] + (literal or "")
    found = handler.get("receiver")
    if not found:
        return ""
    qual, written = found
    routers = facts.get("routers") or {}
    if written in routers:
        return _below(path, written, routers[written], project, depth)
    # A router defined in another module and imported here: `from .routers import router`.
    for other_path, other in project:
        if qual and _same_module(qual, other_path) and qual.rsplit(".", 1)[1] in (other.get("routers") or {}):
            name = qual.rsplit(".", 1)[1]
            return _below(other_path, name, other["routers"][name], project, depth)
    return None


def _below(path: str, name: str, router: list, project: list[tuple[str, dict]], depth: int) -> str | None:
    """The whole prefix of the routes of *router* (``routers[name]`` of the file *path*); None when unknown."""
    kind, literal, unknown = router[:3]
    if unknown:
        return None
    if kind == "app":
        return literal or ""
    mount = _mounted(path, name, project, depth)
    if mount is None:
        return None
    above, replaced = mount
    return above if replaced else above + (literal or "")


def _mounted(path: str, name: str, project: list[tuple[str, dict]], depth: int) -> tuple[str, bool] | None:
    """``(prefix above, replaces own)`` of the router *name* of the file *path*: where it is mounted, and
    whether that mount replaces the router's own prefix (Flask); None when it is mounted nowhere in the
    audited files or under a prefix that is not a literal."""
    if depth > 4:
        return None
    module = _module_of(path)
    for other_path, other in project:
        for qual, written, prefix, unknown, into, replaces in other.get("includes") or ():
            here = other_path == path and written == name
            there = bool(qual) and qual.rsplit(".", 1)[-1] == name and _same_module(qual, path)
            there = there or (bool(module) and written == f"{module.rsplit('.', 1)[-1]}.{name}")
            if not (here or there):
                continue
            if unknown:
                return None
            parent = (other.get("routers") or {}).get(into)
            if parent is None or parent[0] == "app":
                return prefix, replaces
            above = _below(other_path, into, parent, project, depth + 1)
            return (None if above is None else (above + prefix, replaces))
    return None
