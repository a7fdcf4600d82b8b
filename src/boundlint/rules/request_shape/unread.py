"""BND201: request fields that no endpoint taking the model reads (it ignores them, or clears them first)."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis import models as m
from boundlint.analysis.context import Context
from boundlint.rules.request_shape.model_roles import _chain, _ModuleModels, _nested_refs


def unread_fields(name: str, mod: _ModuleModels, models: dict[str, m.Model],
                  fields: dict[str, list[m.CollectionField]], ctx: Context) -> frozenset[str]:
    """Collection fields of the request model *name* that every endpoint of the project taking it leaves
    alone: it never reads them (nor does a project function it hands the model to), or assigns them
    before any use (``form.meta = None``).  Empty unless the project index shows every endpoint that
    takes the model, and nothing else reads it: not a model the module also loads otherwise, nests in
    another model, derives another class from, or whose own methods name the field."""
    cache = ctx.cache.setdefault("bnd201.unread", {})
    if name not in cache:
        cache[name] = _unread(name, mod, models, fields, ctx)
    return cache[name]


def _unread(name: str, mod: _ModuleModels, models: dict[str, m.Model],
            fields: dict[str, list[m.CollectionField]], ctx: Context) -> frozenset[str]:
    if not ctx.project or name in mod.loaded:
        return frozenset()
    for other, model in models.items():  # nested in another model: that model's endpoints read it too
        if other != name and name in {*_nested_refs(model), *(r for f in fields[other] for r in f.refs)}:
            return frozenset()
    answer = ctx.project.ask("input_field_reads", ctx.project.ref(None, name))
    if not answer:
        return frozenset()
    shown = {e["func"].rsplit(".", 1)[-1] for e in answer}
    here = {func.name.value for func, _ in mod.endpoint_params.get(name, [])} | {mod.endpoint_refs.get(name) or ""}
    if here - shown - {""}:
        return frozenset()  # an endpoint (or dependency) of this module the index does not know takes it
    named = _named_in_methods(_chain(models[name], models))
    return frozenset(
        f.name for f in fields[name]
        if f.name not in named and not _validated(f.node) and all(f.name in e["cleared"] or (e["read"] is not None and f.name not in e["read"])
                                       for e in answer))


def _named_in_methods(classes: list[cst.ClassDef]) -> set[str]:
    """Attribute names and strings the methods of *classes* use: a validator or property may read a field."""
    out: set[str] = set()
    for cls in classes:
        for stmt in m.class_statements(cls):
            if not isinstance(stmt, cst.FunctionDef):
                continue
            for node in m.iter_nodes(stmt):
                if isinstance(node, cst.Attribute):
                    out.add(node.attr.value)
                elif isinstance(node, cst.SimpleString):
                    value = node.evaluated_value
                    if isinstance(value, str):
                        out.add(value)
    return out


def _validated(stmt: cst.CSTNode) -> bool:
    """The field's declaration runs code of its own on the value: a call in its annotation
    (``Annotated[dict, AfterValidator(f)]``) or a ``validate=`` / ``validator=`` argument."""
    if isinstance(stmt, cst.AnnAssign) and any(isinstance(n, cst.Call) for n in m.iter_nodes(stmt.annotation)):
        return True
    value = stmt.value if isinstance(stmt, (cst.AnnAssign, cst.Assign)) else None
    return isinstance(value, cst.Call) and m.kwarg(value, "validate", "validator", "validators") is not None
