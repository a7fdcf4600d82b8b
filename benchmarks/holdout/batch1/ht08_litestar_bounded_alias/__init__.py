# Bounded: BulkAssessmentIn.records is typed BoundedRecords, an Annotated alias in constraints.py carrying msgspec.Meta(max_length=MAX_BULK_RECORDS=100).
"""Clinical risk scoring: bulk endpoint with a capped batch (trap ht08)."""
