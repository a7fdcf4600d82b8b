"""BND201 fix, marshmallow: `validate` imported once, into the existing `from marshmallow import`."""
from marshmallow import Schema, fields, validate


class TagsSchema(Schema):
    tags = fields.List(fields.Str(), validate=validate.Length(max=100))  # error: BND201 col 5
    owners = fields.List(fields.Str(), validate=validate.Length(max=100))  # error: BND201 col 5


def load_tags(payload):
    return TagsSchema().load(payload)
