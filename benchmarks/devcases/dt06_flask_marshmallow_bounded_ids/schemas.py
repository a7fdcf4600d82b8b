# Pattern: ReflexioAI/reflexio #296 fix - cardinality caps on delete-by-ids lists.
# Not a hazard: profile_ids comes from id_list() in fields.py, which caps it at 200 items.
"""Request schemas."""
from marshmallow import Schema, fields, validate

from .fields import MAX_BULK_DELETE, id_list


class DeleteProfilesSchema(Schema):
    profile_ids = id_list(MAX_BULK_DELETE)
    reason = fields.String(load_default="user_request", validate=validate.Length(max=200))
