"""BND202 unbounded-endpoint-collection, and recognising web endpoints for the whole family.

An endpoint is a function under a route decorator: ``@app.get`` /
``@router.post`` ... in a module that imports FastAPI, Django Ninja or
Litestar (their typed parameters are judged), Starlette, Sanic, aiohttp and
friends (only their annotations are read, to find request models), Litestar's
``@get`` / ``@post``, or a decorator named in ``extra-endpoint-decorators``.
"""
from __future__ import annotations

import fnmatch

import libcst as cst

from boundlint import tables

from boundlint.analysis import limits
from boundlint.analysis import models as m
from boundlint.analysis.context import Context
from boundlint.rules.base import Example, Rule
from boundlint.rules.prefilter import Literals
from boundlint.analysis.facts.walk import kids

DEFAULT_EXTRA_ENDPOINT_DECORATORS: tuple[str, ...] = ()
# Web frameworks whose route decorators mark endpoints, by import root.
OTHER_FRAMEWORKS = ("starlette", "sanic", "aiohttp", "flask_openapi3", "quart_schema", "apiflask", "flask_smorest", "webargs")
HTTP_METHODS = frozenset(tables.TABLES["endpoint-methods"].entries)  # defaults; judgement reads the table
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
            if name.rsplit(".", 1)[-1] in tables.table("endpoint-methods", ctx.settings):
                return "litestar", d
            continue
        if not isinstance(d, cst.Call) or not isinstance(target, cst.Attribute):
            continue
        if target.attr.value not in tables.table("endpoint-methods", ctx.settings):
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


def _marker(param: cst.Param, ctx: Context) -> str | None:
    """The name of the ``Query`` / ``Body`` / ``Form`` / ``File`` / ``Parameter`` call the parameter already has
    (its default, or an ``Annotated`` extra), else None."""
    calls = [param.default] if isinstance(param.default, cst.Call) else []
    ann = param.annotation.annotation if param.annotation is not None else None
    if isinstance(ann, cst.Subscript) and m.type_head(ann.value, ctx) == "Annotated":
        calls += [v for v in m.slice_values(ann)[1:] if isinstance(v, cst.Call)]
    for call in calls:
        head = m.short_name(call.func, ctx)
        if head in _PARAM_SOURCES:
            return head
    return None


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
    `extra-endpoint-decorators` setting.  A FastAPI dependency of the same
    module (a function named in `Depends(f)` / `Security(f)`, or the class of
    `x: C = Depends()`) declares query parameters for every endpoint using
    it: its parameters marked `Query()` / `Body()` / `Form()` / `File()` are
    judged too.  The finding is on the parameter.

    ## Why is this bad?
    The endpoint's signature is its request contract.  `?ids=...` repeated
    20,000 times, or a JSON array of 20,000 objects, is accepted and handed
    to the handler, which loops, queries or fans out once per item.

    ## What counts as a limit
    - `Query(max_length=N)`, `Body(max_length=N)`, `Form(max_length=N)`,
      Litestar `Parameter(max_items=N)` / `Body(max_length=N)`;
    - `Annotated[list[X], Query(), Field(max_length=N)]`, `MaxLen(N)`,
      `conlist(X, max_length=N)`, or a same-module alias carrying one;
    - a fixed-length tuple;
    - the handler's own check among its opening statements:
      `if len(ids) > N:` (also `n = len(ids)` then `if n > N:`,
      `if not 0 < len(ids) <= N:`) followed by `raise HTTPException(...)`,
      `return JSONResponse(...)` or an abort helper; `assert len(ids) <= N`;
      a same-module helper that opens with such a check (`_check_ids(ids)`)
      or predicate (`if _too_many(ids): raise ...`);
    - truncation before use (`ids = ids[:N]`), or a handler that only uses
      a constant-bound slice of the parameter (`ids[:N]`, `islice(ids, N)`);
    - a first use that hands the list to a function of the project, in any
      module, that rejects it once too long (`blobs = await read_uploads(files)`,
      also by keyword, where `read_uploads` raises on `len(files) > N`,
      itself or through a helper);
    - a check that rejects any list but one literal
      (`if update_mask != ["is_paused"]: raise ...`): only that list goes on.
    A mapping body the handler only reads by fixed keys (`body["name"]`,
    `body.get("file_content")`) is a record, not a collection: not judged.
    Path, header and cookie parameters (also Litestar
    `Parameter(header=...)` / `Parameter(cookie=...)`), dependencies
    (`Depends`, `Security`, Litestar parameters named in a `dependencies`
    mapping of the route, its controller or the module) are not judged, nor
    are request models (BND201 judges their fields).
    """
    code, name = "BND202", "unbounded-endpoint-collection"
    # An endpoint is recognised only in a module that imports its framework.
    prefilter = Literals("fastapi", "ninja", "litestar", "starlite", "starlette", "sanic", "aiohttp", "flask_openapi3", "quart_schema",
                         "apiflask", "flask_smorest", "webargs")
    widening_options = ("extra-endpoint-decorators",)
    message = "{kind} `{endpoint}` parameter `{param}` (`{type}`) accepts any number of items"
    hint = "give the parameter a maximum size, as its framework allows"
    hints = {  # by framework (endpoint_framework); configured decorators read FastAPI-style
        "fastapi": "cap it: `Annotated[list[X], Query(max_length=N)]` (or `Body(...)`, `Form(...)`, `Field(...)`)",
        "litestar": "cap it: `Annotated[list[X], Parameter(max_items=N)]`",
        "litestar data": "cap the body: `Annotated[list[X], Body(max_length=N)]`",
        # The parameter already has its marker: one keyword more, no rewrite.
        **{f"fastapi {head}": f"add `max_length=N` to its existing `{head}(...)`: `{head}(..., max_length=50)`"
           for head in ("Query", "Body", "Form", "File")},
        "litestar Parameter": "add `max_items=N` to its existing `Parameter(...)`: `Parameter(..., max_items=50)`",
        "litestar Body": "add `max_length=N` to its existing `Body(...)`: `Body(..., max_length=50)`",
    }
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
        extra = m.option_list(ctx, "extra-endpoint-decorators", DEFAULT_EXTRA_ENDPOINT_DECORATORS)
        found = endpoint_framework(node, ctx, extra) if node.decorators else None
        kind = "endpoint"
        if found is None:
            if not is_dependency(node, ctx):
                return
            found, kind = ("fastapi", None), "dependency"
        elif found[0] == "other":
            return
        params = function_params(node)
        if params and params[0].name.value in ("self", "cls") and ctx.scope.kind == "class":
            params = params[1:]
        injected = litestar_injected(node, found[1], ctx) if found[0] == "litestar" else frozenset()
        for param in params:
            if param.annotation is None:
                continue
            if found[0] == "litestar" and (param.name.value in _LITESTAR_RESERVED or param.name.value in injected):
                continue
            shape = self._unbounded(param, ctx, explicit=kind == "dependency")
            if shape is None or limits.checked_in_body(node, param.name.value, ctx):
                continue
            if _mapping(param, ctx) and _read_as_record(node, param.name.value):
                continue
            if _pinned(node, param.name.value) or _checked_by_callee(node, param.name.value, ctx):
                continue
            name = node.name.value
            if kind == "dependency" and name == "__init__" and isinstance(ctx.scope.node, cst.ClassDef):
                name = ctx.scope.node.name.value
            framework = "litestar" if found[0] == "litestar" else "fastapi"
            hint = self.hints["litestar data" if param.name.value == "data" else "litestar"] \
                if framework == "litestar" else self.hints["fastapi"]
            marker = _marker(param, ctx)
            hint = self.hints.get(f"{framework} {marker}", hint) if marker else hint
            self.report(param, kind=kind, endpoint=name, param=param.name.value, type=shape.text, hint=hint,
                        fix="query-parameter" if found[0] == "fastapi" else "")

    @staticmethod
    def _unbounded(param: cst.Param, ctx: Context, explicit: bool = False) -> m.Shape | None:
        """The parameter's collection type when nothing caps it; with *explicit*, only a
        parameter marked ``Query()`` / ``Body()`` / ``Form()`` / ``File()`` is judged."""
        ann = m.expand_alias(param.annotation.annotation, ctx)
        marked = False
        # Django Ninja: Query[list[int]]
        if isinstance(ann, cst.Subscript) and m.short_name(ann.value, ctx) in _PARAM_SOURCES:
            values = m.slice_values(ann)
            ann = values[0] if values else ann
            marked = True
        markers: list[cst.BaseExpression] = []
        if isinstance(param.default, cst.Call):
            markers.append(param.default)
        if isinstance(ann, cst.Subscript) and m.type_head(ann.value, ctx) == "Annotated":
            markers.extend(v for v in m.slice_values(ann)[1:] if isinstance(v, cst.Call))
        for marker in markers:
            head = m.short_name(marker.func, ctx)
            if head in _NOT_COLLECTION_SOURCES:
                return None
            if head == "Parameter" and m.kwarg(marker, "header", "cookie") is not None:
                return None  # Litestar Parameter(header="X-Tags"): a header, not judged
            if m.meta_limit(marker, ctx):
                return None
            marked = marked or head in _PARAM_SOURCES
        if explicit and not marked:
            return None
        shape = m.annotation_shape(ann, ctx)
        if shape is None or shape.limit is not None:
            return None
        return shape


def _mapping(param: cst.Param, ctx: Context) -> bool:
    """True when the parameter's type is a mapping (``dict[str, str]``, ``Optional[Mapping[...]]``)."""
    ann = m.expand_alias(param.annotation.annotation, ctx)
    for node in limits.iter_nodes(ann):
        if isinstance(node, cst.Subscript) and m.type_head(node.value, ctx) in m.MAPPING_TYPES:
            return True
    return False


def _pinned(func: cst.FunctionDef, name: str) -> bool:
    """True when the body rejects *name* unless it equals a literal (``if mask != ["is_paused"]: raise ...``):
    the only list it goes on with is that one."""
    for node in limits.iter_nodes(func.body):
        if not isinstance(node, cst.If) or not isinstance(node.test, cst.Comparison):
            continue
        test = node.test
        if (len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.NotEqual)
                and isinstance(test.left, cst.Name) and test.left.value == name
                and isinstance(test.comparisons[0].comparator, (cst.List, cst.Tuple))
                and _raises(node.body)):
            return True
    return False


def _checked_by_callee(func: cst.FunctionDef, name: str, ctx: Context) -> bool:
    """True when the body first hands *name* to a project function that rejects it once too long
    (``packages = await read_import(files)`` where ``read_import`` raises on ``len(files) > N``)."""
    if not ctx.project:
        return False
    parents: dict[int, cst.CSTNode] = {}
    for node in limits.iter_nodes(func.body):
        for child in kids(node):
            parents[id(child)] = node
        if not (isinstance(node, cst.Name) and node.value == name):
            continue
        arg = parents.get(id(node))
        call = parents.get(id(arg)) if isinstance(arg, cst.Arg) and not arg.star else None
        if not isinstance(call, cst.Call):
            return False  # the first use is not a plain argument: the list is used before any callee checks it
        ref = ctx.project_ref(call.func)
        # a position, or the keyword it is passed by (`read_uploads(files=files)`)
        at = arg.keyword.value if arg.keyword is not None else next(i for i, a in enumerate(call.args) if a is arg)
        return ref is not None and bool(ctx.project.ask("size_checked", ref, at))
    return False


def _raises(body: cst.BaseSuite) -> bool:
    """The block ends with ``raise``."""
    if isinstance(body, cst.SimpleStatementSuite):  # if ...: raise X
        return bool(body.body) and isinstance(body.body[-1], cst.Raise)
    last = body.body[-1] if body.body else None
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Raise)


def _read_as_record(func: cst.FunctionDef, name: str) -> bool:
    """True when the body only reads fixed keys of *name* (``body["file"]``, ``body.get("file")``):
    a JSON object used as a record, whose extra keys nothing walks."""
    uses = reads = 0
    for node in limits.iter_nodes(func.body, into_defs=True):
        if isinstance(node, cst.Name) and node.value == name:
            uses += 1
        elif isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and node.value.value == name:
            index = node.slice[0].slice if len(node.slice) == 1 else None
            if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
                reads += 1
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get":
            owner = node.func.value
            if isinstance(owner, cst.Name) and owner.value == name and node.args and isinstance(node.args[0].value, cst.SimpleString):
                reads += 1
    return uses > 0 and uses == reads


def is_dependency(func: cst.FunctionDef, ctx: Context) -> bool:
    """True when *func* (or the class whose ``__init__`` it is) is a FastAPI dependency of this
    module: named in ``Depends(f)`` / ``Security(f)``, or the annotation of ``x: C = Depends()``.
    A dependency's ``Query()`` parameters are the endpoint's query parameters."""
    if not ctx.names.imports_from(("fastapi",)):
        return False
    name = func.name.value
    if name == "__init__" and isinstance(ctx.scope.node, cst.ClassDef):
        name = ctx.scope.node.name.value
    elif ctx.scope.kind != "module":
        return False
    return name in _dependencies(ctx)


def _dependencies(ctx: Context) -> frozenset[str]:
    """Names this module hands to ``Depends`` / ``Security`` (computed once per file)."""
    found = ctx.cache.get("bnd202.dependencies")
    if found is not None:
        return found  # type: ignore[return-value]
    names: set[str] = set()
    roots: list[cst.CSTNode] = []
    defs = list(ctx.index.functions.values())
    for methods in ctx.index.methods.values():
        defs.extend(methods.values())
    for func in defs:
        roots.extend(d.decorator for d in func.decorators)
        for param in function_params(func):
            if param.default is not None:
                roots.append(param.default)
                if isinstance(param.default, cst.Call) and not param.default.args and param.annotation is not None:
                    if m.short_name(param.default.func, ctx) in ("Depends", "Security"):
                        ann = param.annotation.annotation
                        if isinstance(ann, cst.Name):
                            names.add(ann.value)
            if param.annotation is not None:
                roots.append(param.annotation.annotation)
    for values in ctx.index.constants.values():
        roots.extend(v for v in values if v is not None)
    for root in roots:
        for node in limits.iter_nodes(root):
            if isinstance(node, cst.Call) and node.args and m.short_name(node.func, ctx) in ("Depends", "Security"):
                first = node.args[0].value
                if isinstance(first, cst.Name):
                    names.add(first.value)
    result = frozenset(names)
    ctx.cache["bnd202.dependencies"] = result
    return result


def litestar_injected(func: cst.FunctionDef, decorator: cst.BaseExpression | None, ctx: Context) -> frozenset[str]:
    """Parameter names Litestar injects as dependencies: keys of a ``dependencies={...}`` dict on
    the route decorator, the enclosing ``Controller``, or a module-level app / router / dict."""
    dicts: list[cst.BaseExpression] = []
    if isinstance(decorator, cst.Call):
        value = m.kwarg(decorator, "dependencies")
        if value is not None:
            dicts.append(value)
    cls = ctx.scope.node if ctx.scope.kind == "class" else None
    if isinstance(cls, cst.ClassDef):
        for stmt in m.class_statements(cls):
            if isinstance(stmt, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in stmt.targets] if isinstance(stmt, cst.Assign) else [stmt.target]
                if any(isinstance(t, cst.Name) and t.value == "dependencies" for t in targets) and stmt.value is not None:
                    dicts.append(stmt.value)
    module_level = ctx.cache.get("bnd202.litestar_module_dependencies")
    if module_level is None:
        found: list[cst.BaseExpression] = []
        for name, values in ctx.index.constants.items():
            for value in values:
                if value is None:
                    continue
                if name.endswith("dependencies"):
                    found.append(value)
                elif isinstance(value, cst.Call):
                    inner = m.kwarg(value, "dependencies")
                    if inner is not None:
                        found.append(inner)
        module_level = ctx.cache["bnd202.litestar_module_dependencies"] = _dict_keys(found)
    return _dict_keys(dicts) | module_level  # type: ignore[operator]


def _dict_keys(dicts: list[cst.BaseExpression]) -> frozenset[str]:
    """The string keys of the dict literals in *dicts*."""
    out: set[str] = set()
    for d in dicts:
        if isinstance(d, cst.Dict):
            for el in d.elements:
                if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString):
                    key = el.key.evaluated_value
                    if isinstance(key, str):
                        out.add(key)
    return frozenset(out)
