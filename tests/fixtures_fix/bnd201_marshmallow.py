"""BND201 fix, marshmallow: `validate.Length(max=N)` added to the field's validators."""
from marshmallow import Schema, fields, validate


def _no_blank(value):
    return all(value)


class BulkImportSchema(Schema):
    source = fields.Str(validate=validate.Length(max=32))
    lines = fields.List(fields.Str(), required=True)  # error: BND201 col 5
    extra = fields.Dict()  # error: BND201 col 5
    children = fields.List(fields.Str(), validate=_no_blank)  # error: BND201 col 5
    refs = fields.List(fields.Str(), validate=[_no_blank])  # error: BND201 col 5


def load_import(payload):
    return BulkImportSchema().load(payload)
