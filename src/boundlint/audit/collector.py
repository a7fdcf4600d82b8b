"""Per-file facts for ``boundlint audit``, gathered in the rules' own traversal.

``AuditCollector`` has rule-style ``visit_<Node>`` / ``leave_<Node>`` hooks;
the engine runs it next to the rules (``check_files(..., collectors=(AuditCollector,))``)
and calls ``facts(position)`` at the end, which returns plain picklable data:

- ``functions``: every def with its qualified name, line span and the
  same-module functions it calls (or defines);
- ``handlers``: the defs recognised as request handlers, with framework,
  route and the request collection fields they accept;
- ``spawns``: every fan-out site with the fan-out rules' own judgement of
  whether it is bounded and by what.

Which findings are reachable from which handler is worked out later, in
``boundlint.audit.model``, from these facts and the file's findings.
"""
from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context, Loop
from boundlint.analysis.names import dotted
from boundlint.analysis.spawns import Spawn, executor_constructor, spawn_of
from boundlint.rules.base import short

# Route decorators: ``@app.get(...)``, ``@router.post(...)``, ``@bp.route(...)``, ``@routes.get(...)``.
ROUTE_METHODS = frozenset({
    "get", "post", "put", "patch", "delete", "head", "options", "trace", "route", "api_route",
    "websocket", "websocket_route", "api_operation", "view",
})
_HTTP_VERBS = ("get", "post", "put", "patch", "delete", "head", "options", "trace")
# Import roots -> framework, in the order a module's imports are judged.
FRAMEWORK_ROOTS = (
    ("fastapi", "fastapi"), ("ninja", "django-ninja"), ("litestar", "litestar"), ("starlite", "litestar"),
    ("sanic", "sanic"), ("aiohttp", "aiohttp"), ("quart", "flask"), ("flask", "flask"), ("apiflask", "flask"),
    ("flask_smorest", "flask"), ("flask_openapi3", "flask"), ("starlette", "starlette"),
    ("rest_framework", "django"), ("django", "django"),
)
# Base classes whose HTTP-verb methods handle requests (matched on the qualified or written name).
VIEW_BASES = (
    ("starlette.endpoints.HTTPEndpoint", "starlette"), ("starlette.endpoints.WebSocketEndpoint", "starlette"),
    ("django.views.*", "django"), ("rest_framework.*", "django"), ("ninja.*", "django-ninja"),
    ("flask.views.*", "flask"), ("sanic.views.HTTPMethodView", "sanic"), ("aiohttp.web.View", "aiohttp"),
    ("aiohttp.web_urldispatcher.View", "aiohttp"), ("litestar.Controller", "litestar"),
)
_VIEW_BASE_NAMES = {
    "HTTPEndpoint": "starlette", "MethodView": "flask", "HTTPMethodView": "sanic", "APIView": "django",
    "GenericAPIView": "django", "ViewSet": "django", "ModelViewSet": "django", "TemplateView": "django",
}
# Function-view decorators of Django and Django REST framework.
DJANGO_VIEW_DECORATORS = frozenset({
    "django.views.decorators.http.require_http_methods", "django.views.decorators.http.require_GET",
    "django.views.decorators.http.require_POST", "django.views.decorators.http.require_safe",
    "rest_framework.decorators.api_view",
})
# Calls that register a handler function: ``app.add_route(path, f)``, ``Route(path, f)``, ``web.get(path, f)``.
REGISTRARS = frozenset({
    "add_route", "add_api_route", "add_websocket_route", "add_api_websocket_route", "add_url_rule",
    "add_get", "add_post", "add_put", "add_patch", "add_delete", "add_head", "add_view",
})
REGISTRAR_QUALNAMES = frozenset({
    "starlette.routing.Route", "starlette.routing.WebSocketRoute", "fastapi.routing.APIRoute",
    *(f"aiohttp.web.{verb}" for verb in _HTTP_VERBS), "aiohttp.web.route", "aiohttp.web.view",
    "django.urls.path", "django.urls.re_path",
})
_HANDLER_KWARGS = frozenset({"endpoint", "view_func", "handler", "view"})
# Parameters that carry the framework's plumbing rather than request data.
_PLUMBING = frozenset({"self", "cls", "request", "req", "context", "ctx", "response", "background_tasks", "websocket", "session", "db"})
_RESPONDERS = frozenset({"render", "redirect", "render_to_response", "render_to_string"})
_NOT_REQUEST_DATA = frozenset({"Path", "Header", "Cookie", "Depends", "Security", "Provide", "Dependency"})
_QUERY_LISTS = frozenset({"getlist", "getall", "get_all", "getlist_or_none"})
_BATCH_WORDS = frozenset({"batched", "chunked", "chunks", "batch", "grouper"})
# Text that any recognised handler's module must contain (a framework import or a servicer base).
_HANDLER_HINT = re.compile(
    r"\b(?:fastapi|starlette|litestar|starlite|sanic|aiohttp|flask|quart|apiflask|django|ninja|rest_framework)\b|Servicer\b")


@dataclass(eq=False)
class _Function:
    node: cst.FunctionDef
    name: str  # qualified: Class.method, outer.inner
    parent: "_Function | None"
    class_node: cst.ClassDef | None
    class_bases: tuple[str, ...]
    decorators: tuple[tuple[str, str, bool, str], ...]  # (qualified name, written name, is call, route text)
    params: tuple[str, ...]
    module_level: bool
    callees: list[int] = field(default_factory=list)  # ids of FunctionDef nodes
    grpc_fields: dict[str, tuple[cst.CSTNode, str | None]] = field(default_factory=dict)
    query_lists: list[tuple[cst.CSTNode, str, str | None]] = field(default_factory=list)
    responds: bool = False  # builds an HTTP response (``HttpResponse(...)``, ``render(...)``)


@dataclass(eq=False)
class _Spawn:
    node: cst.Call
    fn: _Function | None
    kind: str
    api: str
    source: str | None
    origin: str | None  # dotted expression the items come from, through local aliases
    target: str | None
    bounded: bool
    limit: str | None


class AuditCollector:
    """Gathers handlers, call graph and fan-out sites of one module (see module doc)."""

    name = "audit"
    code = "audit"  # named in BND002 messages when a hook fails

    @classmethod
    def may_apply(cls, text: str, settings) -> bool:
        """False when *text* can hold no request handler: no web framework, no servicer, no configured name."""
        if _HANDLER_HINT.search(text):
            return True
        for pattern in _configured_patterns(settings):
            literal = re.split(r"[*?\[]", pattern.rsplit(".", 1)[-1])[0]
            if not literal or literal in text:
                return True
        return False

    def __init__(self) -> None:
        self._stack: list[_Function] = []
        self._names: list[str] = []
        self._functions: list[_Function] = []
        self._by_node: dict[int, _Function] = {}
        self._spawns: list[_Spawn] = []
        self._registered: list[tuple[int, str, str]] = []  # (def node id, registrar, route)
        self._roots: set[str] = set()
        self._ctx: Context | None = None

    # -- imports and names ----------------------------------------------------------
    def visit_Import(self, node: cst.Import, ctx: Context) -> None:
        for alias in node.names:
            self._roots.add((dotted(alias.name) or "").split(".", 1)[0])

    def visit_ImportFrom(self, node: cst.ImportFrom, ctx: Context) -> None:
        if node.module is not None and not node.relative:
            self._roots.add((dotted(node.module) or "").split(".", 1)[0])

    def visit_ClassDef(self, node: cst.ClassDef, ctx: Context) -> None:
        self._names.append(node.name.value)

    def leave_ClassDef(self, node: cst.ClassDef, ctx: Context) -> None:
        self._names.pop()

    # -- functions --------------------------------------------------------------------
    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        self._ctx = ctx
        scope = ctx.scope
        cls = scope.node if scope.kind == "class" and isinstance(scope.node, cst.ClassDef) else None
        bases = tuple(_name(arg.value, ctx) for arg in cls.bases) if cls is not None else ()
        decorators = []
        for deco in node.decorators:
            d = deco.decorator
            target = d.func if isinstance(d, cst.Call) else d
            decorators.append((ctx.qualname(target) or "", dotted(target) or "", isinstance(d, cst.Call), _route_text(d)))
        p = node.params
        params = tuple(x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params))
        parent = self._stack[-1] if self._stack else None
        fn = _Function(node, ".".join([*self._names, node.name.value]), parent, cls, bases, tuple(decorators), params,
                       scope.kind == "module")
        if parent is not None:
            parent.callees.append(id(node))  # code defined inside a function runs on its behalf
        self._functions.append(fn)
        self._by_node[id(node)] = fn
        self._stack.append(fn)
        self._names.append(node.name.value)

    def leave_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        if self._stack and self._stack[-1].node is node:
            self._stack.pop()
            self._names.pop()

    # -- calls: call graph, fan-out sites, registrations, query lists -------------------
    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        fn = self._stack[-1] if self._stack else None
        if fn is not None:
            target = ctx.resolve_callable(node.func)
            if isinstance(target, cst.FunctionDef):
                fn.callees.append(id(target))
            self._query_list(node, fn, ctx)
            if not fn.responds:
                called = (dotted(node.func) or "").rsplit(".", 1)[-1]
                fn.responds = called.endswith("Response") or called in _RESPONDERS
        self._registration(node, ctx)
        spawn = spawn_of(node, ctx)
        if spawn is not None:
            if fn is not None and spawn.target is not None:
                target = ctx.resolve_callable(spawn.target)
                if isinstance(target, cst.FunctionDef):
                    fn.callees.append(id(target))
            self._spawn(spawn, fn, ctx)

    def visit_For(self, node: cst.For, ctx: Context) -> None:
        self._iterated(node.iter, ctx)

    def _visit_comp(self, node: cst.BaseComp, ctx: Context) -> None:
        comp_for = node.for_in
        while comp_for is not None:
            self._iterated(comp_for.iter, ctx)
            comp_for = comp_for.inner_for_in

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _visit_comp

    def _iterated(self, expr: cst.BaseExpression, ctx: Context) -> None:
        """Note ``request.<field>`` iterated by a gRPC-shaped method, with its length check if any."""
        fn = self._stack[-1] if self._stack else None
        if fn is None or not _grpc_shaped(fn):
            return
        expr = _unwrap(expr)
        origin = _origin(expr, ctx)
        request = fn.params[1]
        if origin is None or not origin.startswith(request + ".") or origin in fn.grpc_fields:
            return
        key = origin.split(".")[1]
        field_key = f"{request}.{key}"
        if field_key in fn.grpc_fields:
            return
        limit = limits.guarded(expr, ctx) or limits.source_limit(expr, ctx)
        if limit is None and not isinstance(expr, cst.Attribute):
            bound = ctx.lookup(expr.value) if isinstance(expr, cst.Name) else None
            if bound and bound[1] and bound[1][-1] is not None:
                limit = limits.guarded(bound[1][-1], ctx)
        fn.grpc_fields[field_key] = (expr, limit)

    def _query_list(self, node: cst.Call, fn: _Function, ctx: Context) -> None:
        """``request.args.getlist("ids")`` and the like: a query parameter read as a list."""
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in _QUERY_LISTS or not node.args:
            return
        first = node.args[0].value
        if not isinstance(first, cst.SimpleString):
            return
        root = (dotted(func.value) or "").split(".", 1)[0]
        if root not in fn.params and root != "self" and not _request_global(root, ctx):
            return
        limit = None
        parent = ctx.parent()
        if isinstance(parent, cst.Subscript):
            limit = limits.source_limit(parent, ctx)
        fn.query_lists.append((node, _query_name(node) or "query", limit))

    def _registration(self, node: cst.Call, ctx: Context) -> None:
        q = ctx.qualname(node.func) or ""
        written = dotted(node.func) or ""
        short_name = written.rsplit(".", 1)[-1]
        if q not in REGISTRAR_QUALNAMES and not (isinstance(node.func, cst.Attribute) and short_name in REGISTRARS):
            return
        candidates = [a.value for a in node.args if a.keyword is not None and a.keyword.value in _HANDLER_KWARGS]
        candidates += [a.value for a in node.args if a.keyword is None and a.star == ""][1:]
        route = ""
        for a in node.args:
            if a.keyword is None and isinstance(a.value, cst.SimpleString) and isinstance(a.value.evaluated_value, str):
                route = a.value.evaluated_value
                if route.startswith("/") or "<" in route or "{" in route or route == "":
                    break
        for expr in candidates:
            target = ctx.resolve_callable(expr)
            if isinstance(target, cst.FunctionDef):
                verb = short_name[4:].upper() if short_name.startswith("add_") and short_name[4:] in _HTTP_VERBS else ""
                self._registered.append((id(target), q or written, f"{verb} {route}".strip()))
                return

    # -- fan-out judgement (the fan-out rules' own helpers) -----------------------------
    def _spawn(self, spawn: Spawn, fn: _Function | None, ctx: Context) -> None:
        from boundlint.rules import fanout

        target = short(spawn.target) if spawn.target is not None else None
        if spawn.kind == "gather":
            self._gather(spawn, fn, ctx)
            return
        if spawn.kind == "pool":
            ctor = executor_constructor(spawn.receiver, ctx) if spawn.receiver is not None else None
            size = fanout._pool_size(ctor) if ctor is not None else None
            items = None
            if not spawn.api.endswith(("submit", "apply_async")):
                positional = [a.value for a in spawn.call.args if a.keyword is None and a.star == ""]
                items = positional[1] if len(positional) > 1 else None
            elif ctx.frame.loops and ctx.frame.loops[-1].iter is not None:
                items = ctx.frame.loops[-1].iter
            source = short(items) if items is not None else None
            origin = _origin(items, ctx)
            if ctor is not None and size is not None and limits.size_from_input(size, ctx):
                self._add(spawn, fn, ctx, source, origin, target, False, None)
                return
            if ctor is not None:
                limit = f"a pool of `{short(size)}` workers" if size is not None else "the pool's default size"
            else:
                limit = "the executor's pool size"
            self._add(spawn, fn, ctx, source, origin, target, True, limit)
            return
        if spawn.kind == "thread" and isinstance(spawn.receiver, cst.Attribute):
            self._add(spawn, fn, ctx, None, None, target, True, "one thread kept on an attribute")
            return
        loops = fanout.region_loops(spawn, ctx) if spawn.kind == "task" else list(ctx.frame.loops)
        if not loops:
            self._add(spawn, fn, ctx, None, None, target, True, "one per call")
            return
        found, limit = fanout.spawn_limit(spawn, loops, ctx)
        if found is None:
            descs = [limits.loop_limit(loop, ctx) for loop in loops]
            limit = ", ".join(dict.fromkeys(d for d in descs if d)) or "bounded loops"
            self._add(spawn, fn, ctx, _loop_text(loops), None, target, True, limit)
            return
        origin = _origin(found.loop.iter, ctx) if found.loop.iter is not None else None
        self._add(spawn, fn, ctx, found.source, origin, target, limit is not None, limit)

    def _gather(self, spawn: Spawn, fn: _Function | None, ctx: Context) -> None:
        from boundlint.rules import fanout

        call = spawn.call
        if spawn.api == "asyncio.gather":
            candidates = [a.value for a in call.args if a.star == "*"]
        else:
            first = next((a.value for a in call.args if a.keyword is None and a.star == ""), None)
            candidates = [first] if first is not None else []
        for expr in candidates:
            built = fanout.new_awaitables(expr, ctx)
            if built is None:
                continue
            bounded = fanout.UnboundedGather._bounded(built, ctx)
            source_expr = built.sources[0] if built.sources else expr
            target = short(built.target) if built.target is not None else None
            limit = _gather_limit(built, ctx) if bounded else None
            if bounded and not limit:
                limit = "bounded"
            self._add(spawn, fn, ctx, short(source_expr), _origin(source_expr, ctx), target, bounded, limit)
            return
        if spawn.api == "asyncio.gather" and not candidates:
            count = sum(1 for a in call.args if a.keyword is None)
            if count:
                self._add(spawn, fn, ctx, None, None, None, True, f"a fixed set of {count} awaitable{'s' if count != 1 else ''}")

    def _add(self, spawn: Spawn, fn, ctx, source, origin, target, bounded, limit) -> None:
        self._spawns.append(_Spawn(spawn.call, fn, spawn.kind, spawn.api, source, origin, target, bounded, limit))

    # -- result ---------------------------------------------------------------------------
    def facts(self, position) -> dict:
        """Picklable facts of the module; *position(node)* gives ``(line, column, end_line)``."""
        ctx = self._ctx
        framework = _module_framework(self._roots)
        index = {id(fn.node): i for i, fn in enumerate(self._functions)}
        functions = []
        for fn in self._functions:
            line, column, end = position(fn.node)
            callees = sorted({index[c] for c in fn.callees if c in index})
            functions.append({"name": fn.name, "line": position(fn.node.name)[0], "start": line, "end": end, "callees": callees})
        registered = {}
        for node_id, registrar, route in self._registered:
            registered.setdefault(node_id, (registrar, route))
        handlers = []
        options = _options(ctx)
        path = ctx.path if ctx is not None else ""
        for i, fn in enumerate(self._functions):
            found = _classify(fn, framework, registered.get(id(fn.node)), options, path, self._roots)
            if found is None:
                continue
            kind, route = found
            handlers.append({
                "function": i,
                "framework": kind,
                "route": route,
                "params": [p for p in fn.params if p not in ("self", "cls")],
                "fields": self._fields(fn, kind, position),
            })
        spawns = []
        for s in self._spawns:
            line, column, _ = position(s.node)
            spawns.append({
                "function": index.get(id(s.fn.node)) if s.fn is not None else None,
                "line": line, "column": column, "kind": s.kind, "api": s.api,
                "source": s.source, "origin": s.origin, "target": s.target,
                "bounded": s.bounded, "limit": s.limit,
            })
        return {"functions": functions, "handlers": handlers, "spawns": spawns}

    def _fields(self, fn: _Function, kind: str, position) -> list[dict]:
        """The request collection fields *fn* accepts, each with its limit or None."""
        out = []
        if kind == "grpc":
            for key, (node, limit) in fn.grpc_fields.items():
                out.append({"name": key, "type": "repeated", "line": position(node)[0], "limit": limit})
        for node, name, limit in fn.query_lists:
            out.append({"name": name, "type": "list", "line": position(node)[0], "limit": limit})
        if self._ctx is not None and kind != "grpc":
            try:
                out.extend(_param_fields(fn, self._ctx, position))
            except Exception:  # the request-model helpers are best effort here; the map still renders
                pass
        return out


# -- helpers ----------------------------------------------------------------------------

def _name(expr: cst.BaseExpression, ctx: Context) -> str:
    if isinstance(expr, cst.Subscript):
        expr = expr.value
    return ctx.qualname(expr) or dotted(expr) or ""


def _route_text(d: cst.BaseExpression) -> str:
    """``POST /items`` from ``@app.post("/items")``; the verb only when the path is not a literal."""
    if not isinstance(d, cst.Call):
        return ""
    verb = ""
    target = d.func
    last = target.attr.value if isinstance(target, cst.Attribute) else target.value if isinstance(target, cst.Name) else ""
    if last in _HTTP_VERBS or last == "websocket":
        verb = last.upper()
    path = ""
    for a in d.args:
        if (a.keyword is None or a.keyword.value in ("path", "rule", "uri")) and isinstance(a.value, cst.SimpleString):
            value = a.value.evaluated_value
            if isinstance(value, str):
                path = value
                break
    if not verb:
        for a in d.args:
            if a.keyword is not None and a.keyword.value == "methods" and isinstance(a.value, (cst.List, cst.Tuple)):
                verbs = [e.value.evaluated_value for e in a.value.elements if isinstance(e.value, cst.SimpleString)]
                verb = ",".join(str(v).upper() for v in verbs)
    return f"{verb} {path}".strip()


def _module_framework(roots: set[str]) -> str | None:
    for root, name in FRAMEWORK_ROOTS:
        if root in roots:
            return name
    return None


def _listed(settings, name: str) -> tuple[str, ...]:
    value = settings.option(name, None)
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return tuple(str(v) for v in value)


def _options(ctx: Context | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(handler decorator patterns, handler base patterns)`` from the settings."""
    if ctx is None:
        return (), ()
    s = ctx.settings
    return _listed(s, "handler-decorators") + _listed(s, "extra-endpoint-decorators"), _listed(s, "handler-bases")


def _configured_patterns(settings) -> tuple[str, ...]:
    return _listed(settings, "handler-decorators") + _listed(settings, "extra-endpoint-decorators") + _listed(settings, "handler-bases")


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) or fnmatch.fnmatchcase(name.rsplit(".", 1)[-1], p) for p in patterns)


def _grpc_shaped(fn: _Function) -> bool:
    """A ``(self, request, context)`` method of a class deriving from ``*Servicer``."""
    if fn.class_node is None or len(fn.params) != 3 or fn.params[0] != "self":
        return False
    ctx_name = fn.params[2].lstrip("_")
    if "context" not in ctx_name and ctx_name != "ctx":
        return False
    return any(b.rsplit(".", 1)[-1].endswith("Servicer") for b in fn.class_bases)


def _classify(fn: _Function, framework: str | None, registered, options, path: str, roots: set[str]) -> tuple[str, str] | None:
    """``(framework, route)`` when *fn* handles requests, else None."""
    decorators, bases = options
    for qual, written, is_call, route in fn.decorators:
        if decorators and (_matches(qual, decorators) or _matches(written, decorators)):
            return "configured", route
        if qual in DJANGO_VIEW_DECORATORS:
            return "django", route
        root = qual.split(".", 1)[0]
        last = (qual or written).rsplit(".", 1)[-1]
        if root in ("litestar", "starlite") and last in ROUTE_METHODS:
            return "litestar", route or last.upper()
        if is_call and "." in written and last in ROUTE_METHODS and framework is not None:
            return framework, route
    if _grpc_shaped(fn) and not fn.node.name.value.startswith("_"):
        return "grpc", f"rpc {fn.node.name.value}"
    if fn.class_node is not None and fn.params and fn.params[0] == "self":
        method = fn.node.name.value
        if bases and any(_matches(b, bases) for b in fn.class_bases) and not method.startswith("_"):
            return "configured", method
        if method in _HTTP_VERBS or method == "websocket":
            for base in fn.class_bases:
                kind = _view_base(base)
                if kind is not None:
                    return kind, method.upper()
    if registered is not None and framework is not None:
        return framework, registered[1]
    if (fn.module_level and framework == "django" and fn.params and fn.params[0] == "request"
            and _is_views_module(path) and not fn.node.name.value.startswith("_") and (fn.responds or fn.node.decorators)):
        return "django", ""
    return None


def _view_base(base: str) -> str | None:
    for pattern, kind in VIEW_BASES:
        if fnmatch.fnmatchcase(base, pattern):
            return kind
    return _VIEW_BASE_NAMES.get(base.rsplit(".", 1)[-1]) if "." not in base or base.split(".", 1)[0] in ("views", "generic", "web") else None


def _is_views_module(path: str) -> bool:
    parts = os.path.normpath(path).split(os.sep)
    return parts[-1] == "views.py" or (len(parts) > 1 and parts[-2] == "views")


def _unwrap(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``enumerate(x)`` / ``x.items()`` / ``range(len(x))`` / ``list(x)`` -> ``x``."""
    for _ in range(3):
        if not isinstance(expr, cst.Call):
            break
        func = expr.func
        if isinstance(func, cst.Name) and func.value in ("enumerate", "sorted", "reversed", "list", "set", "tuple") and expr.args:
            expr = expr.args[0].value
        elif isinstance(func, cst.Name) and func.value == "range" and len(expr.args) == 1:
            inner = expr.args[0].value
            if isinstance(inner, cst.Call) and dotted(inner.func) == "len" and inner.args:
                expr = inner.args[0].value
            else:
                break
        elif isinstance(func, cst.Attribute) and func.attr.value in ("items", "keys", "values") and not expr.args:
            expr = func.value
        else:
            break
    return expr


def _origin(expr: cst.BaseExpression | None, ctx: Context, depth: int = 0) -> str | None:
    """The dotted expression items come from, following local aliases and loop targets (``uris = request.uris``)."""
    if expr is None or depth > 3:
        return None
    expr = _unwrap(expr)
    if isinstance(expr, cst.Await):
        expr = expr.expression
    if isinstance(expr, cst.Subscript):
        return _origin(expr.value, ctx, depth + 1)
    if isinstance(expr, cst.Call):
        query = _query_name(expr)
        if query is not None:
            return query
        if isinstance(expr.func, cst.Attribute) and not expr.args:  # await request.json()
            return dotted(expr.func)
    if isinstance(expr, cst.Call) and dotted(expr.func) in ("map", "filter", "zip") and expr.args:
        return _origin(expr.args[-1].value, ctx, depth + 1)
    if isinstance(expr, cst.Call) and (dotted(expr.func) or "").rsplit(".", 1)[-1] in _BATCH_WORDS and expr.args:
        return _origin(expr.args[0].value, ctx, depth + 1)
    if isinstance(expr, cst.Name):
        loop = ctx.loop_with_target(expr.value)
        if loop is not None and loop.iter is not None:
            return _origin(loop.iter, ctx, depth + 1)
        bound = ctx.lookup(expr.value)
        if bound is not None and bound[0].kind != "module" and bound[1] and bound[1][-1] is not None:
            inner = _origin(bound[1][-1], ctx, depth + 1)
            if inner is not None:
                return inner
    return dotted(expr)


def _request_global(name: str, ctx: Context) -> bool:
    """True for Flask's and Quart's global ``request`` proxy."""
    return (ctx.names.resolve_name(name) or "") in ("flask.request", "quart.request")


def _query_name(call: cst.Call) -> str | None:
    """``query `id``` for ``request.args.getlist("id")``."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in _QUERY_LISTS and call.args:
        first = call.args[0].value
        if isinstance(first, cst.SimpleString) and isinstance(first.evaluated_value, str):
            return f"query `{first.evaluated_value}`"
    return None


def _loop_text(loops: list[Loop]) -> str | None:
    for loop in reversed(loops):
        if loop.iter is not None:
            return short(loop.iter)
    return None


def _gather_limit(built, ctx: Context) -> str | None:
    """What bounds a gather the fan-out rule judged bounded (the same checks, with their descriptions)."""
    if limits.teardown_call(built.target):
        return "releases existing resources"
    if built.target is not None:
        found = limits.callee_limit(built.target, ctx)
        if found:
            return found
    descs = []
    for s in built.sources:
        if s is not None:
            found = limits.source_limit(s, ctx) or limits.batch_limit(s, ctx)
            if found:
                descs.append(found)
    return ", ".join(dict.fromkeys(descs)) or None


def _param_fields(fn: _Function, ctx: Context, position) -> list[dict]:
    """Collection parameters of an endpoint and collection fields of the same-module models it takes."""
    from boundlint.analysis import models as m

    out = []
    params = [*fn.node.params.posonly_params, *fn.node.params.params, *fn.node.params.kwonly_params]
    for param in params:
        name = param.name.value
        if name in ("self", "cls") or param.annotation is None:
            continue
        ann = param.annotation.annotation
        markers = [param.default] if isinstance(param.default, cst.Call) else []
        if isinstance(ann, cst.Subscript) and m.short_name(ann.value, ctx) == "Annotated":
            markers += [v for v in m._slice_values(ann)[1:] if isinstance(v, cst.Call)]
        if any(m.short_name(c.func, ctx) in _NOT_REQUEST_DATA for c in markers):
            continue  # injected dependencies, path segments and headers are not request collections
        shape = m.annotation_shape(ann, ctx)
        if shape is not None:
            limit = shape.limit or (m.meta_limit(param.default, ctx) if isinstance(param.default, cst.Call) else None)
            if name not in _PLUMBING or limit is None:
                out.append({"name": name, "type": shape.text, "line": position(param)[0], "limit": limit})
            continue
        for ref in m.type_refs(ann):
            cls = ctx.index.classes.get(ref)
            if cls is None:
                continue
            kind = m.model_kind(cls, ctx)
            if kind is None:
                continue
            model = m.Model(ref, cls, kind[0], kind[1])
            fields = m.collection_fields(model, ctx)
            checked = m.model_len_checks([cls], {f.name for f in fields}, ctx) if fields else set()
            for f in fields:
                limit = f.limit or ("a validator that checks `len`" if f.name in checked else None)
                out.append({"name": f"{ref}.{f.name}", "type": f.shape.text, "line": position(f.node)[0], "limit": limit})
    return out
