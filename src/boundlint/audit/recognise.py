"""Handler recognition for the audit: which defs handle requests, their routes and request fields.

``classify`` answers for one def from what ``AuditCollector`` noted about it
(decorators, class bases, registrations, parameters); ``param_fields`` lists
the request collections an endpoint accepts.  Both are used only by
``boundlint.audit.collector``.
"""
from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field

import libcst as cst

from boundlint.analysis.context import Context


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
