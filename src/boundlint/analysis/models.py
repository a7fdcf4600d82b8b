"""Recognising request contracts: data models, their collection fields, and web endpoints.

Shared by the request-shape rules (BND2xx).  Everything here reads the CST
of one module; nothing is imported or executed.

- ``annotation_shape(expr, ctx)``: is a type annotation a collection, and does
  it carry a maximum size (``Field(max_length=N)``, ``conlist(..., max_items=N)``,
  ``MaxLen(N)``, ``msgspec.Meta(max_length=N)``, a fixed-length tuple)?
- ``model_kind(cls, ctx, ...)``: is a class a pydantic / msgspec / attrs /
  dataclass / marshmallow / TypedDict model?
- ``collection_fields(model, ctx)``: its collection fields, each with the limit
  that bounds it (from the type, the field's default, a validator, a
  ``__post_init__`` length check) or None.
"""
from __future__ import annotations

import fnmatch
import sys
from dataclasses import dataclass, replace
from typing import Iterable, Iterator

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.analysis.names import dotted

# typing / builtin names of variable-size collections (canonical short names).
COLLECTION_TYPES = frozenset({
    "list", "List", "set", "Set", "frozenset", "FrozenSet", "dict", "Dict", "Sequence", "MutableSequence",
    "Iterable", "Collection", "Mapping", "MutableMapping", "AbstractSet", "MutableSet", "Deque", "deque",
    "DefaultDict", "defaultdict", "OrderedDict", "Counter",
})
_TYPING_MODULES = ("typing.", "collections.", "builtins.")
SET_TYPES = frozenset({"set", "Set", "frozenset", "FrozenSet", "AbstractSet", "MutableSet"})
_ENUM_BASES = frozenset({"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum"})
MAPPING_TYPES = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict", "Counter"})
# Value types of a free-form JSON object (``dict[str, Any]``): such fields are not judged.
OPAQUE_VALUE_TYPES = frozenset({"Any", "object", "JsonValue", "Json", "JSON", "JSONValue", "JsonType", "JSONType"})
_CON_COLLECTIONS = frozenset({"conlist", "conset", "confrozenset"})
_SIZE_KEYWORDS = frozenset({"max_length", "max_items", "max_size"})
_LEN_VALIDATOR_WRAPPERS = frozenset({"AfterValidator", "BeforeValidator", "WrapValidator", "PlainValidator"})

PYDANTIC_BASES = frozenset({
    "pydantic.BaseModel", "pydantic.main.BaseModel", "pydantic.RootModel", "pydantic.root_model.RootModel",
    "pydantic.generics.GenericModel", "sqlmodel.SQLModel", "ninja.Schema", "ninja.schema.Schema",
    "ninja.FilterSchema", "beanie.Document",
})
MSGSPEC_BASES = frozenset({"msgspec.Struct"})
TYPEDDICT_BASES = frozenset({"typing.TypedDict", "mypy_extensions.TypedDict"})
DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
ATTRS_DECORATORS = frozenset({
    "attr.s", "attr.attrs", "attr.define", "attr.frozen", "attr.mutable", "attr.dataclass",
    "attrs.define", "attrs.frozen", "attrs.mutable",
})
_MARSHMALLOW_ROOTS = ("marshmallow", "flask_marshmallow", "marshmallow_sqlalchemy", "marshmallow_dataclass")
_MARSHMALLOW_COLLECTION_FIELDS = frozenset({"List", "Dict", "Mapping", "Nested", "Pluck"})
_DRF_ROOTS = ("rest_framework.", "adrf.")

@dataclass(frozen=True)
class Shape:
    """A collection type: ``text`` as written (for messages), ``limit`` why it is bounded, or None."""

    text: str
    limit: str | None = None
    inherent: bool = False  # the limit follows from the item type, nobody wrote it


@dataclass(eq=False)
class Model:
    """A class recognised as a data model: ``kind`` is pydantic, msgspec, attrs, dataclass, marshmallow, drf or typeddict."""

    name: str
    node: cst.ClassDef
    kind: str
    bases: tuple[str, ...] = ()  # same-module model base names


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


def _text(node: cst.CSTNode, limit: int = 60) -> str:
    code = " ".join(cst.Module(body=[]).code_for_node(node).split())
    return code if len(code) <= limit else code[: limit - 3] + "..."


def option_list(ctx: Context, name: str, default: Iterable[str]) -> tuple[str, ...]:
    """A list-valued setting: a sequence or a comma-separated string; *default* when unset."""
    value = ctx.settings.option(name, None)
    if value is None:
        return tuple(default)
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return tuple(str(v) for v in value)  # type: ignore[union-attr]


def matches_any(name: str, patterns: Iterable[str]) -> bool:
    """True when *name* matches one of the glob *patterns* (``*Request``), case-sensitively."""
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def full_name(expr: cst.BaseExpression, ctx: Context) -> str:
    """Canonical qualified name when imported, else the dotted text, else ``""``."""
    return ctx.qualname(expr) or dotted(expr) or ""


def short_name(expr: cst.BaseExpression, ctx: Context) -> str:
    """Last component of :func:`full_name`."""
    return full_name(expr, ctx).rsplit(".", 1)[-1]


def kwarg(call: cst.Call, *names: str) -> cst.BaseExpression | None:
    """The value of the first keyword argument among *names*, or None."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value in names:
            return a.value
    return None


def positional(call: cst.Call) -> list[cst.BaseExpression]:
    """Positional argument values of *call*, without starred ones."""
    return [a.value for a in call.args if a.keyword is None and a.star == ""]


def _not_none(expr: cst.BaseExpression | None) -> bool:
    return expr is not None and not (isinstance(expr, cst.Name) and expr.value == "None")


# -- collection types ------------------------------------------------------------

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


def annotation_shape(expr: cst.BaseExpression | None, ctx: Context, depth: int = 0) -> Shape | None:
    """The collection *expr* annotates and its limit, or None when it is not a variable-size collection.

    Looks through ``Optional[...]``, ``Union[...]``, ``X | None``, ``Annotated[...]``,
    string annotations and same-module type aliases.  ``Annotated`` metadata
    with a maximum (``Field(max_length=N)``, ``MaxLen(N)``, ``Len(_, N)``,
    ``msgspec.Meta(max_length=N)``, a validator that checks ``len``) bounds it.
    """
    if expr is None or depth > 8:
        return None
    if isinstance(expr, cst.SimpleString):
        try:
            inner = cst.parse_expression(expr.evaluated_value)  # a forward reference
        except Exception:
            return None
        return annotation_shape(inner, ctx, depth + 1)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
        return _union_shape((expr.left, expr.right), ctx, depth)
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
            return _union_shape(args, ctx, depth)
        if head == "Annotated":
            inner = annotation_shape(args[0], ctx, depth + 1)
            if inner is None or inner.limit is not None:
                return inner
            for meta in args[1:]:
                found = meta_limit(meta, ctx)
                if found:
                    return Shape(_text(expr), found)
            return Shape(_text(expr), None)
        if head in ("tuple", "Tuple"):
            if len(args) == 2 and isinstance(args[1], cst.Ellipsis):
                return Shape(_text(expr), None)
            # a fixed-length tuple holds exactly its listed items, but each may be a collection of its own
            return _first_unbounded(args, expr, ctx, depth)
        if head in MAPPING_TYPES and (len(args) < 2 or _opaque(args[-1], ctx)):
            return None  # a free-form JSON object: passed along, not iterated item by item
        if (head in MAPPING_TYPES or head in SET_TYPES) and finite_type(args[0], ctx):
            # {Tier: str}, set[Literal["a", "b"]]: distinct keys from a closed set, unless each value is a collection
            values = _first_unbounded(args[1:], expr, ctx, depth) if head in MAPPING_TYPES else None
            return values or Shape(_text(expr), "keys from a finite type (`Literal`, `bool`, an enum)", inherent=True)
        if head in COLLECTION_TYPES:
            return Shape(_text(expr), None)
        if head in ("Required", "NotRequired", "ReadOnly", "Final"):
            return annotation_shape(args[0], ctx, depth + 1)
        return None
    if isinstance(expr, (cst.Name, cst.Attribute)):
        head = type_head(expr, ctx)
        if head in MAPPING_TYPES:
            return None  # a bare dict: a free-form JSON object
        if head in COLLECTION_TYPES or head in ("tuple", "Tuple"):
            return Shape(_text(expr), None)
        if isinstance(expr, cst.Name):
            return _alias_shape(expr, ctx, depth)
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
    """True when *expr* has a closed set of values: ``Literal[...]``, ``bool``, a same-module enum, or a union of them.

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
        cls = ctx.index.classes.get(expr.value)
        if cls is not None:
            return any(short_name(b.value, ctx) in _ENUM_BASES for b in cls.bases)
        value = expand_alias(expr, ctx)
        return value is not expr and finite_type(value, ctx, depth + 1)
    return False


def _opaque(expr: cst.BaseExpression, ctx: Context) -> bool:
    """True for a JSON-ish value type: ``Any``, ``object``, ``JsonValue``, or a union holding one."""
    if isinstance(expr, cst.BinaryOperation):
        return _opaque(expr.left, ctx) or _opaque(expr.right, ctx)
    if isinstance(expr, cst.Subscript) and type_head(expr.value, ctx) in ("Optional", "Union"):
        return any(_opaque(a, ctx) for a in slice_values(expr))
    if isinstance(expr, (cst.Name, cst.Attribute)):
        return (dotted(expr) or "").rsplit(".", 1)[-1] in OPAQUE_VALUE_TYPES
    return False


def _union_shape(args: Iterable[cst.BaseExpression], ctx: Context, depth: int) -> Shape | None:
    found = None
    for arg in args:
        shape = annotation_shape(arg, ctx, depth + 1)
        if shape is None:
            continue
        if shape.limit is None:
            return shape
        found = found or shape
    return found


def _alias_shape(name: cst.Name, ctx: Context, depth: int) -> Shape | None:
    """A same-module type alias: ``Ids = list[str]`` or ``Ids = Annotated[list[str], Field(max_length=9)]``."""
    values = ctx.index.constants.get(name.value)
    if values and len(values) == 1 and values[0] is not None:
        value = values[0]
        if isinstance(value, cst.Call) and short_name(value.func, ctx) == "TypeAliasType" and len(value.args) >= 2:
            value = value.args[1].value
        if isinstance(value, (cst.Subscript, cst.Name, cst.Attribute, cst.BinaryOperation, cst.Call)):
            shape = annotation_shape(value, ctx, depth + 1)
            return replace(shape, text=name.value) if shape is not None else None
        return None
    alias = _type_statements(ctx).get(name.value)
    if alias is not None:
        shape = annotation_shape(alias, ctx, depth + 1)
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
    a pydantic ``AfterValidator(f)`` whose same-module function checks ``len``.
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
    return None


# -- length checks in code -----------------------------------------------------------

def iter_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node under *node* (nested defs included; they are small validator bodies)."""
    return limits.iter_nodes(node, into_defs=True)


def _is_len_call(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1


def len_checks(body: cst.CSTNode) -> list[cst.BaseExpression]:
    """Arguments of ``len(x)`` calls that *body* caps from above.

    A test that raises when true caps ``x`` when ``len(x)`` is on its larger
    side (``if len(v) > N: raise``, ``if N < len(v): raise``); an allowing
    test (``assert``, ``return``, an ``if`` that does not raise, a negated
    raising test) caps it when ``len(x)`` is on its smaller side
    (``assert len(v) <= N``).  A minimum or non-empty check
    (``if len(v) < 1: raise``, ``== 0``), a duplicate check
    (``len(v) > len(set(v))``) and a pairing check (``len(a) != len(b)``)
    cap nothing.
    """
    out: list[cst.BaseExpression] = []
    for node in iter_nodes(body):
        if isinstance(node, cst.If):
            out.extend(_capped_lens(node.test, _raises(node.body)))
        elif isinstance(node, cst.Assert):
            out.extend(_capped_lens(node.test, False))
        elif isinstance(node, cst.Return) and node.value is not None:
            out.extend(_capped_lens(node.value, False))
    return out


def _raises(body: cst.BaseSuite) -> bool:
    """True when a block raises among its own statements."""
    smalls = body.body if isinstance(body, cst.SimpleStatementSuite) else [
        small for stmt in body.body if isinstance(stmt, cst.SimpleStatementLine) for small in stmt.body]
    return any(isinstance(small, cst.Raise) for small in smalls)


def _capped_lens(test: cst.BaseExpression, rejecting: bool) -> list[cst.BaseExpression]:
    """``len(x)`` arguments *test* bounds from above; *rejecting* when the test being true is refused."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _capped_lens(test.expression, not rejecting)
    if isinstance(test, cst.BooleanOperation):
        return _capped_lens(test.left, rejecting) + _capped_lens(test.right, rejecting)
    if not isinstance(test, cst.Comparison):
        return []
    out = []
    left = test.left
    for comp in test.comparisons:
        right = comp.comparator
        if isinstance(comp.operator, (cst.GreaterThan, cst.GreaterThanEqual)):
            larger, smaller = left, right
        elif isinstance(comp.operator, (cst.LessThan, cst.LessThanEqual)):
            larger, smaller = right, left
        else:
            larger = smaller = None
        if larger is not None and not (_is_len_call(larger) and _is_len_call(smaller)):
            capped = larger if rejecting else smaller
            if _is_len_call(capped):
                out.append(capped.args[0].value)
        left = right
    return out


def _mentioned_names(expr: cst.BaseExpression) -> set[str]:
    """Field names an expression refers to: ``self.items`` / ``values["items"]`` / ``data.get("items")``."""
    out: set[str] = set()
    for node in iter_nodes(expr):
        if isinstance(node, cst.Attribute):
            out.add(node.attr.value)
        elif isinstance(node, cst.Name):
            out.add(node.value)
        elif isinstance(node, cst.SimpleString):
            try:
                value = node.evaluated_value
            except Exception:
                continue
            if isinstance(value, str):
                out.add(value)
    return out


def function_checks_len(func: cst.BaseExpression, ctx: Context) -> bool:
    """True when *func* names a same-module function (or is a lambda) whose body compares a ``len``."""
    if isinstance(func, cst.Lambda):
        return bool(_capped_lens(func.body, False))  # lambda v: len(v) <= 10
    target = None
    if isinstance(func, cst.Name):
        target = ctx.index.functions.get(func.value)
        if target is None:
            for methods in ctx.index.methods.values():
                if func.value in methods:
                    target = methods[func.value]
                    break
    elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
        target = ctx.index.methods.get(func.value.value, {}).get(func.attr.value)
    return isinstance(target, cst.FunctionDef) and bool(len_checks(target.body))


# -- models --------------------------------------------------------------------------

_MODEL_BASE_SUFFIXES = ("Model", "ModelBase", "Base", "Schema", "Struct")


def _project_model_base(name: str, patterns: tuple[str, ...]) -> bool:
    """An imported base that reads as a project's own model base (``LiteLLMBaseModel``, ``ActionBaseModel``)."""
    root = name.split(".", 1)[0]
    if root in sys.stdlib_module_names or root in _NOT_MODEL_ROOTS:
        return False
    last = name.rsplit(".", 1)[-1]
    return last.endswith(_MODEL_BASE_SUFFIXES) or "Pydantic" in last or matches_any(last, patterns)


_NOT_MODEL_ROOTS = frozenset({
    "typing_extensions", "django", "starlette", "fastapi", "aiohttp", "httpx", "requests", "click", "sqlalchemy",
    "celery", "kombu", "sanic", "flask", "werkzeug", "grpc", "google", "abc", "enum",
})


def _table_model(cls: cst.ClassDef) -> bool:
    """A SQLModel table (``class Hero(SQLModel, table=True)``): database storage, not a data contract."""
    return any(arg.keyword is not None and arg.keyword.value == "table" and isinstance(arg.value, cst.Name)
               and arg.value.value == "True" for arg in cls.keywords)


def model_kind(cls: cst.ClassDef, ctx: Context, extra_bases: tuple[str, ...] = (), seen: frozenset[str] = frozenset(),
               infer: tuple[str, ...] | None = None) -> tuple[str, tuple[str, ...]] | None:
    """``(kind, same-module model bases)`` when *cls* is a data model, else None.

    With *infer* (the request-model patterns, given when the module imports
    pydantic), a base imported from the project whose name reads as a model
    base (``*Model``, ``*Base``, ``*Schema``, or a request-model name) counts
    as a pydantic model.
    """
    if _table_model(cls):
        return None
    kind = None
    for deco in cls.decorators:
        d = deco.decorator
        name = full_name(d.func if isinstance(d, cst.Call) else d, ctx)
        if name in DATACLASS_DECORATORS or name == "dataclass":
            kind = "pydantic" if name.startswith("pydantic") else "dataclass"
        elif name in ATTRS_DECORATORS or name in ("attrs", "define", "frozen") and ctx.names.imports_from(("attr", "attrs")):
            kind = "attrs"
    local_bases: list[str] = []
    for arg in cls.bases:
        base = arg.value
        if arg.keyword is not None:
            continue
        if isinstance(base, cst.Subscript):
            base = base.value  # RootModel[list[X]], GenericModel[T]
        name = full_name(base, ctx)
        if not name:
            continue
        if name in PYDANTIC_BASES:
            kind = kind or "pydantic"
        elif name in MSGSPEC_BASES:
            kind = kind or "msgspec"
        elif name in TYPEDDICT_BASES or name.endswith(".TypedDict") or name == "TypedDict":
            kind = kind or "typeddict"
        elif name.startswith(_MARSHMALLOW_ROOTS) or (
                "." in name and ctx.qualname(base) is None and ctx.names.imports_from(_MARSHMALLOW_ROOTS)):
            # marshmallow.Schema, or ma.Schema of a flask_marshmallow.Marshmallow() instance
            if name.rsplit(".", 1)[-1].endswith("Schema"):
                kind = kind or "marshmallow"
        elif name.endswith("Serializer") and (name.startswith(_DRF_ROOTS) or (
                ctx.qualname(base) is not None and ctx.names.imports_from(("rest_framework", "adrf")))):
            # rest_framework.serializers.Serializer / ModelSerializer, adrf, or the project's own
            # serializer base in a module that uses DRF
            kind = kind or "drf"
        elif extra_bases and (name in extra_bases or name.rsplit(".", 1)[-1] in extra_bases):
            kind = kind or "pydantic"
        elif isinstance(base, cst.Name) and base.value in ctx.index.classes:
            if base.value not in seen and base.value != cls.name.value:
                found = model_kind(ctx.index.classes[base.value], ctx, extra_bases, seen | {cls.name.value}, infer)
                if found is not None:
                    kind = kind or found[0]
                    local_bases.append(base.value)
        elif infer is not None and ctx.qualname(base) is not None and _project_model_base(name, infer):
            kind = kind or "pydantic"
    if kind is None:
        return None
    return kind, tuple(local_bases)


def could_be_model(cls: cst.ClassDef) -> bool:
    """Cheap pre-check: a model has a base class or a decorator."""
    return bool(cls.bases) or bool(cls.decorators)


def class_statements(cls: cst.ClassDef) -> Iterator[cst.BaseSmallStatement | cst.BaseCompoundStatement]:
    """The small statements and compound statements directly in a class body."""
    body = cls.body
    if not isinstance(body, cst.IndentedBlock):
        yield from body.body
        return
    for stmt in body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        else:
            yield stmt


def _is_classvar(annotation: cst.BaseExpression, ctx: Context) -> bool:
    node = annotation.value if isinstance(annotation, cst.Subscript) else annotation
    return type_head(node, ctx) in ("ClassVar", "Final")


def type_refs(expr: cst.BaseExpression | None) -> tuple[str, ...]:
    """Bare names a type expression mentions (candidate nested models)."""
    if expr is None:
        return ()
    if isinstance(expr, cst.SimpleString):
        try:
            expr = cst.parse_expression(expr.evaluated_value)
        except Exception:
            return ()
    return tuple(n.value for n in iter_nodes(expr) if isinstance(n, cst.Name))


def _decorator_names(func: cst.FunctionDef, ctx: Context) -> list[tuple[str, cst.BaseExpression]]:
    out = []
    for deco in func.decorators:
        d = deco.decorator
        out.append((short_name(d.func if isinstance(d, cst.Call) else d, ctx), d))
    return out


def _string_args(call: cst.BaseExpression) -> list[str]:
    if not isinstance(call, cst.Call):
        return []
    out = []
    for a in call.args:
        if a.keyword is None and isinstance(a.value, cst.SimpleString):
            try:
                value = a.value.evaluated_value
            except Exception:
                continue
            if isinstance(value, str):
                out.append(value)
    return out


def model_len_checks(model_nodes: Iterable[cst.ClassDef], field_names: set[str], ctx: Context) -> set[str]:
    """Names of fields a model's own code caps with a ``len`` check.

    Counts pydantic ``@field_validator("f")`` / ``@validator("f")`` (not
    ``each_item=True``) and marshmallow ``@validates("f")`` bodies that compare
    a ``len``; ``@model_validator`` / ``@root_validator`` / ``@validates_schema``
    / ``__post_init__`` / ``__attrs_post_init__`` bodies that compare
    ``len`` of the field; attrs ``@f.validator`` methods that compare a ``len``.
    """
    checked: set[str] = set()
    for cls in model_nodes:
        for stmt in class_statements(cls):
            if not isinstance(stmt, cst.FunctionDef):
                continue
            checks = None
            if stmt.name.value.startswith("validate_") and stmt.name.value[9:] in field_names:
                if len_checks(stmt.body):  # DRF: validate_<field>(self, value)
                    checked.add(stmt.name.value[9:])
            if stmt.name.value == "validate":  # DRF: validate(self, attrs) checks len(attrs["f"])
                for arg in len_checks(stmt.body):
                    checked |= _mentioned_names(arg) & field_names
            if stmt.name.value in ("__post_init__", "__attrs_post_init__", "__init__"):
                checks = len_checks(stmt.body)
                for arg in checks:
                    checked |= _mentioned_names(arg) & field_names
                continue
            for name, deco in _decorator_names(stmt, ctx):
                if name == "validator" and isinstance(deco, cst.Attribute) and isinstance(deco.value, cst.Name):
                    # attrs: @items.validator
                    if checks is None:
                        checks = len_checks(stmt.body)
                    if checks and deco.value.value in field_names:
                        checked.add(deco.value.value)
                elif name in ("field_validator", "validator", "validates"):
                    if isinstance(deco, cst.Call) and kwarg(deco, "each_item") is not None:
                        each = kwarg(deco, "each_item")
                        if isinstance(each, cst.Name) and each.value == "True":
                            continue
                    if checks is None:
                        checks = len_checks(stmt.body)
                    if checks:
                        names = _string_args(deco)
                        checked |= field_names if "*" in names else set(names) & field_names
                elif name in ("model_validator", "root_validator", "validates_schema", "pre_load", "post_load"):
                    if checks is None:
                        checks = len_checks(stmt.body)
                    for arg in checks:
                        checked |= _mentioned_names(arg) & field_names
    return checked


def _validator_limit(expr: cst.BaseExpression | None, ctx: Context) -> str | None:
    """attrs ``validator=`` / marshmallow ``validate=``: ``max_len(N)``, ``Length(max=N)``, a len-checking function."""
    if expr is None:
        return None
    for node in iter_nodes(expr):
        if isinstance(node, cst.Call):
            head = short_name(node.func, ctx)
            if head == "max_len" and (positional(node) or kwarg(node, "max_length")):
                return "`validators.max_len(...)`"
            if head == "Length" and _not_none(kwarg(node, "max")):
                return "`validate.Length(max=...)`"
            if head in ("Length",) and len(positional(node)) >= 2 and _not_none(positional(node)[1]):
                return "`validate.Length(max=...)`"
        elif isinstance(node, (cst.Name, cst.Lambda)) and function_checks_len(node, ctx):
            return "a validator that checks `len`"
    return None


def _attrs_type(call: cst.Call, ctx: Context) -> Shape | None:
    """The collection an untyped ``attr.ib(...)`` holds, from ``type=`` or a list/set/dict factory."""
    typ = kwarg(call, "type")
    if typ is not None:
        return annotation_shape(typ, ctx)
    factory = kwarg(call, "factory")
    default = kwarg(call, "default")
    if isinstance(default, cst.Call) and short_name(default.func, ctx) == "Factory" and default.args:
        factory = default.args[0].value
    if isinstance(factory, cst.Name) and factory.value in ("list", "set", "dict"):
        return Shape(factory.value, None)
    return None


def _marshmallow_shape(call: cst.Call, ctx: Context) -> Shape | None:
    name = full_name(call.func, ctx)
    head = name.rsplit(".", 1)[-1]
    if head not in _MARSHMALLOW_COLLECTION_FIELDS:
        return None
    if not (name.startswith(_MARSHMALLOW_ROOTS) or "fields." in name or name.startswith(("ma.", "fields"))):
        return None
    if head in ("Dict", "Mapping"):
        values = kwarg(call, "values")
        if values is None or (isinstance(values, cst.Call) and short_name(values.func, ctx) == "Raw"):
            return None  # a free-form JSON object
    if head in ("Nested", "Pluck"):
        many = kwarg(call, "many")
        inner = positional(call)[0] if positional(call) else None
        nested_many = isinstance(inner, cst.Call) and isinstance(kwarg(inner, "many"), cst.Name) and kwarg(inner, "many").value == "True"
        if not (isinstance(many, cst.Name) and many.value == "True") and not nested_many:
            return None
    return Shape(_text(call.func) + "(...)", None)


def _drf_shape(call: cst.Call, ctx: Context) -> Shape | None:
    """A Django REST framework serializer field that holds many items, with its limit.

    ``ListField(child=...)`` (``max_length=N`` caps it), ``DictField(child=...)``,
    a nested serializer or related field with ``many=True`` (a nested serializer
    takes ``max_length=N`` since DRF 3.13).  ``MultipleChoiceField`` holds at
    most its choices; ``DictField()`` / ``JSONField()`` without a child are
    free-form objects; ``read_only=True`` fields are not input.
    """
    read_only = kwarg(call, "read_only")
    if isinstance(read_only, cst.Name) and read_only.value == "True":
        return None  # output only: DRF ignores it in input
    head = short_name(call.func, ctx)
    many = kwarg(call, "many")
    if head == "ListField" or (isinstance(many, cst.Name) and many.value == "True"):
        limit = "`max_length=N`" if _not_none(kwarg(call, "max_length")) else None
        return Shape(_text(call.func) + ("(many=True)" if head != "ListField" else "(...)"), limit)
    if head == "DictField" and kwarg(call, "child") is not None:
        return Shape(_text(call.func) + "(...)", None)
    return None


def collection_fields(model: Model, ctx: Context) -> list[CollectionField]:
    """The collection fields *model* declares itself, each with its limit (None when unbounded)."""
    out: list[CollectionField] = []
    cls = model.node
    kind = model.kind
    # RootModel[list[X]]: the root type is in the base.
    for arg in cls.bases:
        if isinstance(arg.value, cst.Subscript) and short_name(arg.value.value, ctx) == "RootModel":
            values = slice_values(arg.value)
            if values:
                shape = annotation_shape(values[0], ctx)
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
            shape = annotation_shape(ann, ctx)
            value = stmt.value
            if shape is None and kind == "attrs" and isinstance(value, cst.Call):
                shape = _attrs_type(value, ctx)
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
                shape = _marshmallow_shape(value, ctx)
                if shape is None:
                    continue
                limit = _validator_limit(kwarg(value, "validate"), ctx)
                refs = type_refs(value)
                out.append(CollectionField(name, stmt, shape, limit, refs))
            elif kind == "drf":
                shape = _drf_shape(value, ctx)
                if shape is None:
                    continue
                limit = shape.limit or _validator_limit(kwarg(value, "validators"), ctx)
                out.append(CollectionField(name, stmt, shape, limit, type_refs(value.func)))
            elif kind == "attrs" and short_name(value.func, ctx) in ("ib", "attrib", "field"):
                shape = _attrs_type(value, ctx)
                if shape is None:
                    continue
                out.append(CollectionField(name, stmt, shape, _validator_limit(kwarg(value, "validator"), ctx), type_refs(kwarg(value, "type"))))
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


# Earlier private spellings, kept for callers outside the rule family (the audit collector).
_slice_values = slice_values
_type_head = type_head
_class_statements = class_statements
