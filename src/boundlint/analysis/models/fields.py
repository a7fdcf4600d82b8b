"""Framework field readers: a model's collection fields and the limit on each.

Reads annotated fields (pydantic, msgspec, dataclasses, attrs, TypedDict),
marshmallow and DRF field calls, and untyped ``attr.ib(...)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from boundlint.analysis.context import Context
from boundlint.analysis.models.kinds import _MARSHMALLOW_ROOTS, Model, class_statements, type_refs
from boundlint.analysis.models.lengths import _validator_limit
from boundlint.analysis.models.shapes import Shape, annotation_shape, meta_limit, slice_values, type_head
from boundlint.analysis.models.syntax import _not_none, _text, full_name, kwarg, positional, short_name

_MARSHMALLOW_COLLECTION_FIELDS = frozenset({"List", "Dict", "Mapping", "Nested", "Pluck"})


@dataclass(frozen=True)
class CollectionField:
    """A collection field of a model: report at ``node``; ``limit`` is None when nothing caps it."""

    name: str
    node: cst.CSTNode
    shape: Shape
    limit: str | None
    refs: tuple[str, ...] = ()  # names the field's type mentions (nested models)

    @property
    def capped(self) -> bool:
        """True when the author wrote a limit (not one the item type implies)."""
        return self.limit is not None and not (self.shape.inherent and self.limit == self.shape.limit)


def _is_classvar(annotation: cst.BaseExpression, ctx: Context) -> bool:
    node = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    return type_head(node, ctx) in ("ClassVar", "Final")


def _attrs_type(call: cst.Call, ctx: Context, free_form: bool = False) -> Shape | None:
    """The collection an untyped ``attr.ib(...)`` holds, from ``type=`` or a list/set/dict factory."""
    typ = kwarg(call, "type")
    if typ is not None:
        return annotation_shape(typ, ctx, free_form=free_form)
    factory = kwarg(call, "factory")
    default = kwarg(call, "default")
    if isinstance(default, cst.Call) and short_name(default.func, ctx) == "Factory" and default.args:
        factory = default.args[0].value
    if isinstance(factory, cst.Name) and factory.value in ("list", "set", "dict"):
        return Shape(factory.value, None)
    return None


def _marshmallow_shape(call: cst.Call, ctx: Context, free_form: bool = False) -> Shape | None:
    name = full_name(call.func, ctx)
    head = name.rsplit(".", 1)[-1]
    if head not in _MARSHMALLOW_COLLECTION_FIELDS:
        return None
    if not (name.startswith(_MARSHMALLOW_ROOTS) or "fields." in name or name.startswith(("ma.", "fields"))):
        return None
    if head in ("Dict", "Mapping"):
        values = kwarg(call, "values")
        if values is None or (isinstance(values, cst.Call) and short_name(values.func, ctx) == "Raw"):
            return Shape(_text(call.func) + "(...)", None, free_form=True) if free_form else None  # a free-form JSON object
    if head in ("Nested", "Pluck"):
        many = kwarg(call, "many")
        inner = positional(call)[0] if positional(call) else None
        nested_many = isinstance(inner, cst.Call) and isinstance(kwarg(inner, "many"), cst.Name) and kwarg(inner, "many").value == "True"
        if not (isinstance(many, cst.Name) and many.value == "True") and not nested_many:
            return None
    return Shape(_text(call.func) + "(...)", None)


def _drf_shape(call: cst.Call, ctx: Context, free_form: bool = False) -> Shape | None:
    """A Django REST framework serializer field that holds many items, with its limit.

    ``ListField(child=...)`` and ``ListSerializer(child=...)`` (``max_length=N`` caps them), ``DictField(child=...)``,
    a nested serializer or related field with ``many=True`` (a nested serializer
    takes ``max_length=N`` since DRF 3.13).  ``MultipleChoiceField`` holds at
    most its choices; ``DictField()`` without a child is a free-form object
    (a shape only with *free_form*); ``JSONField()`` may hold any JSON value,
    not judged; ``read_only=True`` fields are not input (nor are those in
    ``Meta.read_only_fields``: ``collection_fields`` skips them).
    """
    read_only = kwarg(call, "read_only")
    if isinstance(read_only, cst.Name) and read_only.value == "True":
        return None  # output only: DRF ignores it in input
    head = short_name(call.func, ctx)
    many = kwarg(call, "many")
    if head in ("ListField", "ListSerializer") or (isinstance(many, cst.Name) and many.value == "True"):
        limit = "`max_length=N`" if _not_none(kwarg(call, "max_length")) else None
        return Shape(_text(call.func) + ("(many=True)" if head not in ("ListField", "ListSerializer") else "(...)"), limit)
    if head == "DictField" and kwarg(call, "child") is not None:
        return Shape(_text(call.func) + "(...)", None)
    if head == "DictField" and free_form:
        return Shape(_text(call.func) + "()", None, free_form=True)
    return None


def collection_fields(model: Model, ctx: Context, free_form: bool = False) -> list[CollectionField]:
    """The collection fields *model* declares itself, each with its limit (None when unbounded).

    With *free_form*, free-form JSON objects (``dict[str, Any]``, bare ``dict``,
    ``Json[dict]``, marshmallow ``fields.Dict()``, DRF ``DictField()``) are
    fields too, their shape marked ``free_form``.
    """
    out: list[CollectionField] = []
    cls = model.node
    kind = model.kind
    # RootModel[list[X]]: the root type is in the base.
    for arg in cls.bases:
        if isinstance(arg.value, cst.Subscript) and short_name(arg.value.value, ctx) == "RootModel":
            values = slice_values(arg.value)
            if values:
                shape = annotation_shape(values[0], ctx, free_form=free_form)
                if shape is not None:
                    out.append(CollectionField("root", values[0], shape, shape.limit, type_refs(values[0])))
    for stmt in class_statements(cls):
        if isinstance(stmt, cst.AnnAssign) and isinstance(stmt.target, cst.Name):
            name = stmt.target.value
            ann = stmt.annotation.annotation
            if _is_classvar(ann, ctx) or name == "model_config":
                continue
            if kind in ("pydantic", "msgspec") and name.startswith("_") and name != "__root__":
                continue
            shape = annotation_shape(ann, ctx, free_form=free_form)
            value = stmt.value
            if shape is None and kind == "attrs" and isinstance(value, cst.Call):
                shape = _attrs_type(value, ctx, free_form)
            if shape is None:
                continue
            limit = shape.limit or _default_limit(value, kind, ctx)
            out.append(CollectionField(name, stmt, shape, limit, type_refs(ann)))
        elif isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
            name = stmt.targets[0].target.value
            value = stmt.value
            if not isinstance(value, cst.Call):
                continue
            if kind == "marshmallow":
                shape = _marshmallow_shape(value, ctx, free_form)
                if shape is None:
                    continue
                limit = _validator_limit(kwarg(value, "validate"), ctx)
                refs = type_refs(value)
                out.append(CollectionField(name, stmt, shape, limit, refs))
            elif kind == "drf":
                shape = _drf_shape(value, ctx, free_form)
                if shape is None or name in _meta_read_only(cls):
                    continue  # Meta.read_only_fields: output only, as read_only=True
                limit = shape.limit or _validator_limit(kwarg(value, "validators"), ctx)
                out.append(CollectionField(name, stmt, shape, limit, type_refs(value.func)))
            elif kind == "attrs" and short_name(value.func, ctx) in ("ib", "attrib", "field"):
                shape = _attrs_type(value, ctx, free_form)
                if shape is None:
                    continue
                out.append(CollectionField(name, stmt, shape, _validator_limit(kwarg(value, "validator"), ctx), type_refs(kwarg(value, "type"))))
    return out


def _meta_read_only(cls: cst.ClassDef) -> set[str]:
    """Names a DRF serializer lists in its own ``class Meta: read_only_fields = (...)``."""
    out: set[str] = set()
    for stmt in class_statements(cls):
        if not (isinstance(stmt, cst.ClassDef) and stmt.name.value == "Meta"):
            continue
        for small in class_statements(stmt):
            if (isinstance(small, cst.Assign) and isinstance(small.value, (cst.Tuple, cst.List))
                    and any(isinstance(t.target, cst.Name) and t.target.value == "read_only_fields" for t in small.targets)):
                out.update(el.value.evaluated_value for el in small.value.elements
                           if isinstance(el.value, cst.SimpleString))
    return out


def _default_limit(value: cst.BaseExpression | None, kind: str, ctx: Context) -> str | None:
    """A field default that caps the collection: ``Field(max_length=N)``, attrs ``field(validator=max_len(N))``."""
    if not isinstance(value, cst.Call):
        return None
    if kind == "attrs":
        return _validator_limit(kwarg(value, "validator"), ctx)
    if kind == "dataclass":
        return None  # dataclasses.field() carries no constraint
    return meta_limit(value, ctx)
