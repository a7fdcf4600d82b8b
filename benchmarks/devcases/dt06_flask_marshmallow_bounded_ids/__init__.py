# Bounded: see schemas.py; profile_ids is built by id_list(MAX_BULK_DELETE) in fields.py,
# which adds validate.Length(min=1, max=max_items): more than 200 ids is a 422.
"""Profile store: bulk delete by ids, capped (trap dt06)."""
