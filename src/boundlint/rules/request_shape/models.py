"""BND201 unbounded-request-collection: which models are request models, and their uncapped collections.

The rule gathers what the module does with its models while it is walked;
``model_roles`` decides which models are request models, ``model_sources``
where the data a model is filled from comes from.
"""
from __future__ import annotations

from dataclasses import replace

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis import models as m
from boundlint.analysis.context import Context
from boundlint.config import REQUEST_MODEL_PATTERNS
from boundlint.rules.base import Example, Rule
from boundlint.rules.prefilter import AnyOf, Literals, Words
from boundlint.analysis.severity import LOW
from boundlint.rules.request_shape.endpoints import (
    DEFAULT_EXTRA_ENDPOINT_DECORATORS, endpoint_framework, function_params, input_decorator_models, is_dependency,
    litestar_injected,
)
from boundlint.rules.request_shape.model_roles import (
    _chain, _client_package, _ModuleModels, _project_uses, _redeclared, _request_models, _takes_input,
    _write_view_serializers,
)
from boundlint.rules.request_shape.mapping_uses import RECORD, WALKED, mapping_uses
from boundlint.rules.request_shape.unnamed import unnamed_models
from boundlint.rules.request_shape.unread import unread_fields
from boundlint.rules.request_shape.model_sources import (
    _DUMPS, _built_here, _constructed, _data_source, _data_source_of, _decoded, _dumped_by_helper, _fills_from_data,
    _http_call, _injected,
)

DEFAULT_REQUEST_MODEL_PATTERNS = REQUEST_MODEL_PATTERNS
DEFAULT_EXTRA_MODEL_BASES: tuple[str, ...] = ()
_LOADERS = frozenset({"load", "loads", "validate", "parse"})


class UnboundedRequestCollection(Rule):
    """
    ## What it does
    Flags a collection field (`list`, `set`, `dict`, `Sequence`, `Mapping`,
    `tuple[X, ...]`, `conlist` ...) of a *request model* that has no maximum
    size.  A free-form mapping (`dict[str, Any]`, `Dict[str, Any]`, a bare
    `dict`, `Mapping[str, Any]`, pydantic `Json[dict]`, marshmallow
    `fields.Dict()`, DRF `DictField()`) is a collection of keys: it is
    flagged too, with the endpoint's use in the evidence when the handler
    walks it key by key (`for k, v in body.meta.items()`, `**body.meta`).  Models: pydantic v1 and v2 (`BaseModel`, `RootModel`, the
    `pydantic.v1` namespace, pydantic dataclasses), `msgspec.Struct`, attrs,
    `@dataclass`, marshmallow `Schema` (`fields.List`, `fields.Dict`,
    `fields.Nested(..., many=True)`), Django REST framework serializers
    (`ListField`, `ListSerializer(child=...)`, `DictField(child=...)`, nested serializers and related
    fields with `many=True`; not `read_only=True` ones, nor those listed in
    `Meta.read_only_fields`) and `TypedDict`.
    The finding is on the field's line.

    A *request model* is a model that
    - a web endpoint in any module of the project takes as input (the
      project index links `api.py`'s `def lookup(body: Lookup)` to
      `schemas.py`'s `Lookup`, whatever the class is named; the finding's
      evidence names the endpoint), unless the handler never reads that
      parameter; a model an endpoint elsewhere only sends back, or that the
      project builds and serialises to send (`Payload(...).model_dump()`),
      is output;
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
      a missed cap; not for DRF serializers, which render output as often;
      weak evidence, like the name below);
    - or, for pydantic and msgspec models and marshmallow schemas, whose
      class name matches `request-model-patterns` (by default `*Request`,
      `*Req`, `*Params`, `*Query`, `*Body`, `*Payload`, `*Input`,
      `*Command`, `*Batch`, `*Create`, `*Update`, `*Form`).  The name is
      weak evidence, like a partial cap: where the project's endpoints are
      in sight (the model lives in a package whose project has endpoints
      outside its tests) and none can take the model (as a parameter, a
      `Depends()` query model, by reading the request into it in a route
      or a function given the `request`, or by nesting it in or deriving it
      from such a model), its findings are `low` severity: an outbound
      payload, a parsed answer, a documentation schema.  In a loose module,
      or a project with no endpoint in sight, the name or cap still counts.
      Likewise a DRF serializer that only its own input methods mark as a
      request is `low` when nothing in the project names it: not its own
      module outside its `class` statement, and no other module imports it
      (nor the module holding it, whose attribute it could be).
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
    - models the project builds itself: from keyword arguments or a dict
      literal (in any module but test code: `payload = ScanPayload(texts=t)`,
      `ScanPayload(**{"texts": t, **extra})`
      or `ScanPayload.model_validate({"texts": t})` before a call to a
      vendor; not one handed straight to a function, `hook(data=Req(...))`,
      nor one filled from `data=` or off the request), or validated and
      serialised at once
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
    - marshmallow `validate=validate.Length(max=N)` (or `equal=N`);
    - DRF `ListField(max_length=N)` (also `ListSerializer`), a nested serializer with
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
      (`body.ids[:MAX]`); for endpoints in other modules, a rejecting
      `if len(body.ids) > N:` (also `if body.ids is not None and ...`, on
      a local that holds it, `ids = body.ids`, or on its serialised size,
      `len(json.dumps(body.meta)) > N`) in every one of them;
    - a project function, in any module, that every endpoint taking the
      model hands the field to (`check_files(form.files)`), or the whole
      model to (`await notes.save(body)`, whose `save` checks
      `form.files`), and that rejects it once too long or too large
      (`if len(files) > MAX_FILES: raise ...`), itself or through one more
      call, before the endpoint does other work with the field (not a
      check after a loop over it);
    - a set or mapping whose items or keys come from a finite type
      (`set[Literal["a", "b"]]`, `dict[Tier, str]` with a same-module enum
      `Tier`, or an enum imported from another module of the project,
      `dict[bool, int]`): it holds one entry per value at most.

    For a free-form mapping, a cap on its keys or bytes: `Field(max_length=N)`
    (pydantic v2 and msgspec `Meta(max_length=N)` cap a dict's keys),
    marshmallow `validate.Length(max=N)`, a validator that compares `len` of
    it or of its encoding (`len(json.dumps(v)) > N`; an `AfterValidator(f)`
    whose `f` lives in another module of the project counts when `f`, or a
    helper it passes the value to, rejects it so), a handler check as
    above; or fixed keys: a `TypedDict` or nested model instead of a dict.
    Also not flagged:
    - a mapping that every same-module endpoint taking the model only reads
      by fixed keys (`body.options["retries"]`, `body.options.get("secret")`):
      a record, whose extra keys nothing touches;
    - a mapping that no same-module endpoint taking the model reads on its
      own, each serialising the whole body straight into a request to a URL
      (`client.post("/api/embed", content=form.model_dump_json())`): one
      option object of one forwarded payload;
    - a field that every endpoint of the project taking the model leaves
      alone: none reads it, nor does a project function it hands the model
      to, or each assigns it before any use (`form.meta = None`); not when
      a class derives from the model, another model of the module nests
      it, the model's methods or a validator in its annotation name it,
      or an endpoint uses the whole model otherwise (`body.model_dump()`,
      `body` passed outside the project: every field counts as read);
    - a mapping in a model that only its class name calls a request
      (`*Request` with no endpoint, loader or partial cap behind it);
    - response models and outbound payloads, as for any field.
    """
    code, name = "BND201", "unbounded-request-collection"
    # Every model kind needs one of these words: its base, decorator or import.
    prefilter = AnyOf(Literals("pydantic", "sqlmodel", "ninja", "beanie", "msgspec", "TypedDict", "dataclass", "marshmallow",
                               "rest_framework", "adrf"), Words("attr", "attrs"))
    widening_options = ("extra-model-bases",)
    message = "request field `{model}.{field}` (`{type}`) accepts any number of {units}{via}"
    hint = "cap the field's size in the model, as its model kind allows"
    hints = {  # by model kind (analysis.models.Model.kind)
        "pydantic": "cap it: `Field(max_length=N)` (pydantic v1: `Field(max_items=N)`) or `conlist(X, max_length=N)`",
        "msgspec": "cap it: `Annotated[list[X], msgspec.Meta(max_length=N)]`",
        "attrs": "cap it: `field(validator=attrs.validators.max_len(N))`",
        "dataclass": "check it in `__post_init__`: `if len(self.field) > N: raise ValueError(...)`",
        "marshmallow": "cap it: `fields.List(..., validate=validate.Length(max=N))`",
        "drf": "cap it: `ListField(child=..., max_length=N)`, or `many=True, max_length=N` on a nested serializer",
        "typeddict": "cap it: `Annotated[list[X], Field(max_length=N)]` (pydantic and FastAPI enforce it)",
        # a free-form mapping (any model kind): declare its keys, or cap them
        "free-form": "declare its keys (a TypedDict or a nested model), or cap them: `Field(max_length=N)`, a `len` validator",
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

    def report(self, node, evidence=(), hint="", **fields):
        """As ``Rule.report``; ``units`` (what the field holds any number of) defaults to ``items``."""
        fields.setdefault("units", "items")
        super().report(node, evidence, hint, **fields)

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
            if type(deco.decorator) is cst.Call:
                schema = m.kwarg(deco.decorator, "request", "request_body")
                if type(schema) is cst.Name:
                    self._mod.loaded.add(schema.value)
        framework = endpoint_framework(node, ctx, extra)
        if framework is None:
            return
        # What the endpoint sends back is output: `response_model=`, FastAPI's `responses={...: {"model": M}}`,
        # Django Ninja's `response=`, the return annotation.
        decorator = framework[1]
        outputs = ([m.kwarg(decorator, "response_model"), m.kwarg(decorator, "responses"), m.kwarg(decorator, "response")]
                   if type(decorator) is cst.Call else [])
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
            if type(param.default) is cst.Call:  # Depends(Model), Body(Model)
                for arg in m.positional(param.default):
                    if type(arg) is cst.Name:
                        self._mod.endpoint_refs.setdefault(arg.value, node.name.value)

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        func = node.func
        if type(func) is cst.Name and m.kwarg(node, "data") is not None:
            self._mod.fed.add(func.value)  # DRF: Serializer(data=request.data)
        if type(func) is cst.Name and func.value in ctx.index.functions:
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
        if type(func) is not cst.Attribute:
            return
        if func.attr.value in _DUMPS and type(func.value) is cst.Call:
            # Model.model_validate(row).model_dump(): the module reshapes data to send or store.
            dumped = _constructed(func.value, ctx)
            if dumped is not None:
                self._mod.built.add(dumped)
        if func.attr.value not in _LOADERS:
            return
        # ImportSchema().load(payload), schema = ImportSchema(); schema.load(...)
        receiver = func.value
        if type(receiver) is cst.Name:
            bound = ctx.lookup(receiver.value)
            receiver = bound[1][-1] if bound and bound[1] and bound[1][-1] is not None else receiver
        if type(receiver) is cst.Call and type(receiver.func) is cst.Name:
            self._mod.loaded.add(receiver.func.value)
        elif func.attr.value == "parse":  # webargs parser.parse(Schema(), request)
            args = m.positional(node)
            first = args[0] if args else None
            if type(first) is cst.Call:
                first = first.func
            if type(first) is cst.Name:
                self._mod.loaded.add(first.value)

    def visit_AnnAssign(self, node: cst.AnnAssign, ctx: Context) -> None:
        # body: SearchRequest = await request.json() -- a TypedDict or dataclass typed as the request's data
        if (node.value is not None and ctx.scope.kind == "function" and not _client_package(ctx.path)
                and type(node.value) is not cst.Dict):  # a dict the function writes itself is no input
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
        own_only = {name for name in drf if _takes_input(models[name].node)} - mod.loaded - set(mod.endpoint_refs)
        mod.loaded |= own_only
        fields: dict[str, list[m.CollectionField]] = {}
        for name, model in models.items():
            own = m.collection_fields(model, ctx, free_form=True)
            if own and any(f.limit is None for f in own):
                checked = m.model_len_checks(_chain(model, models), {f.name for f in own}, ctx)
                own = [replace(f, limit="a `len` check in the model") if f.limit is None and f.name in checked else f
                       for f in own]
            fields[name] = own
        why = _request_models(models, fields, mod, patterns, ctx)
        untaken = _untaken({part_of or name for name, part_of in why.items() if name in mod.weak}, ctx)
        unnamed = unnamed_models(own_only, ctx)  # input methods only, and nothing in the project names it
        reported: set[int] = set()
        for name, part_of in why.items():
            if name in mod.sent and (not part_of or part_of in mod.sent):
                continue  # the project fills it itself (`Payload(texts=t)`) and no endpoint takes it: outbound
            uses = mod.endpoint_params.get(name, [])
            # a base's field that the request model (or a class between them) declares again is judged there
            overridden = _redeclared(name, why, models) if part_of else set()
            for f in fields[name]:
                if f.limit is not None or id(f.node) in reported or f.name in overridden:
                    continue
                if uses and all(limits.checked_in_body(func, f"{param}.{f.name}", ctx) for func, param in uses):
                    continue  # every endpoint taking the model rejects an oversized `body.field` first
                if not part_of and f.name in mod.checked.get(name, ()):
                    continue  # as above, for the endpoints in every module of the project
                if not part_of and f.name in unread_fields(name, mod, models, fields, ctx):
                    continue  # every endpoint taking the model ignores the field, or clears it before any use
                walked: tuple[str, ...] = ()
                if f.shape.free_form:
                    if name in mod.by_name:
                        continue  # a JSON object in a model that only its name calls a request: nothing says it is input
                    seen = [u for func, param in uses for u in _uses_of(func, f"{param}.{f.name}")]
                    if seen and all(kind == RECORD for kind, _, _ in seen):
                        continue  # read by fixed keys only: a record, its extra keys are never touched
                    if uses and not seen and all(_sends_whole(func, param, ctx) for func, param in uses):
                        continue  # never read on its own: the handler serialises the whole body into one request
                    walked = tuple(f"`{f.name}` walked key by key in `{func.name.value}()` ({ctx.where(node)})"
                                   for kind, node, func in seen if kind == WALKED)[:1]
                reported.add(id(f.node))
                via = f" (part of request model `{part_of}`)" if part_of else ""
                chain = evidence.get(part_of or name, ())
                if chain or walked:
                    chain = (f"request field `{name}.{f.name}` ({ctx.where(f.node)})", *chain, *walked)
                hint = self.hints["free-form"] if f.shape.free_form else self.hints.get(models[name].kind, "")
                severity = (LOW, f"no endpoint of the project takes `{part_of or name}`: its name or a partial "
                                 "cap is the only sign of a request") if (part_of or name) in untaken else None
                if (part_of or name) in unnamed:
                    severity = (LOW, f"no view, serializer or route of the project names `{part_of or name}`")
                self.report(f.node, chain, model=name, field=f.name, type=f.shape.text, via=via,
                            units="keys" if f.shape.free_form else "items", hint=hint, severity=severity,
                            fix=f"request-field:{models[name].kind}")


def _untaken(named: set[str], ctx: Context) -> set[str]:
    """The models of *named* (request models by their name or a partial cap only) that no endpoint of the
    project can take: outbound payloads, parsed answers, documentation schemas (``queries.taken_as_input``)."""
    if not ctx.project:
        return set()
    return {name for name in named if ctx.project.ask("taken_as_input", ctx.project.ref(None, name)) == "no"}


def _sends_whole(func: cst.FunctionDef, param: str, ctx: Context) -> bool:
    """The endpoint *func* serialises its parameter *param* whole straight into a request to a URL:
    ``client.post("/api/embed", content=form.model_dump_json())``, ``send(f"{url}/x", payload=form.json())``."""
    for node in m.iter_nodes(func.body):
        if type(node) is not cst.Call or not (_http_call(node, ctx) or _to_url(node)):
            continue
        for arg in node.args:
            if any(type(inner) is cst.Call and type(inner.func) is cst.Attribute and inner.func.attr.value in _DUMPS
                   and type(inner.func.value) is cst.Name and inner.func.value.value == param
                   for inner in m.iter_nodes(arg.value)):
                return True
    return False


def _to_url(call: cst.Call) -> bool:
    """The call's first argument is a URL or path literal (``"/api/embed"``, ``f"{base}/api/embed"``)."""
    first = call.args[0].value if call.args and call.args[0].keyword is None else None
    if type(first) is cst.SimpleString:
        return "/" in first.evaluated_value
    return type(first) is cst.FormattedString and any(
        type(part) is cst.FormattedStringText and "/" in part.value for part in first.parts)


def _uses_of(func: cst.FunctionDef, key: str) -> list[tuple[str, cst.CSTNode, cst.FunctionDef]]:
    """``(kind, node, func)`` for each use of the mapping *key* in the endpoint *func* (see ``mapping_uses``)."""
    return [(kind, node, func) for kind, node in mapping_uses(func, key)]
