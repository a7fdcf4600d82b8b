"""BND201: which of a module's models are request models, and which are output, configuration or outbound."""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from boundlint.analysis import models as m
from boundlint.analysis.context import Context

# Names that say a model is output or configuration: never judged by name or partial caps alone.
NOT_REQUEST_MODEL_PATTERNS = (
    "*Response", "*Resp", "*Result", "*Results", "*Output", "*Out", "*Reply", "*Config", "*Settings", "*Options",
    "*Conf",
    "*Event", "*Record", "*Row", "*Info", "*Stats", "*Status", "*State",
    # parameters of a configuration (``GuardrailConfigModelOptionalParams``), not of a request
    "*Config*Params", "*Settings*Params", "*Options*Params",
)


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
    # request models by class name only (and their bases): a free-form mapping there is not judged
    by_name: set[str] = field(default_factory=set)
    # request models by weak evidence only, their name or a partial cap (and the models they bring in)
    weak: set[str] = field(default_factory=set)
    # model name -> fields that every endpoint of the project taking it rejects when oversized (`len(body.ids) > N`)
    checked: dict[str, set[str]] = field(default_factory=dict)
    # models some module of the project fills from keywords or a dict literal it writes: its own payloads,
    # not judged on their own (a request model that nests one still is)
    sent: set[str] = field(default_factory=set)


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
            per_endpoint = ctx.project.ask("input_len_checks", ctx.project.ref(None, name)) or []
            if per_endpoint:
                mod.checked[name] = set.intersection(*(set(fields) for fields in per_endpoint))
        elif name not in mod.endpoint_refs and name not in mod.loaded:
            if uses["output"]:
                mod.returned.add(name)
            if uses["built"]:
                mod.built.add(name)
            if uses.get("filled") and models[name].kind != "drf":
                mod.sent.add(name)  # not a DRF serializer: one built from keywords (context=) renders output
    return chains


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
    capped: set[str] = set()
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
        elif model.kind != "drf" and any(f.capped for f in own) and any(
                f.limit is None and not f.shape.free_form for f in own):
            why[name] = ""  # caps some collections: an input contract missing a cap
            capped.add(name)
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
    mod.by_name = {name for name, part_of in why.items() if (part_of or name) in named}
    mod.weak = {name for name, part_of in why.items() if (part_of or name) in named | capped}
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
