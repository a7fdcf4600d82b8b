"""BND201 fix, marshmallow: `validate` imported once, into the existing `from marshmallow import`."""
from marshmallow import Schema, fields


class TagsSchema(Schema):
    tags = fields.List(fields.Str())  # error: BND201 col 5
    owners = fields.List(fields.Str())  # error: BND201 col 5


def load_tags(payload):
    return TagsSchema().load(payload)
