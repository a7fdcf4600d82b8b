"""BND2xx unbounded request shape: a request contract whose collections have no size limit.

In the incident one internal client sent 15,000-20,000 URIs per request where
normal traffic carried 1 to 50; nothing in the request contract rejected a
batch that large.  These rules find request models, endpoint parameters and
gRPC handlers that accept a collection of any size.  Which annotations,
defaults and validators count as a size limit is decided in
``boundlint.analysis.models``.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis import models as m
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted
from boundlint.rules.base import Example, Rule, short

DEFAULT_REQUEST_MODEL_PATTERNS = (
    "*Request", "*Req", "*Params", "*Query", "*Body", "*Payload", "*Input", "*Command", "*Batch", "*Create", "*Update",
)
# Names that say a model is output or configuration: never judged by name or partial caps alone.
NOT_REQUEST_MODEL_PATTERNS = (
    "*Response", "*Resp", "*Result", "*Results", "*Output", "*Reply", "*Config", "*Settings", "*Options", "*Conf",
    "*Event", "*Record", "*Row", "*Info", "*Stats", "*Status", "*State",
)
DEFAULT_EXTRA_MODEL_BASES: tuple[str, ...] = ()
DEFAULT_EXTRA_ENDPOINT_DECORATORS: tuple[str, ...] = ()

_LOADERS = frozenset({"load", "loads", "validate", "parse"})


# -- BND201 ---------------------------------------------------------------------------

@dataclass
class _ModuleModels:
    """What BND201 learns about one module while it is walked."""

    classes: list[cst.ClassDef] = field(default_factory=list)
    endpoint_refs: dict[str, str] = field(default_factory=dict)  # model name -> endpoint name
    loaded: set[str] = field(default_factory=set)  # schemas loaded from input (marshmallow)
    built: set[str] = field(default_factory=set)  # models the module constructs with keyword arguments


class UnboundedRequestCollection(Rule):
    """
    ## What it does
    Flags a collection field (`list`, `set`, `dict`, `Sequence`, `Mapping`,
    `tuple[X, ...]`, `conlist` ...) of a *request model* that has no maximum
    size.  Models: pydantic v1 and v2 (`BaseModel`, `RootModel`, the
    `pydantic.v1` namespace, pydantic dataclasses), `msgspec.Struct`, attrs,
    `@dataclass`, marshmallow `Schema` (`fields.List`, `fields.Dict`,
    `fields.Nested(..., many=True)`) and `TypedDict`.  The finding is on the
    field's line.

    A *request model* is a model that
    - annotates a parameter of a web endpoint in the same module (FastAPI,
      Django Ninja, Litestar ...), or that the module loads input with
      (`Schema().load(...)`, `@use_args(Schema)`, `@blp.arguments(Schema)`);
      the models it nests are part of the request too;
    - or caps some of its collections but not all (an input contract with
      a missed cap);
    - or, for pydantic and msgspec models and marshmallow schemas, whose
      class name matches `request-model-patterns` (by default `*Request`,
      `*Req`, `*Params`, `*Query`, `*Body`, `*Payload`, `*Input`,
      `*Command`, `*Batch`, `*Create`, `*Update`).
    Same-module base classes of a request model are judged with it.  A
    plain `@dataclass`, attrs class or `TypedDict` validates nothing when
    built, so a name alone does not make it a request model.  Not judged by
    name: models named as output or configuration (`*Response`, `*Result`,
    `*Config`, `*Settings`, `*Event` ...) and the models they nest, models
    the module itself builds with keyword arguments (it sends or keeps
    them), and modules inside a `client` / `clients` / `sdk` package (their
    requests are outbound).

    ## Options
    - `request-model-patterns`: class-name globs of request models;
    - `extra-model-bases`: more base classes (qualified or short names)
      whose subclasses are pydantic-style models;
    - `extra-endpoint-decorators`: more route decorators (qualified-name
      globs) whose functions are endpoints.

    ## Why is this bad?
    The request contract is the first place to reject abuse.  A field with no
    maximum accepts 20,000 items as readily as 20: one client (a bug, a
    retry loop, a scraper) sends a batch a thousand times the normal size and
    every layer behind the parser does a thousand times the work, fans out a
    thousand times wider, and holds the memory for all of it.

    ## What counts as a limit
    - pydantic `Field(max_length=N)` (v2) or `Field(max_items=N)` (v1),
      `conlist(X, max_length=N)` / `max_items=N`, also inside `Annotated`;
    - `Annotated[list[X], ...]` with `Field(max_length=N)`,
      `annotated_types.MaxLen(N)` / `Len(_, N)`, `msgspec.Meta(max_length=N)`,
      or an `AfterValidator(f)` whose same-module `f` checks `len`;
    - a same-module type alias that carries such a limit;
    - attrs `validators.max_len(N)` or a validator function that checks `len`;
    - marshmallow `validate=validate.Length(max=N)`;
    - a pydantic `field_validator` / `validator` for the field (not
      `each_item=True`), a `model_validator` / `root_validator`, a
      marshmallow `validates` / `validates_schema`, a dataclass or msgspec
      `__post_init__`, an attrs `@field.validator` that compares `len` of it;
    - a fixed-length tuple (`tuple[int, int]`).
    """
    code, name = "BND201", "unbounded-request-collection"
    message = "request field `{model}.{field}` (`{type}`) accepts any number of items{via}"
    hint = ("cap it in the model: pydantic `Field(max_length=N)` (v1: `max_items=N`) or `conlist(X, max_length=N)`, "
            "msgspec `Meta(max_length=N)`, attrs `validators.max_len(N)`, marshmallow `validate.Length(max=N)`")
    invalid = (
        Example("pydantic_list", """
            from pydantic import BaseModel

            class LookupRequest(BaseModel):
                uris: list[str]  # error: BND201 col 5
            """),
        Example("marshmallow_loaded", """
            from marshmallow import Schema, fields

            class ImportSchema(Schema):
                items = fields.List(fields.Str())  # error: BND201 col 5

            def parse(payload):
                return ImportSchema().load(payload)
            """),
    )
    valid = (
        Example("pydantic_max_length", """
            from typing import Annotated

            from pydantic import BaseModel, Field

            class LookupRequest(BaseModel):
                uris: list[str] = Field(max_length=100)
                tags: Annotated[list[str], Field(max_length=20)] = []
            """),
        Example("response_model", """
            from pydantic import BaseModel

            class LookupResponse(BaseModel):
                posts: list[str]
            """),
    )

    def __init__(self, sink):
        super().__init__(sink)
        self._mod = _ModuleModels()

    def visit_ClassDef(self, node: cst.ClassDef, ctx: Context) -> None:
        if m.could_be_model(node):
            self._mod.classes.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        if not node.decorators:
            return
        extra = m.option_list(ctx, "extra-endpoint-decorators", DEFAULT_EXTRA_ENDPOINT_DECORATORS)
        for name in m.input_decorator_models(node, ctx):
            self._mod.loaded.add(name)
        if m.endpoint_framework(node, ctx, extra) is None:
            return
        for param in m.function_params(node):
            if param.annotation is not None:
                for ref in m.type_refs(param.annotation.annotation):
                    self._mod.endpoint_refs.setdefault(ref, node.name.value)
            if isinstance(param.default, cst.Call):  # Depends(Model), Body(Model)
                for arg in m.positional(param.default):
                    if isinstance(arg, cst.Name):
                        self._mod.endpoint_refs.setdefault(arg.value, node.name.value)

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        func = node.func
        if isinstance(func, cst.Name):
            # Model(field=...) built here: the module sends or keeps it, it does not receive it.
            if func.value in ctx.index.classes and node.args and node.args[0].keyword is not None:
                self._mod.built.add(func.value)
            return
        if not isinstance(func, cst.Attribute) or func.attr.value not in _LOADERS:
            return
        # ImportSchema().load(payload), schema = ImportSchema(); schema.load(...)
        receiver = func.value
        if isinstance(receiver, cst.Name):
            bound = ctx.lookup(receiver.value)
            receiver = bound[1][-1] if bound and bound[1] and bound[1][-1] is not None else receiver
        if isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Name):
            self._mod.loaded.add(receiver.func.value)
        elif func.attr.value == "parse":  # webargs parser.parse(Schema(), request)
            args = m.positional(node)
            first = args[0] if args else None
            if isinstance(first, cst.Call):
                first = first.func
            if isinstance(first, cst.Name):
                self._mod.loaded.add(first.value)

    def leave_Module(self, node: cst.Module, ctx: Context) -> None:
        mod, self._mod = self._mod, _ModuleModels()
        if not mod.classes:
            return
        extra_bases = m.option_list(ctx, "extra-model-bases", DEFAULT_EXTRA_MODEL_BASES)
        patterns = m.option_list(ctx, "request-model-patterns", DEFAULT_REQUEST_MODEL_PATTERNS)
        infer = patterns if ctx.names.imports_from(("pydantic", "sqlmodel")) else None
        models: dict[str, m.Model] = {}
        for cls in mod.classes:
            found = m.model_kind(cls, ctx, extra_bases, infer=infer)
            if found is not None:
                models.setdefault(cls.name.value, m.Model(cls.name.value, cls, found[0], found[1]))
        if not models:
            return
        fields: dict[str, list[m.CollectionField]] = {}
        for name, model in models.items():
            own = m.collection_fields(model, ctx)
            if own and any(f.limit is None for f in own):
                checked = m.model_len_checks(_chain(model, models), {f.name for f in own}, ctx)
                own = [replace(f, limit="a `len` check in the model") if f.limit is None and f.name in checked else f
                       for f in own]
            fields[name] = own
        why = _request_models(models, fields, mod, patterns, ctx)
        reported: set[int] = set()
        for name, part_of in why.items():
            for f in fields[name]:
                if f.limit is not None or id(f.node) in reported:
                    continue
                reported.add(id(f.node))
                via = f" (part of request model `{part_of}`)" if part_of else ""
                self.report(f.node, model=name, field=f.name, type=f.shape.text, via=via)


def _chain(model: m.Model, models: dict[str, m.Model]) -> list[cst.ClassDef]:
    """The model and its same-module model bases (validators may live in either)."""
    out, queue, seen = [], [model.name], set()
    while queue:
        name = queue.pop()
        if name in seen or name not in models:
            continue
        seen.add(name)
        out.append(models[name].node)
        queue.extend(models[name].bases)
    return out


def _request_models(models: dict[str, m.Model], fields: dict[str, list[m.CollectionField]],
                    mod: _ModuleModels, patterns: tuple[str, ...], ctx: Context) -> dict[str, str]:
    """Request models of the module: name -> the request model it is part of (``""`` for itself).

    Strong evidence (an endpoint takes it, the module loads input with it)
    extends to the models it nests; a name match or a partial cap extends to
    its same-module bases only.  Plain dataclasses, attrs classes and
    TypedDicts validate nothing by name, so they need strong evidence or a cap.
    """
    why: dict[str, str] = {}
    strong: set[str] = set()
    output = _output_models(models, fields, ctx)
    by_name = not _client_package(ctx.path)
    for name, model in models.items():
        own = fields[name]
        if name in mod.endpoint_refs or name in mod.loaded:
            why[name] = ""
            strong.add(name)
        elif name in output or name in mod.built:
            continue
        elif any(f.limit is not None for f in own) and any(f.limit is None for f in own):
            why[name] = ""  # caps some collections: an input contract missing a cap
        elif by_name and model.kind not in _UNVALIDATED_KINDS and m.matches_any(name, patterns):
            why[name] = ""
    queue = list(why)
    while queue:
        name = queue.pop()
        model = models[name]
        related = list(model.bases)
        if name in strong:
            for f in fields[name]:
                related.extend(f.refs)
            related.extend(_nested_refs(model))
            related = sorted(_alias_refs(related, ctx))
        for other in related:
            if other in models and other not in why and models[other].kind != "typeddict":
                why[other] = why[name] or name
                if name in strong:
                    strong.add(other)
                queue.append(other)
    return why


_UNVALIDATED_KINDS = frozenset({"dataclass", "attrs", "typeddict"})
# A module inside one of these packages is the sending side of an API: its request models are outbound.
CLIENT_PACKAGES = frozenset({"client", "clients", "sdk"})


def _client_package(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")[:-1]
    return any(part in CLIENT_PACKAGES for part in parts)


def _output_models(models: dict[str, m.Model], fields: dict[str, list[m.CollectionField]], ctx: Context) -> set[str]:
    """Models named as output or configuration, and the same-module models nested in them."""
    out = {name for name in models if m.matches_any(name, NOT_REQUEST_MODEL_PATTERNS)}
    queue = list(out)
    while queue:
        model = models[queue.pop()]
        for ref in _alias_refs((*_nested_refs(model), *(r for f in fields[model.name] for r in f.refs)), ctx):
            if ref in models and ref not in out:
                out.add(ref)
                queue.append(ref)
    return out


def _alias_refs(refs, ctx: Context) -> set[str]:
    """*refs* plus the names inside same-module type aliases among them (``DataSource = Union[A, B]``)."""
    out, queue = set(), list(refs)
    while queue:
        ref = queue.pop()
        if ref in out:
            continue
        out.add(ref)
        values = ctx.index.constants.get(ref)
        if ref not in ctx.index.classes and values and len(values) == 1 and isinstance(values[0], (cst.Subscript, cst.BinaryOperation)):
            queue.extend(m.type_refs(values[0]))
    return out


def _nested_refs(model: m.Model) -> list[str]:
    """Names of models a request model nests through non-collection fields (``owner: Owner``)."""
    out = []
    for stmt in m._class_statements(model.node):
        if isinstance(stmt, cst.AnnAssign):
            out.extend(m.type_refs(stmt.annotation.annotation))
        elif isinstance(stmt, cst.Assign) and isinstance(stmt.value, cst.Call) and model.kind == "marshmallow":
            out.extend(m.type_refs(stmt.value))
    return out


# -- BND202 ---------------------------------------------------------------------------

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
        found = m.endpoint_framework(node, ctx, extra)
        if found is None or found[0] == "other":
            return
        params = m.function_params(node)
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
            values = m._slice_values(ann)
            ann = values[0] if values else ann
        markers: list[cst.BaseExpression] = []
        if isinstance(param.default, cst.Call):
            markers.append(param.default)
        if isinstance(ann, cst.Subscript) and m._type_head(ann.value, ctx) == "Annotated":
            markers.extend(v for v in m._slice_values(ann)[1:] if isinstance(v, cst.Call))
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


# -- BND203 ---------------------------------------------------------------------------

_BUILDERS = frozenset({"list", "set", "tuple", "frozenset", "sorted", "dict", "map", "filter", "enumerate", "zip", "reversed"})
_EXTENDERS = frozenset({"extend", "update", "map", "starmap", "imap", "imap_unordered"})
_ITER_VIEWS = frozenset({"items", "keys", "values"})


@dataclass
class _Method:
    """A gRPC servicer method being walked."""

    node: cst.FunctionDef
    request: str
    reported: set[str] = field(default_factory=set)
    validated: bool = False


class UncheckedRepeatedField(Rule):
    """
    ## What it does
    Flags a gRPC servicer method (a method `(self, request, context)`, sync
    or `async`, of a class deriving from a `*Servicer` base) that iterates,
    fans out over, or builds a collection from a field of the request
    (`for uri in request.uris`, `[f(x) for x in request.items]`,
    `list(request.ids)`, also through a local name `uris = request.uris`)
    with no length check earlier in the method.  The finding is on the
    expression naming the field.

    ## Why is this bad?
    A protobuf `repeated` field has no size limit: only the 4 MB default
    message size caps it, which fits hundreds of thousands of small items.
    This is the incident's shape: a handler looped over a repeated URI field
    of 15,000-20,000 items where normal requests carried 50, and started a
    cache call for each.

    ## What counts as a limit
    - a rejecting length check before the loop in the same method:
      `if len(request.uris) > MAX:` followed by `raise`, `return`,
      `context.abort(...)` or `await context.abort(...)`, or
      `assert len(request.uris) <= MAX` (also on the local alias);
    - a validation call on the whole request before the loop
      (`protovalidate.validate(request)`, `validator.validate(request)`),
      which enforces `repeated.max_items` rules declared in the proto;
    - iterating a constant-bound slice (`request.uris[:100]`,
      `itertools.islice(request.uris, 100)`).
    """
    code, name = "BND203", "unchecked-repeated-field"
    message = "`{method}` iterates request field `{field}` with no length check before it"
    hint = ("reject oversized requests first: `if len(request.field) > MAX: context.abort(grpc.StatusCode.INVALID_ARGUMENT, ...)`, "
            "or declare protovalidate `repeated.max_items` and validate the request")
    invalid = (
        Example("servicer_loop", """
            import grpc

            from . import posts_pb2_grpc

            class PostsServicer(posts_pb2_grpc.PostsServicer):
                async def GetPosts(self, request, context):
                    posts = []
                    for uri in request.uris:  # error: BND203 col 20
                        posts.append(await self.cache.get(uri))
                    return posts
            """),
    )
    valid = (
        Example("length_checked", """
            import grpc

            from . import posts_pb2_grpc

            MAX_URIS = 100

            class PostsServicer(posts_pb2_grpc.PostsServicer):
                async def GetPosts(self, request, context):
                    if len(request.uris) > MAX_URIS:
                        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "too many uris")
                    return [await self.cache.get(uri) for uri in request.uris]
            """),
    )

    def __init__(self, sink):
        super().__init__(sink)
        self._methods: list[_Method] = []

    def visit_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        if self._methods or ctx.scope.kind != "class":
            return
        params = node.params.params
        if len(params) != 3 or params[0].name.value != "self":
            return
        ctx_name = params[2].name.value.lstrip("_")
        if "context" not in ctx_name and ctx_name != "ctx":
            return
        cls = ctx.scope.node
        if not isinstance(cls, cst.ClassDef) or not _is_servicer(cls):
            return
        self._methods.append(_Method(node, params[1].name.value))

    def leave_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        if self._methods and self._methods[-1].node is node:
            self._methods.pop()

    def visit_For(self, node: cst.For, ctx: Context) -> None:
        if self._methods:
            self._check(node.iter, ctx)

    def _visit_comp(self, node, ctx: Context) -> None:
        if self._methods:
            comp_for = node.for_in
            while comp_for is not None:
                self._check(comp_for.iter, ctx)
                comp_for = comp_for.inner_for_in

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _visit_comp

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        if not self._methods:
            return
        method = self._methods[-1]
        func = node.func
        name = dotted(func) or ""
        last = name.rsplit(".", 1)[-1]
        if last.endswith("validate") or last == "Validate":
            if any(isinstance(a.value, cst.Name) and a.value.value == method.request for a in node.args):
                method.validated = True
            return
        if isinstance(func, cst.Name) and func.value in _BUILDERS:
            for arg in node.args:
                self._check(arg.value, ctx, direct=True)
        elif isinstance(func, cst.Attribute) and func.attr.value in _EXTENDERS:
            for arg in node.args:
                self._check(arg.value, ctx, direct=True)

    def _check(self, expr: cst.BaseExpression, ctx: Context, direct: bool = False) -> None:
        method = self._methods[-1]
        if method.validated:
            return
        if not direct:
            expr = _unwrap_iter(expr)
        found = self._request_field(expr, method, ctx)
        if found is None:
            return
        field_expr, key = found
        if key in method.reported:
            return
        if self._guarded(expr, ctx, method) or self._guarded(field_expr, ctx, method):
            return
        method.reported.add(key)
        self.report(expr, method=method.node.name.value, field=key)

    @staticmethod
    def _request_field(expr: cst.BaseExpression, method: _Method, ctx: Context) -> tuple[cst.BaseExpression, str] | None:
        """``(request.<field> expression, its dotted key)`` when *expr* is (an alias of) a request field."""
        if isinstance(expr, cst.Name) and expr.value != method.request:
            bound = ctx.lookup(expr.value)
            if bound is None or bound[0].kind == "module" or not bound[1] or bound[1][-1] is None:
                return None
            expr = bound[1][-1]
        if not isinstance(expr, cst.Attribute):
            return None
        key = dotted(expr)
        if key is None or not key.startswith(method.request + "."):
            return None
        return expr, key

    @staticmethod
    def _guarded(expr: cst.BaseExpression, ctx: Context, method: _Method) -> bool:
        if limits.guarded(expr, ctx):
            return True
        key = dotted(expr)
        scope = ctx.scope
        while scope is not None and key is not None:
            if any(g.key == key for g in scope.guards):
                return True
            if scope.node is method.node or scope.kind == "module":
                break
            scope = scope.parent
        return False


def _unwrap_iter(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``enumerate(x)`` / ``x.items()`` / ``range(len(x))`` / ``sorted(x)`` -> ``x``."""
    for _ in range(3):
        if isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Name) and func.value in ("enumerate", "sorted", "reversed", "list", "set", "tuple") and expr.args:
                expr = expr.args[0].value
                continue
            if isinstance(func, cst.Name) and func.value == "range" and len(expr.args) == 1:
                inner = expr.args[0].value
                if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value == "len" and inner.args:
                    expr = inner.args[0].value
                    continue
            if isinstance(func, cst.Attribute) and func.attr.value in _ITER_VIEWS and not expr.args:
                expr = func.value
                continue
        break
    return expr


def _is_servicer(cls: cst.ClassDef) -> bool:
    for arg in cls.bases:
        name = dotted(arg.value) or ""
        if name.rsplit(".", 1)[-1].endswith("Servicer"):
            return True
    return False


__all__ = ["UnboundedRequestCollection", "UnboundedEndpointCollection", "UncheckedRepeatedField", "short"]
