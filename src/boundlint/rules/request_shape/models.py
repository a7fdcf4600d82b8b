"""BND201 unbounded-request-collection: which models are request models, and their uncapped collections."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Iterator

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis import models as m
from boundlint.analysis.context import Context
from boundlint.config import REQUEST_MODEL_PATTERNS
from boundlint.rules.base import Example, Rule
from boundlint.rules.request_shape.endpoints import (
    DEFAULT_EXTRA_ENDPOINT_DECORATORS, endpoint_framework, function_params, input_decorator_models, is_dependency,
    litestar_injected,
)

DEFAULT_REQUEST_MODEL_PATTERNS = REQUEST_MODEL_PATTERNS
# Names that say a model is output or configuration: never judged by name or partial caps alone.
NOT_REQUEST_MODEL_PATTERNS = (
    "*Response", "*Resp", "*Result", "*Results", "*Output", "*Out", "*Reply", "*Config", "*Settings", "*Options",
    "*Conf",
    "*Event", "*Record", "*Row", "*Info", "*Stats", "*Status", "*State",
    # parameters of a configuration (``GuardrailConfigModelOptionalParams``), not of a request
    "*Config*Params", "*Settings*Params", "*Options*Params",
)
DEFAULT_EXTRA_MODEL_BASES: tuple[str, ...] = ()

_LOADERS = frozenset({"load", "loads", "validate", "parse"})
# Class methods that build a model instance from data: ``Model.model_validate(data)``.
_CONSTRUCTORS = frozenset({
    "model_validate", "model_validate_json", "model_validate_strings", "model_construct",
    "parse_obj", "parse_raw", "construct", "from_dict", "from_json",
})
# Instance methods that serialise a model: a model dumped where it is built is sent or stored.
_DUMPS = frozenset({"model_dump", "model_dump_json", "dict", "json", "to_dict", "to_json"})
# Functions that fill a type given as an argument from data.
_DECODERS = frozenset({
    "decode", "convert", "validate_python", "validate_json", "parse_obj_as", "structure", "from_dict", "cast",
})
# Methods of an HTTP client whose result is another service's answer, and words that name such a client.
_HTTP_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "request", "send", "fetch", "stream"})
_CLIENT_WORDS = frozenset({"client", "session", "http", "https", "httpx", "requests", "api", "upstream", "stub"})
# Reading a file: configuration or fixtures the process loads, not a request.
_FILE = "<file>"
_FILE_READERS = frozenset({"open", "read_text", "read_bytes", "safe_load", "full_load"})
_FILE_MODULES = ("yaml.", "tomllib.", "tomli.", "toml.", "configparser.")
# Calls whose result is their argument's data, parsed.
_PARSERS = frozenset({
    "loads", "load", "decode", "parse", "parse_raw", "dict", "literal_eval",
    "validate_python", "validate_json", "model_validate", "model_validate_json", "convert", "parse_obj", "structure",
})
# Identifier words that name another service's answer (``response.json()``, ``resp_data``).
_RESPONSE_WORDS = frozenset({"response", "resp", "reply"})
_REQUEST_WORDS = frozenset({"request", "req"})
# Parameter markers whose argument is a callable that computes the value (FastAPI, Django Ninja, Litestar).
_DEPENDENCY_MARKERS = frozenset({"Depends", "Security", "Provide", "Dependency", "Inject"})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


@dataclass
class _ModuleModels:
    """What BND201 learns about one module while it is walked."""

    classes: list[cst.ClassDef] = field(default_factory=list)
    endpoint_refs: dict[str, str] = field(default_factory=dict)  # model name -> endpoint name
    loaded: set[str] = field(default_factory=set)  # schemas loaded from input (marshmallow)
    built: set[str] = field(default_factory=set)  # models the module builds itself: it sends or keeps them
    parsed: set[str] = field(default_factory=set)  # models the module parses another service's response with
    returned: set[str] = field(default_factory=set)  # models endpoints send back (response_model=, return type)
    fed: set[str] = field(default_factory=set)  # classes called with `data=` (a DRF serializer validating input)
    # model name -> the endpoints (and parameter names) that take it: a handler may check `len(body.ids)` itself
    endpoint_params: dict[str, list[tuple[cst.FunctionDef, str]]] = field(default_factory=dict)


class UnboundedRequestCollection(Rule):
    """
    ## What it does
    Flags a collection field (`list`, `set`, `dict`, `Sequence`, `Mapping`,
    `tuple[X, ...]`, `conlist` ...) of a *request model* that has no maximum
    size.  Models: pydantic v1 and v2 (`BaseModel`, `RootModel`, the
    `pydantic.v1` namespace, pydantic dataclasses), `msgspec.Struct`, attrs,
    `@dataclass`, marshmallow `Schema` (`fields.List`, `fields.Dict`,
    `fields.Nested(..., many=True)`), Django REST framework serializers
    (`ListField`, `DictField(child=...)`, nested serializers and related
    fields with `many=True`; not `read_only=True` ones) and `TypedDict`.
    The finding is on the field's line.

    A *request model* is a model that
    - annotates a parameter of a web endpoint in the same module (FastAPI,
      Django Ninja, Litestar ...) that the client sends (not one a
      dependency computes: `user: User = Depends(current_user)`, a
      Litestar parameter named in `dependencies={...}`;
      `Depends()` and `Depends(Model)` are request input, and so are the
      parameters of a same-module dependency function), or that the
      module loads input with
      (`Schema().load(...)`, `@use_args(Schema)`, `@blp.arguments(Schema)`,
      or decodes the request it serves into:
      `Model.model_validate(await request.json())`,
      `msgspec.json.decode(await request.body(), type=Model)`,
      `TypeAdapter(Model).validate_python(...)`, `msgspec.convert(...)`,
      `dacite.from_dict(...)`, or types it as such:
      `body: SearchRequest = await request.json()`, `cast(Model, ...)`);
      or a DRF serializer that handles input itself (`create`, `update`,
      `validate`, `validate_<field>` methods, a `write_only=True` field), is
      fed request data (`Serializer(data=request.data)`), is
      the `serializer_class` of a view that creates or updates
      (`CreateAPIView`, `ModelViewSet`, a view with `post` / `put` /
      `patch`), or named by `@extend_schema(request=S)`;
      the models it nests are part of the request too;
    - or caps some of its collections but not all (an input contract with
      a missed cap; not for DRF serializers, which render output as often);
    - or, for pydantic and msgspec models and marshmallow schemas, whose
      class name matches `request-model-patterns` (by default `*Request`,
      `*Req`, `*Params`, `*Query`, `*Body`, `*Payload`, `*Input`,
      `*Command`, `*Batch`, `*Create`, `*Update`, `*Form`).
    Same-module base classes of a request model are judged with it.
    SQLModel tables (`table=True`) are storage, never judged.  A
    plain `@dataclass`, attrs class or `TypedDict` validates nothing when
    built, and DRF serializers are named `*Serializer` whatever their role,
    so a name alone does not make them request models.  Not judged by
    name:
    - models built from objects' attributes (`from_attributes=True`, v1
      `orm_mode = True`: they render ORM rows) and the models they nest;
    - models named as output or configuration (`*Response`, `*Result`, `*Out`,
      `*Config`, `*Settings`, `*Event`, `*Config*Params` ...), models an
      endpoint sends back (`response_model=`, `responses={...}`, Django
      Ninja's `response=`, its return annotation), and the models they nest;
    - models the module parses another service's answer or a file with
      (`Payload.model_validate(response.json())`,
      `Params.model_validate(yaml.safe_load(f))`,
      `msgspec.json.decode(resp.content, type=Page)`) and the models they
      nest;
    - models the module builds itself: from keyword arguments or a dict
      literal, or validated and serialised at once
      (`Model.model_validate(row).model_dump()`, also through a same-module
      helper that does `model(**data).model_dump()`): it sends or keeps
      them;
    - models nested in a same-module model that is no request
      (`Operation.requestBody: RequestBody` of an API document);
    - models of modules inside a `client` / `clients` / `sdk` package or
      named so (`search_client.py`): their requests are outbound.

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
    - DRF `ListField(max_length=N)`, a nested serializer with
      `many=True, max_length=N` (DRF 3.13+), a `validate_<field>` method or
      a `validate` method that compares `len` of it, a
      `MultipleChoiceField` (at most its choices);
    - a pydantic `field_validator` / `validator` for the field (not
      `each_item=True`), a `model_validator` / `root_validator`, a
      marshmallow `validates` / `validates_schema`, a dataclass or msgspec
      `__post_init__`, an attrs `@field.validator` that compares `len` of it;
    - a fixed-length tuple (`tuple[int, int]`);
    - a check in every same-module endpoint that takes the model, before
      it uses the field (`if len(body.ids) > N: raise HTTPException(...)`,
      also through `ids = body.ids`, the forms BND202 counts for a
      parameter), or endpoints that only use a constant-bound slice of it
      (`body.ids[:MAX]`);
    - a set or mapping whose items or keys come from a finite type
      (`set[Literal["a", "b"]]`, `dict[Tier, str]` with a same-module enum
      `Tier`, `dict[bool, int]`): it holds one entry per value at most.
    """
    code, name = "BND201", "unbounded-request-collection"
    # Every model kind needs one of these words: its base, decorator or import.
    prefilter = re.compile(r"pydantic|sqlmodel|ninja|beanie|msgspec|TypedDict|dataclass|\battrs?\b|marshmallow|rest_framework|adrf")
    widening_options = ("extra-model-bases",)
    message = "request field `{model}.{field}` (`{type}`) accepts any number of items{via}"
    hint = "cap the field's size in the model, as its model kind allows"
    hints = {  # by model kind (analysis.models.Model.kind)
        "pydantic": "cap it: `Field(max_length=N)` (pydantic v1: `Field(max_items=N)`) or `conlist(X, max_length=N)`",
        "msgspec": "cap it: `Annotated[list[X], msgspec.Meta(max_length=N)]`",
        "attrs": "cap it: `field(validator=attrs.validators.max_len(N))`",
        "dataclass": "check it in `__post_init__`: `if len(self.field) > N: raise ValueError(...)`",
        "marshmallow": "cap it: `fields.List(..., validate=validate.Length(max=N))`",
        "drf": "cap it: `ListField(child=..., max_length=N)`, or `many=True, max_length=N` on a nested serializer",
        "typeddict": "cap it: `Annotated[list[X], Field(max_length=N)]` (pydantic and FastAPI enforce it)",
    }
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
            if is_dependency(node, ctx):  # async def parsed(body: Bulk) used as Depends(parsed): FastAPI reads the body
                for param in function_params(node):
                    if param.annotation is not None and not _injected(param, ctx):
                        for ref in m.type_refs(param.annotation.annotation):
                            self._mod.endpoint_refs.setdefault(ref, node.name.value)
            return
        extra = m.option_list(ctx, "extra-endpoint-decorators", DEFAULT_EXTRA_ENDPOINT_DECORATORS)
        for name in input_decorator_models(node, ctx):
            self._mod.loaded.add(name)
        for deco in node.decorators:  # @extend_schema(request=S), @swagger_auto_schema(request_body=S)
            if isinstance(deco.decorator, cst.Call):
                schema = m.kwarg(deco.decorator, "request", "request_body")
                if isinstance(schema, cst.Name):
                    self._mod.loaded.add(schema.value)
        framework = endpoint_framework(node, ctx, extra)
        if framework is None:
            return
        # What the endpoint sends back is output: `response_model=`, FastAPI's `responses={...: {"model": M}}`,
        # Django Ninja's `response=`, the return annotation.
        decorator = framework[1]
        outputs = ([m.kwarg(decorator, "response_model"), m.kwarg(decorator, "responses"), m.kwarg(decorator, "response")]
                   if isinstance(decorator, cst.Call) else [])
        outputs.append(node.returns.annotation if node.returns is not None else None)
        for expr in outputs:
            if expr is not None:
                self._mod.returned.update(m.type_refs(expr))
        injected = litestar_injected(node, decorator, ctx) if framework[0] == "litestar" else frozenset()
        for param in function_params(node):
            if _injected(param, ctx) or param.name.value in injected:
                continue  # user: User = Depends(current_user), Litestar dependencies={...}: the server computes it
            if param.annotation is not None:
                for ref in m.type_refs(param.annotation.annotation):
                    self._mod.endpoint_refs.setdefault(ref, node.name.value)
                    self._mod.endpoint_params.setdefault(ref, []).append((node, param.name.value))
            if isinstance(param.default, cst.Call):  # Depends(Model), Body(Model)
                for arg in m.positional(param.default):
                    if isinstance(arg, cst.Name):
                        self._mod.endpoint_refs.setdefault(arg.value, node.name.value)

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        func = node.func
        if isinstance(func, cst.Name) and m.kwarg(node, "data") is not None:
            self._mod.fed.add(func.value)  # DRF: Serializer(data=request.data)
        if isinstance(func, cst.Name) and func.value in ctx.index.functions:
            # validate_dict(data, OrchestrationRequest) where the helper dumps `model(**data)`
            self._mod.built.update(_dumped_by_helper(node, ctx.index.functions[func.value], ctx))
        built = _constructed(node, ctx)
        if built is not None and _built_here(node):
            self._mod.built.add(built)
        else:
            decoded = [built] if built is not None and _fills_from_data(node) else _decoded(node, ctx)
            source = _data_source(node, ctx) if decoded else None
            if source in ("response", "file"):
                self._mod.parsed.update(decoded)  # another service's answer, or a file the process reads
            elif source == "request" and not _client_package(ctx.path):
                self._mod.loaded.update(decoded)  # Lookup.model_validate(await request.json())
        if not isinstance(func, cst.Attribute):
            return
        if func.attr.value in _DUMPS and isinstance(func.value, cst.Call):
            # Model.model_validate(row).model_dump(): the module reshapes data to send or store.
            dumped = _constructed(func.value, ctx)
            if dumped is not None:
                self._mod.built.add(dumped)
        if func.attr.value not in _LOADERS:
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

    def visit_AnnAssign(self, node: cst.AnnAssign, ctx: Context) -> None:
        # body: SearchRequest = await request.json() -- a TypedDict or dataclass typed as the request's data
        if (node.value is not None and ctx.scope.kind == "function" and not _client_package(ctx.path)
                and not isinstance(node.value, cst.Dict)):  # a dict the function writes itself is no input
            if _data_source_of(node.value, ctx) == "request":
                self._mod.loaded.update(r for r in m.type_refs(node.annotation.annotation) if r in ctx.index.classes)

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
        evidence = _project_uses(models, mod, ctx)
        drf = {name for name, model in models.items() if model.kind == "drf"}
        mod.loaded |= (mod.fed & drf) | (_write_view_serializers(ctx) & drf)
        mod.loaded |= {name for name in drf if _takes_input(models[name].node)}
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
            uses = mod.endpoint_params.get(name, [])
            # a base's field that the request model (or a class between them) declares again is judged there
            overridden = _redeclared(name, why, models) if part_of else set()
            for f in fields[name]:
                if f.limit is not None or id(f.node) in reported or f.name in overridden:
                    continue
                if uses and all(limits.checked_in_body(func, f"{param}.{f.name}", ctx) for func, param in uses):
                    continue  # every endpoint taking the model rejects an oversized `body.field` first
                reported.add(id(f.node))
                via = f" (part of request model `{part_of}`)" if part_of else ""
                chain = evidence.get(part_of or name, ())
                if chain:
                    chain = (f"request field `{name}.{f.name}` ({_where(ctx, f.node)})", *chain)
                self.report(f.node, chain, model=name, field=f.name, type=f.shape.text, via=via,
                            hint=self.hints.get(models[name].kind, ""))


def _project_uses(models: dict[str, m.Model], mod: _ModuleModels, ctx: Context) -> dict[str, tuple[str, ...]]:
    """Fold in what other modules of the project do with this module's models; returns evidence chains.

    A model an endpoint anywhere takes as input is a request model whatever its
    name; one only sent back, or built and serialised (an outbound payload), and
    never taken as input, is output.
    """
    if not ctx.project:
        return {}
    chains: dict[str, tuple[str, ...]] = {}
    for name in models:
        uses = ctx.project.ask("class_uses", ctx.project.ref(None, name))
        if not uses:
            continue
        if uses["input"]:
            mod.endpoint_refs.setdefault(name, "")
            chains[name] = (uses["input"][0],)
        elif name not in mod.endpoint_refs and name not in mod.loaded:
            if uses["output"]:
                mod.returned.add(name)
            if uses["built"]:
                mod.built.add(name)
    return chains


def _where(ctx: Context, node: cst.CSTNode) -> str:
    """``path:line`` of *node* in the module being checked (a position pass only when evidence is shown)."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    positions = ctx.cache.get("models.positions")
    if positions is None:
        positions = ctx.cache["models.positions"] = MetadataWrapper(ctx.module, unsafe_skip_copy=True).resolve(PositionProvider)
    return f"{ctx.path.replace(chr(92), '/')}:{positions[node].start.line}"


def _redeclared(base: str, why: dict[str, str], models: dict[str, m.Model]) -> set[str]:
    """Field names that every request model inheriting *base* declares again (itself or in a class between)."""
    found: set[str] | None = None
    for request in why:
        chain = _chain(models[request], models) if request != base else []
        if models[base].node not in chain:
            continue  # nested or unrelated, not inherited
        names: set[str] = set()
        for cls in chain:
            if cls is models[base].node:
                continue
            for stmt in m.class_statements(cls):
                if isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name):
                    names.add(stmt.target.value)
                elif isinstance(stmt, cst.Assign):
                    names.update(t.target.value for t in stmt.targets if isinstance(t.target, cst.Name))
        found = names if found is None else found & names
    return found or set()


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
    named: set[str] = set()
    orm = {name for name, model in models.items() if _reads_attributes(model.node)}
    output = _output_models(models, fields, mod.parsed | mod.returned | orm, ctx)
    by_name = not _client_package(ctx.path)
    for name, model in models.items():
        own = fields[name]
        if name in mod.endpoint_refs or name in mod.loaded:
            why[name] = ""
            strong.add(name)
        elif name in output or name in mod.built:
            continue
        elif model.kind != "drf" and any(f.capped for f in own) and any(f.limit is None for f in own):
            why[name] = ""  # caps some collections: an input contract missing a cap
        elif by_name and model.kind not in _UNVALIDATED_KINDS and m.matches_any(name, patterns):
            why[name] = ""
            named.add(name)
    # A model matched by name only but nested in a model that is no request (``Operation.requestBody:
    # RequestBody`` of an API document) is part of that document, not a request of its own.
    bases = {b for name in why for b in models[name].bases}
    for holder, model in models.items():
        if holder in why or holder in output or holder in bases:
            continue
        for ref in _alias_refs((*_nested_refs(model), *(r for f in fields[holder] for r in f.refs)), ctx):
            if ref in named and ref != holder:
                del why[ref]
                named.discard(ref)
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
    """True for a module of a client package (``clients/search.py``) or a client module (``search_client.py``)."""
    parts = path.replace("\\", "/").split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    return any(part in CLIENT_PACKAGES for part in parts[:-1]) or any(
        stem == word or stem.endswith("_" + word) for word in CLIENT_PACKAGES)


def _reads_attributes(cls: cst.ClassDef) -> bool:
    """A pydantic model built from objects' attributes (``from_attributes=True``, v1 ``orm_mode = True``):
    it renders ORM rows, it is output."""
    for stmt in m.class_statements(cls):
        if isinstance(stmt, cst.ClassDef) and stmt.name.value == "Config":
            if _reads_attributes(stmt):
                return True
        targets = []
        if isinstance(stmt, cst.Assign):
            targets = [t.target for t in stmt.targets]
        elif isinstance(stmt, cst.AnnAssign):
            targets = [stmt.target]
        if not targets or not isinstance(targets[0], cst.Name) or stmt.value is None:
            continue
        name, value = targets[0].value, stmt.value
        if name in ("orm_mode", "from_attributes") and isinstance(value, cst.Name) and value.value == "True":
            return True
        if name == "model_config":
            for node in m.iter_nodes(value):
                if isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value == "from_attributes":
                    return isinstance(node.value, cst.Name) and node.value.value == "True"
                if (isinstance(node, cst.DictElement) and isinstance(node.key, cst.SimpleString)
                        and node.key.evaluated_value == "from_attributes"):
                    return isinstance(node.value, cst.Name) and node.value.value == "True"
    return False


def _output_models(models: dict[str, m.Model], fields: dict[str, list[m.CollectionField]], seen_as_output: set[str],
                   ctx: Context) -> set[str]:
    """Models named as output or configuration, or used as output (*seen_as_output*), and the models they nest."""
    out = {name for name in models if name in seen_as_output or m.matches_any(name, NOT_REQUEST_MODEL_PATTERNS)}
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
    for stmt in m.class_statements(model.node):
        if isinstance(stmt, cst.AnnAssign):
            out.extend(m.type_refs(stmt.annotation.annotation))
        elif isinstance(stmt, cst.Assign) and isinstance(stmt.value, cst.Call) and model.kind in ("marshmallow", "drf"):
            out.extend(m.type_refs(stmt.value))
    return out




def _constructed(call: cst.Call, ctx: Context) -> str | None:
    """The same-module class *call* builds an instance of (``Model(...)``, ``Model.model_validate(...)``), or None."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in _CONSTRUCTORS:
        func = func.value
    if isinstance(func, cst.Name) and func.value in ctx.index.classes:
        return func.value
    return None


def _fills_from_data(call: cst.Call) -> bool:
    """``Model.model_validate(data)`` or ``Model(**data)``: the model is filled from a mapping, not put together
    from values (``Pair(request, telemetry)``)."""
    return isinstance(call.func, cst.Attribute) or any(a.star == "**" for a in call.args)


def _built_here(call: cst.Call) -> bool:
    """The call fills the model from keywords or a dict literal: the module makes the data, nobody sends it in."""
    if not call.args:
        return False
    first = call.args[0]
    if first.keyword is not None:
        return True
    value = first.value
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
        return bool(value.args) and all(a.keyword is not None for a in value.args)
    return isinstance(value, cst.Dict)


def _words(identifier: str) -> set[str]:
    """Lower-case words of a snake_case or camelCase identifier."""
    return {w.lower() for w in _WORD.findall(identifier)}


def _data_source(call: cst.Call, ctx: Context) -> str | None:
    """``"response"`` when the decoded data is named as another service's answer (``response.json()``,
    ``resp_data``), ``"request"`` when named as the request being served (``await request.body()``), else None."""
    for arg in call.args:
        source = _data_source_of(arg.value, ctx)
        if source is not None:
            return source
    return None


def _data_source_of(expr: cst.BaseExpression, ctx: Context | None = None) -> str | None:
    """:func:`_data_source` for one expression."""
    for name in _data_roots(expr, ctx):
        if name == _FILE:
            return "file"
        words = _words(name)
        if words & _REQUEST_WORDS:
            return "request"
        if words & _RESPONSE_WORDS:
            return "response"
    return None


def _data_roots(expr: cst.BaseExpression, ctx: Context | None = None, depth: int = 0) -> Iterator[str]:
    """Names whose data *expr* reads: ``request`` in ``await request.json()``, ``resp`` in
    ``json.loads(resp.text)``; attribute and method names are not data (``config.transform_request()``),
    nor are the arguments of a call that makes new data (``await call_vendor(request_data)``), nor a
    function's name (``get_request_base_url(...)``).

    With *ctx*, a local name is followed to what it was bound to (``data = await request.json()``),
    and a call of an HTTP client (``await client.get(url)``, ``requests.post(...)``) reads as
    ``"response"``: another service's answer.
    """
    if depth > 10:
        return
    while isinstance(expr, (cst.Await, cst.Attribute, cst.Subscript)):
        expr = expr.expression if isinstance(expr, cst.Await) else expr.value
    if isinstance(expr, cst.Name):
        bound = ctx.lookup(expr.value) if ctx is not None else None
        if bound is not None and bound[0].kind == "function" and len(bound[1]) == 1 and bound[1][0] is not None:
            # a local says where its data came from, whatever its name: request_data = {...} is made here
            yield from _data_roots(bound[1][0], ctx, depth + 1)
            return
        yield expr.value
        if ctx is not None and expr.value in ctx.scope.with_targets:  # async with session.get(url) as resp
            yield from _data_roots(ctx.scope.with_targets[expr.value], ctx, depth + 1)
    elif isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Attribute):
            yield from _data_roots(expr.func, ctx, depth + 1)  # request.json(): the receiver's data
        callee = expr.func.attr.value if isinstance(expr.func, cst.Attribute) else getattr(expr.func, "value", "")
        if callee in _PARSERS:  # json.loads(resp.text): the argument's data; other calls make new data
            for arg in expr.args:
                yield from _data_roots(arg.value, ctx, depth + 1)
        elif ctx is not None and _http_call(expr, ctx):
            yield "response"
        elif callee in _FILE_READERS or (ctx is not None and (ctx.qualname(expr.func) or "").startswith(_FILE_MODULES)):
            yield _FILE  # open(path), Path(p).read_text(), yaml.safe_load(f): a file, not a request
    elif isinstance(expr, cst.Dict):
        for el in expr.elements:
            yield from _data_roots(el.value, ctx, depth + 1)


def _http_call(call: cst.Call, ctx: Context) -> bool:
    """``client.get(url)``, ``session.post(...)``, ``requests.get(...)``, ``httpx.post(...)``, ``urlopen(...)``."""
    func = call.func
    q = ctx.qualname(func) or ""
    if q.startswith(("requests.", "httpx.", "aiohttp.", "urllib.request.")):
        return True
    if not isinstance(func, cst.Attribute) or func.attr.value not in _HTTP_VERBS:
        return False
    receiver = func.value
    while isinstance(receiver, (cst.Attribute, cst.Call)):
        receiver = receiver.func if isinstance(receiver, cst.Call) else receiver.attr
    return isinstance(receiver, cst.Name) and bool(_words(receiver.value) & _CLIENT_WORDS)


def _decoded(call: cst.Call, ctx: Context) -> list[str]:
    """Same-module classes a decoding call fills from data: ``msgspec.json.decode(b, type=X)``,
    ``msgspec.convert(d, X)``, ``TypeAdapter(X).validate_python(d)``, ``cattrs.structure(d, X)``,
    ``dacite.from_dict(data_class=X, data=d)``."""
    func = call.func
    if not isinstance(func, (cst.Attribute, cst.Name)):
        return []
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value
    if name not in _DECODERS:
        return []
    candidates = [a.value for a in call.args]
    maker = func.value if isinstance(func, cst.Attribute) else None
    if isinstance(maker, cst.Name):  # order_decoder = msgspec.json.Decoder(Order); order_decoder.decode(...)
        bound = ctx.lookup(maker.value)
        maker = bound[1][-1] if bound is not None and bound[1] else None
    if isinstance(maker, cst.Call):
        candidates.extend(a.value for a in maker.args)  # TypeAdapter(X).validate_python(...), Decoder(X).decode(...)
    out = []
    for value in candidates:
        for ref in m.type_refs(value) if isinstance(value, (cst.Subscript, cst.Name)) else ():
            if ref in ctx.index.classes:
                out.append(ref)
    return out


def _injected(param: cst.Param, ctx: Context) -> bool:
    """The endpoint parameter's value comes from a dependency function (``Depends(current_user)``), not the request.

    ``Depends()`` and ``Depends(SomeModel)`` build the model from the request's
    query parameters, so they stay request input.
    """
    calls = [param.default] if isinstance(param.default, cst.Call) else []
    ann = param.annotation.annotation if param.annotation is not None else None
    if isinstance(ann, cst.Subscript) and m.type_head(ann.value, ctx) == "Annotated":
        calls.extend(v for v in m.slice_values(ann)[1:] if isinstance(v, cst.Call))
    for call in calls:
        if m.short_name(call.func, ctx) not in _DEPENDENCY_MARKERS:
            continue
        args = m.positional(call)
        dependency = args[0] if args else m.kwarg(call, "dependency")
        if dependency is None or (isinstance(dependency, cst.Name) and dependency.value in ctx.index.classes):
            return False
        return True
    return False


def _dumped_by_helper(call: cst.Call, helper: cst.FunctionDef, ctx: Context) -> set[str]:
    """Same-module classes *call* passes to parameters that *helper* builds and serialises (``model(**d).model_dump()``)."""
    params = [p.name.value for p in (*helper.params.posonly_params, *helper.params.params)]
    classes: dict[str, str] = {}
    for i, arg in enumerate(call.args):
        if arg.star or not isinstance(arg.value, cst.Name) or arg.value.value not in ctx.index.classes:
            continue
        name = arg.keyword.value if arg.keyword is not None else (params[i] if i < len(params) else None)
        if name is not None:
            classes[name] = arg.value.value
    if not classes:
        return set()
    out = set()
    for node in m.iter_nodes(helper.body):
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _DUMPS
                and isinstance(node.func.value, cst.Call)):
            inner = node.func.value.func
            if isinstance(inner, cst.Attribute) and inner.attr.value in _CONSTRUCTORS:
                inner = inner.value
            if isinstance(inner, cst.Name) and inner.value in classes:
                out.add(classes[inner.value])
    return out


# Views whose serializer validates a request body: generic views and viewsets that create or update.
_DRF_WRITE_METHODS = frozenset({"post", "put", "patch", "create", "update", "partial_update"})


def _takes_input(cls: cst.ClassDef) -> bool:
    """A DRF serializer whose own code handles input: ``create`` / ``update`` / ``validate`` /
    ``validate_<field>`` methods, or a ``write_only=True`` field."""
    for stmt in m.class_statements(cls):
        if isinstance(stmt, cst.FunctionDef):
            name = stmt.name.value
            if name in ("create", "update", "validate") or name.startswith("validate_"):
                return True
        elif isinstance(stmt, cst.Assign) and isinstance(stmt.value, cst.Call):
            write_only = m.kwarg(stmt.value, "write_only")
            if isinstance(write_only, cst.Name) and write_only.value == "True":
                return True
    return False


def _write_view_base(name: str) -> bool:
    """``CreateAPIView``, ``ListCreateAPIView``, ``UpdateModelMixin``, ``ModelViewSet`` (not ``ReadOnlyModelViewSet``)."""
    return name == "ModelViewSet" or "Create" in name or "Update" in name


def _write_view_serializers(ctx: Context) -> set[str]:
    """Names assigned to ``serializer_class`` in same-module views that accept a body (DRF)."""
    out = set()
    for cls in ctx.index.classes.values():
        assigned = [small.value for small in m.class_statements(cls)
                    if isinstance(small, cst.Assign) and isinstance(small.value, cst.Name)
                    and any(isinstance(t.target, cst.Name) and t.target.value == "serializer_class" for t in small.targets)]
        if not assigned:
            continue
        bases = [m.short_name(b.value, ctx) for b in cls.bases]
        methods = {stmt.name.value for stmt in m.class_statements(cls) if isinstance(stmt, cst.FunctionDef)}
        if any(_write_view_base(base) for base in bases) or methods & _DRF_WRITE_METHODS:
            out.update(value.value for value in assigned)
    return out
