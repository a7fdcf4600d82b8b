"""Models: which classes are data models (pydantic, msgspec, attrs, dataclass, marshmallow, DRF, TypedDict)."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Iterator

import libcst as cst

from boundlint.analysis.context import Context
from boundlint.analysis.models.syntax import full_name, iter_nodes, matches_any

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
_DRF_ROOTS = ("rest_framework.", "adrf.")


@dataclass(eq=False)
class Model:
    """A class recognised as a data model: ``kind`` is pydantic, msgspec, attrs, dataclass, marshmallow, drf or typeddict."""

    name: str
    node: cst.ClassDef
    kind: str
    bases: tuple[str, ...] = ()  # same-module model base names


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
