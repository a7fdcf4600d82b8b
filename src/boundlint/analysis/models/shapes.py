"""Collection types: is an annotation a variable-size collection, and what caps its size.

``annotation_shape(expr, ctx)`` looks through unions, ``Annotated``, string
annotations and same-module aliases; ``meta_limit`` reads the ``Annotated``
metadata or field default that carries a maximum.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

import libcst as cst

from boundlint.analysis.context import Context
from boundlint.analysis.enums import is_enum_class
from boundlint.analysis.models.lengths import function_checks_len
from boundlint.analysis.models.syntax import _not_none, _text, kwarg, positional, short_name
from boundlint.analysis.names import dotted

# typing / builtin names of variable-size collections (canonical short names).
COLLECTION_TYPES = frozenset({
    "list", "List", "set", "Set", "frozenset", "FrozenSet", "dict", "Dict", "Sequence", "MutableSequence",
    "Iterable", "Collection", "Mapping", "MutableMapping", "AbstractSet", "MutableSet", "Deque", "deque",
    "DefaultDict", "defaultdict", "OrderedDict", "Counter",
})
_TYPING_MODULES = ("typing.", "collections.", "builtins.")
SET_TYPES = frozenset({"set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet"})
MAPPING_TYPES = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict", "Counter"})
# Value types of a free-form JSON object (``dict[str, Any]``): such fields are not judged.
OPAQUE_VALUE_TYPES = frozenset({"Any", "object", "JsonValue", "Json", "JSON", "JSONValue", "JsonType", "JSONType"})
_CON_COLLECTIONS = frozenset({"conlist", "conset", "confrozenset"})
_SIZE_KEYWORDS = frozenset({"max_length", "max_items", "max_size"})
_LEN_VALIDATOR_WRAPPERS = frozenset({"AfterValidator", "BeforeValidator", "WrapValidator", "PlainValidator"})


@dataclass(frozen=True)
class Shape:
    """A collection type: ``text`` as written (for messages), ``limit`` why it is bounded, or None."""

    text: str
    limit: str | None = None
    inherent: bool = False  # the limit follows from the item type, nobody wrote it
    free_form: bool = False  # a JSON object of any keys (``dict[str, Any]``, bare ``dict``, ``Json[dict]``)


def type_head(expr: cst.BaseExpression, ctx: Context) -> str:
    """Short name of a typing construct or builtin collection; ``""`` for anything else."""
    q = ctx.qualname(expr)
    if q is not None:
        if q.startswith(_TYPING_MODULES) or q.startswith("pydantic.") or q.startswith("annotated_types."):
            return q.rsplit(".", 1)[-1]
        if q.startswith("typing_extensions") or q.startswith("msgspec."):
            return q.rsplit(".", 1)[-1]
        return ""
    if isinstance(expr, cst.Name):
        if ctx.index.classes.get(expr.value) is not None:
            return ""
        return expr.value
    if isinstance(expr, cst.Attribute):
        return expr.attr.value if dotted(expr) and dotted(expr).split(".", 1)[0] in ("typing", "t", "builtins") else ""
    return ""


def slice_values(sub: cst.Subscript) -> list[cst.BaseExpression]:
    """The index expressions of ``X[a, b]`` (slices skipped)."""
    out = []
    for el in sub.slice:
        if isinstance(el.slice, cst.Index):
            out.append(el.slice.value)
    return out


def annotation_shape(expr: cst.BaseExpression | None, ctx: Context, depth: int = 0,
                     free_form: bool = False) -> Shape | None:
    """The collection *expr* annotates and its limit, or None when it is not a variable-size collection.

    Looks through ``Optional[...]``, ``Union[...]``, ``X | None``, ``Annotated[...]``,
    pydantic ``Json[...]``, string annotations and same-module type aliases.
    ``Annotated`` metadata with a maximum (``Field(max_length=N)``,
    ``MaxLen(N)``, ``Len(_, N)``, ``msgspec.Meta(max_length=N)``, a validator
    that checks ``len``) bounds it.  A free-form JSON object (``dict[str, Any]``,
    bare ``dict`` / ``Mapping``, ``Json[dict]``) is None, unless *free_form*
    asks for it: then it is a shape with ``free_form=True``.
    """
    if expr is None or depth > 8:
        return None
    if isinstance(expr, cst.SimpleString):
        try:
            inner = cst.parse_expression(expr.evaluated_value)  # a forward reference
        except Exception:
            return None
        return annotation_shape(inner, ctx, depth + 1, free_form)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
        return _union_shape((expr.left, expr.right), ctx, depth, free_form)
    if isinstance(expr, cst.Call):
        head = short_name(expr.func, ctx)
        if head in _CON_COLLECTIONS:
            size = kwarg(expr, *_SIZE_KEYWORDS)
            return Shape(_text(expr), f"`{head}(..., max_...)`" if _not_none(size) else None)
        return None
    if isinstance(expr, cst.Subscript):
        head = type_head(expr.value, ctx)
        args = slice_values(expr)
        if not args:
            return None
        if head in ("Optional", "Union"):
            return _union_shape(args, ctx, depth, free_form)
        if head == "Annotated":
            inner = annotation_shape(args[0], ctx, depth + 1, free_form)
            if inner is None or inner.limit is not None:
                return inner
            for meta in args[1:]:
                found = meta_limit(meta, ctx)
                if found:
                    return replace(inner, text=_text(expr), limit=found)
            return replace(inner, text=_text(expr))
        if head == "Json":  # pydantic Json[dict]: a JSON string decoded into the inner type
            inner = annotation_shape(args[0], ctx, depth + 1, free_form)
            return replace(inner, text=_text(expr)) if inner is not None else None
        if head in ("tuple", "Tuple"):
            if len(args) == 2 and isinstance(args[1], cst.Ellipsis):
                return Shape(_text(expr), None)
            # a fixed-length tuple holds exactly its listed items, but each may be a collection of its own
            return _first_unbounded(args, expr, ctx, depth)
        if head in MAPPING_TYPES and (len(args) < 2 or _opaque(args[-1], ctx)):
            # a free-form JSON object: only judged where the caller asks (request models)
            return Shape(_text(expr), None, free_form=True) if free_form else None
        if (head in MAPPING_TYPES or head in SET_TYPES) and finite_type(args[0], ctx):
            # {Tier: str}, set[Literal["a", "b"]]: distinct keys from a closed set, unless each value is a collection
            values = _first_unbounded(args[1:], expr, ctx, depth) if head in MAPPING_TYPES else None
            return values or Shape(_text(expr), "keys from a finite type (`Literal`, `bool`, an enum)", inherent=True)
        if head in COLLECTION_TYPES:
            return Shape(_text(expr), None)
        if head in ("Required", "NotRequired", "ReadOnly", "Final"):
            return annotation_shape(args[0], ctx, depth + 1, free_form)
        return None
    if isinstance(expr, (cst.Name, cst.Attribute)):
        head = type_head(expr, ctx)
        if head in MAPPING_TYPES:  # a bare dict: a free-form JSON object
            return Shape(_text(expr), None, free_form=True) if free_form else None
        if head in COLLECTION_TYPES or head in ("tuple", "Tuple"):
            return Shape(_text(expr), None)
        if isinstance(expr, cst.Name):
            return _alias_shape(expr, ctx, depth, free_form)
    return None


def _first_unbounded(items: Iterable[cst.BaseExpression], whole: cst.BaseExpression, ctx: Context,
                     depth: int) -> Shape | None:
    """``whole`` as an unbounded shape when one of *items* is an uncapped collection (``tuple[list[str], int]``)."""
    for item in items:
        inner = annotation_shape(item, ctx, depth + 1)
        if inner is not None and inner.limit is None:
            return Shape(_text(whole), None)
    return None


def finite_type(expr: cst.BaseExpression, ctx: Context, depth: int = 0) -> bool:
    """True when *expr* has a closed set of values: ``Literal[...]``, ``bool``, an enum of the project, or a union of them.

    Sees through same-module aliases (``Tier = Literal["low", "high"]``).
    """
    if depth > 8:
        return False
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
        return finite_type(expr.left, ctx, depth + 1) and finite_type(expr.right, ctx, depth + 1)
    if isinstance(expr, cst.Subscript):
        head = type_head(expr.value, ctx)
        if head == "Literal":
            return True
        if head in ("Optional", "Union", "Annotated"):
            args = slice_values(expr)
            args = args[:1] if head == "Annotated" else args
            return bool(args) and all(finite_type(a, ctx, depth + 1) for a in args)
        return False
    if isinstance(expr, cst.Name):
        if expr.value in ("bool", "None"):
            return True
        if expr.value in ctx.index.classes:
            return is_enum_class(expr, ctx)
        value = expand_alias(expr, ctx)
        if value is not expr:
            return finite_type(value, ctx, depth + 1)
    return isinstance(expr, (cst.Name, cst.Attribute)) and is_enum_class(expr, ctx)  # also one another module defines


def _opaque(expr: cst.BaseExpression, ctx: Context) -> bool:
    """True for a JSON-ish value type: ``Any``, ``object``, ``JsonValue``, or a union holding one."""
    if isinstance(expr, cst.BinaryOperation):
        return _opaque(expr.left, ctx) or _opaque(expr.right, ctx)
    if isinstance(expr, cst.Subscript) and type_head(expr.value, ctx) in ("Optional", "Union"):
        return any(_opaque(a, ctx) for a in slice_values(expr))
    if isinstance(expr, (cst.Name, cst.Attribute)):
        return (dotted(expr) or "").rsplit(".", 1)[-1] in OPAQUE_VALUE_TYPES
    return False


def _union_shape(args: Iterable[cst.BaseExpression], ctx: Context, depth: int, free_form: bool = False) -> Shape | None:
    """The union's first uncapped collection (a typed one before a free-form mapping), else its first capped one."""
    found = loose = None
    for arg in args:
        shape = annotation_shape(arg, ctx, depth + 1, free_form)
        if shape is None:
            continue
        if shape.limit is None and not shape.free_form:
            return shape
        if shape.limit is None:
            loose = loose or shape  # `Mapping[str, object] | Sequence[object]`: the sequence decides
        found = found or shape
    return loose or found


def _alias_shape(name: cst.Name, ctx: Context, depth: int, free_form: bool = False) -> Shape | None:
    """A same-module type alias: ``Ids = list[str]`` or ``Ids = Annotated[list[str], Field(max_length=9)]``."""
    values = ctx.index.constants.get(name.value)
    if values and len(values) == 1 and values[0] is not None:
        value = values[0]
        if isinstance(value, cst.Call) and short_name(value.func, ctx) == "TypeAliasType" and len(value.args) >= 2:
            value = value.args[1].value
        if isinstance(value, (cst.Subscript, cst.Name, cst.Attribute, cst.BinaryOperation, cst.Call)):
            shape = annotation_shape(value, ctx, depth + 1, free_form)
            return replace(shape, text=name.value) if shape is not None else None
        return None
    alias = _type_statements(ctx).get(name.value)
    if alias is not None:
        shape = annotation_shape(alias, ctx, depth + 1, free_form)
        return replace(shape, text=name.value) if shape is not None else None
    return None


def expand_alias(expr: cst.BaseExpression, ctx: Context) -> cst.BaseExpression:
    """The value of a same-module type alias *expr* names (``Ids = Annotated[...]``), else *expr*."""
    if isinstance(expr, cst.Name):
        values = ctx.index.constants.get(expr.value)
        if values and len(values) == 1 and isinstance(values[0], cst.Subscript):
            return values[0]
        alias = _type_statements(ctx).get(expr.value)
        if alias is not None:
            return alias
    return expr


def _type_statements(ctx: Context) -> dict[str, cst.BaseExpression]:
    """PEP 695 ``type X = ...`` statements at module level (cached per file in ``ctx.cache``)."""
    cached = ctx.cache.get("models.type_aliases")
    if cached is None:
        cached = {}
        type_alias = getattr(cst, "TypeAlias", None)
        if type_alias is not None:
            for stmt in ctx.module.body:
                if isinstance(stmt, cst.SimpleStatementLine):
                    for small in stmt.body:
                        if isinstance(small, type_alias):
                            cached[small.name.value] = small.value
        ctx.cache["models.type_aliases"] = cached
    return cached  # type: ignore[return-value]


def meta_limit(expr: cst.BaseExpression, ctx: Context) -> str | None:
    """Why an ``Annotated`` metadata item or a field default caps a collection, or None.

    Counts a call with ``max_length`` / ``max_items`` / ``max_size`` (pydantic
    ``Field``, FastAPI ``Query`` / ``Body`` / ``Form``, ``msgspec.Meta``,
    Litestar ``Parameter``), ``annotated_types.MaxLen(N)`` / ``Len(_, N)``, and
    a pydantic ``AfterValidator(f)`` whose same-module function checks ``len``,
    or whose project function (in any module) rejects the value when its
    length or serialised size is too large.
    """
    if not isinstance(expr, cst.Call):
        return None
    head = short_name(expr.func, ctx)
    size = kwarg(expr, *_SIZE_KEYWORDS)
    if _not_none(size):
        return f"`{head}(max_...)`"
    args = positional(expr)
    if head == "MaxLen" and args:
        return "`MaxLen(...)`"
    if head == "Len" and (len(args) >= 2 and _not_none(args[1])):
        return "`Len(..., max)`"
    if head in _LEN_VALIDATOR_WRAPPERS and args and function_checks_len(args[0], ctx):
        return "a validator that checks `len`"
    if head in _LEN_VALIDATOR_WRAPPERS and args and ctx.project and isinstance(args[0], (cst.Name, cst.Attribute)):
        ref = ctx.project_ref(args[0])  # a validator from another module of the project
        if ref is not None and ctx.project.ask("size_checked", ref):
            return "a validator that checks its size"
    return None
