"""BND202 unbounded-endpoint-collection, and recognising web endpoints for the whole family.

An endpoint is a function under a route decorator: ``@app.get`` /
``@router.post`` ... in a module that imports FastAPI, Django Ninja or
Litestar (their typed parameters are judged), Starlette, Sanic, aiohttp and
friends (only their annotations are read, to find request models), Litestar's
``@get`` / ``@post``, or a decorator named in ``extra-endpoint-decorators``.
"""
from __future__ import annotations

import fnmatch
import re

import libcst as cst

from boundlint.analysis import models as m
from boundlint.analysis.context import Context
from boundlint.rules.base import Example, Rule

DEFAULT_EXTRA_ENDPOINT_DECORATORS: tuple[str, ...] = ()
# Web frameworks whose route decorators mark endpoints, by import root.
OTHER_FRAMEWORKS = ("starlette", "sanic", "aiohttp", "flask_openapi3", "quart_schema", "apiflask", "flask_smorest", "webargs")
HTTP_METHODS = frozenset({
    "get", "post", "put", "patch", "delete", "head", "options", "trace", "api_route", "websocket",
    "route", "api_operation", "add_route",
})
# Decorators that name a schema the endpoint loads its input with.
INPUT_DECORATORS = frozenset({"use_args", "use_kwargs", "arguments", "validate", "input", "expect", "body"})


def endpoint_framework(func: cst.FunctionDef, ctx: Context, extra: tuple[str, ...] = ()) -> tuple[str, cst.BaseExpression] | None:
    """``(framework, decorator)`` when *func* is a web endpoint, else None.

    Framework is ``fastapi`` (FastAPI, Django Ninja: typed parameters with
    ``Query`` / ``Body`` / ``Form``), ``litestar``, ``extra`` (a configured
    decorator, read FastAPI-style) or ``other`` (Starlette, Sanic, aiohttp,
    flask-openapi3: parameters are not judged, annotations still mark models).
    """
    for deco in func.decorators:
        d = deco.decorator
        target = d.func if isinstance(d, cst.Call) else d
        name = m.full_name(target, ctx)
        if not name:
            continue
        if extra and any(fnmatch.fnmatchcase(name, p) for p in extra):
            return "extra", d
        root = name.split(".", 1)[0]
        if root in ("litestar", "starlite"):
            if name.rsplit(".", 1)[-1] in HTTP_METHODS:
                return "litestar", d
            continue
        if not isinstance(d, cst.Call) or not isinstance(target, cst.Attribute):
            continue
        if target.attr.value not in HTTP_METHODS:
            continue
        if ctx.names.imports_from(("fastapi", "ninja")):
            return "fastapi", d
        if ctx.names.imports_from(("litestar", "starlite")):
            return "litestar", d
        if ctx.names.imports_from(OTHER_FRAMEWORKS):
            return "other", d
    return None


def input_decorator_models(func: cst.FunctionDef, ctx: Context) -> list[str]:
    """Names of schemas an input decorator loads the request with (``@use_args(S)``, ``@blp.arguments(S)``...)."""
    out = []
    for deco in func.decorators:
        d = deco.decorator
        if not isinstance(d, cst.Call):
            continue
        if m.short_name(d.func, ctx) not in INPUT_DECORATORS:
            continue
        for a in d.args:
            if a.keyword is not None and a.keyword.value not in ("json", "query", "form", "body", "schema", "args"):
                continue
            value = a.value
            if isinstance(value, cst.Call):
                value = value.func
            if isinstance(value, cst.Name):
                out.append(value.value)
    return out


def function_params(func: cst.FunctionDef) -> list[cst.Param]:
    """All named parameters of *func* (positional-only, regular, keyword-only)."""
    p = func.params
    return [*p.posonly_params, *p.params, *p.kwonly_params]


_PARAM_SOURCES = frozenset({"Query", "Body", "Form", "File", "Parameter"})
# Litestar injects these by name: the whole query mapping, headers, cookies, state...
_LITESTAR_RESERVED = frozenset({"request", "socket", "state", "headers", "cookies", "query", "scope", "body"})
_NOT_COLLECTION_SOURCES = frozenset({"Path", "Header", "Cookie", "Depends", "Security", "Provide", "Dependency"})


class UnboundedEndpointCollection(Rule):
    """
    ## What it does
    Flags a web endpoint parameter of collection type with no maximum size:
    FastAPI / Django Ninja `list[str] = Query()`, `Annotated[list[int], Query()]`,
    `Body()`, `Form()`, `File()`, or a bare `list[...]` / `dict[...]` body;
    Litestar query parameters and `data` bodies.  Endpoints are functions
    decorated with `@app.get/post/put/patch/delete/api_route/websocket`,
    `@router.*` (any router name) in a module that imports the framework,
    Litestar's `@get` / `@post` ..., and the decorators listed in the
    `extra-endpoint-decorators` setting.  The finding is on the parameter.

    ## Why is this bad?
    The endpoint's signature is its request contract.  `?ids=...` repeated
    20,000 times, or a JSON array of 20,000 objects, is accepted and handed
    to the handler, which loops, queries or fans out once per item.

    ## What counts as a limit
    - `Query(max_length=N)`, `Body(max_length=N)`, `Form(max_length=N)`,
      Litestar `Parameter(max_items=N)` / `Body(max_length=N)`;
    - `Annotated[list[X], Query(), Field(max_length=N)]`, `MaxLen(N)`,
      `conlist(X, max_length=N)`, or a same-module alias carrying one;
    - a fixed-length tuple.
    Path, header, cookie and dependency parameters are not judged, nor are
    request models (BND201 judges their fields).
    """
    code, name = "BND202", "unbounded-endpoint-collection"
    # An endpoint is recognised only in a module that imports its framework.
    prefilter = re.compile(r"fastapi|ninja|litestar|starlite|starlette|sanic|aiohttp|flask_openapi3|quart_schema|apiflask|flask_smorest|webargs")
    widening_options = ("extra-endpoint-decorators",)
    message = "endpoint `{endpoint}` parameter `{param}` (`{type}`) accepts any number of items"
    hint = ("give the parameter a maximum: `Query(max_length=N)` / `Body(max_length=N)` / `Form(max_length=N)`, "
            "`Annotated[list[X], Field(max_length=N)]`, or Litestar `Parameter(max_items=N)`")
    invalid = (
        Example("query_list", """
            from fastapi import FastAPI, Query

            app = FastAPI()

            @app.get("/posts")
            async def get_posts(ids: list[str] = Query(default=[])):  # error: BND202 col 21
                return await load(ids)
            """),
    )
    valid = (
        Example("query_max_length", """
            from typing import Annotated

            from fastapi import FastAPI, Query

            app = FastAPI()

            @app.get("/posts")
            async def get_posts(ids: Annotated[list[str], Query(max_length=50)] = []):
                return await load(ids)
            """),
    )

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        if not node.decorators:
            return
        extra = m.option_list(ctx, "extra-endpoint-decorators", DEFAULT_EXTRA_ENDPOINT_DECORATORS)
        found = endpoint_framework(node, ctx, extra)
        if found is None or found[0] == "other":
            return
        params = function_params(node)
        if params and params[0].name.value in ("self", "cls") and ctx.scope.kind == "class":
            params = params[1:]
        for param in params:
            if param.annotation is None:
                continue
            if found[0] == "litestar" and param.name.value in _LITESTAR_RESERVED:
                continue
            shape = self._unbounded(param, ctx)
            if shape is not None:
                self.report(param, endpoint=node.name.value, param=param.name.value, type=shape.text)

    @staticmethod
    def _unbounded(param: cst.Param, ctx: Context) -> m.Shape | None:
        ann = m.expand_alias(param.annotation.annotation, ctx)
        # Django Ninja: Query[list[int]]
        if isinstance(ann, cst.Subscript) and m.short_name(ann.value, ctx) in _PARAM_SOURCES:
            values = m.slice_values(ann)
            ann = values[0] if values else ann
        markers: list[cst.BaseExpression] = []
        if isinstance(param.default, cst.Call):
            markers.append(param.default)
        if isinstance(ann, cst.Subscript) and m.type_head(ann.value, ctx) == "Annotated":
            markers.extend(v for v in m.slice_values(ann)[1:] if isinstance(v, cst.Call))
        for marker in markers:
            head = m.short_name(marker.func, ctx)
            if head in _NOT_COLLECTION_SOURCES:
                return None
            if m.meta_limit(marker, ctx):
                return None
        shape = m.annotation_shape(ann, ctx)
        if shape is None or shape.limit is not None:
            return None
        return shape


