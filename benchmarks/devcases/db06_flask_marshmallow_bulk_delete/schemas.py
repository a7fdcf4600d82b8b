# Incident: ReflexioAI/reflexio #296 (SEC-007) - delete-by-ids request lists (profile_ids, ...)
# had min_length=1 but no max, so one request carried an unbounded batch.
# Hazard: profile_ids below only has a minimum; views.py feeds it to service.delete_profiles,
# which runs a DELETE and a search-index call per id.
"""Request schemas."""
from marshmallow import Schema, fields, validate


class DeleteProfilesSchema(Schema):
    profile_ids = fields.List(fields.String(validate=validate.Length(max=64)), required=True, validate=validate.Length(min=1))  # expect: REQUEST-SHAPE
    reason = fields.String(load_default="user_request", validate=validate.Length(max=200))
