"""Reusable marshmallow field factories."""
from marshmallow import fields, validate

MAX_BULK_DELETE = 200


def id_list(max_items: int) -> fields.List:
    """A required, non-empty list of short ids with at most ``max_items`` entries."""
    return fields.List(
        fields.String(validate=validate.Length(max=64)),
        required=True,
        validate=validate.Length(min=1, max=max_items),
    )
