"""Request and response bodies of the assessment API (msgspec)."""
from __future__ import annotations

from typing import Annotated

import msgspec

from .constraints import BoundedRecords, PatientRef


class AssessmentIn(msgspec.Struct, forbid_unknown_fields=True):
    patient_id: PatientRef
    age: Annotated[int, msgspec.Meta(ge=0, le=130)]
    systolic_bp: Annotated[int, msgspec.Meta(ge=40, le=300)]
    notes: Annotated[str, msgspec.Meta(max_length=4000)] = ""


class BulkAssessmentIn(msgspec.Struct, forbid_unknown_fields=True):
    model_version: Annotated[str, msgspec.Meta(pattern=r"^v\d+$")]
    records: BoundedRecords[AssessmentIn]


class AssessmentOut(msgspec.Struct):
    patient_id: str
    risk: float
    label: str
