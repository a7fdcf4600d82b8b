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

The package splits by concern: ``syntax`` (names and arguments), ``shapes``
(collection annotations and their limits), ``lengths`` (``len`` checks and
validators), ``kinds`` (which classes are models), ``fields`` (each
framework's field declarations).  Import the names from here.
"""
from boundlint.analysis.models.syntax import (
    full_name, iter_nodes, kwarg, matches_any, option_list, positional, short_name,
)
from boundlint.analysis.models.kinds import (
    ATTRS_DECORATORS, DATACLASS_DECORATORS, MSGSPEC_BASES, PYDANTIC_BASES, TYPEDDICT_BASES, Model, class_statements,
    could_be_model, model_kind, type_refs,
)
from boundlint.analysis.models.lengths import function_checks_len, len_checks, model_len_checks
from boundlint.analysis.models.shapes import (
    COLLECTION_TYPES, MAPPING_TYPES, OPAQUE_VALUE_TYPES, SET_TYPES, Shape, annotation_shape, expand_alias,
    finite_type, meta_limit, slice_values, type_head,
)
from boundlint.analysis.models.fields import CollectionField, collection_fields

# Earlier private spellings, kept for callers outside the rule family (the audit collector).
_slice_values = slice_values
_type_head = type_head
_class_statements = class_statements

__all__ = [
    "ATTRS_DECORATORS", "COLLECTION_TYPES", "CollectionField", "DATACLASS_DECORATORS", "MAPPING_TYPES",
    "MSGSPEC_BASES", "Model", "OPAQUE_VALUE_TYPES", "PYDANTIC_BASES", "SET_TYPES", "Shape", "TYPEDDICT_BASES",
    "annotation_shape", "class_statements", "collection_fields", "could_be_model", "expand_alias", "finite_type",
    "full_name", "function_checks_len", "iter_nodes", "kwarg", "len_checks", "matches_any", "meta_limit",
    "model_kind", "model_len_checks", "option_list", "positional", "short_name", "slice_values", "type_head",
    "type_refs",
]
