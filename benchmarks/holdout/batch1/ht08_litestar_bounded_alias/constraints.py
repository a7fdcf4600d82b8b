"""Shared size constraints for request bodies."""
from __future__ import annotations

from typing import Annotated, TypeVar

import msgspec

T = TypeVar("T")

MAX_BULK_RECORDS = 100

PatientRef = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
BoundedRecords = Annotated[list[T], msgspec.Meta(min_length=1, max_length=MAX_BULK_RECORDS)]
