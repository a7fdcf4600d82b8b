# Rebuilt from gopaljilab/Clinical-Insight-Engine issue "Denial of Service via Unbounded Array in
# Bulk ML Processing Endpoint": POST /api/assessments/bulk validated each record but put no maximum
# on the array. Hazard: BulkAssessmentIn.records (schemas.py) has no max_length, and every record
# costs a model-server call plus an INSERT (scoring.py).
"""Assessment controller."""
from __future__ import annotations

from litestar import Controller, post

from .schemas import AssessmentOut, BulkAssessmentIn
from .scoring import ScoringService


class AssessmentController(Controller):
    path = "/api/assessments"

    @post("/bulk")
    async def bulk(self, data: BulkAssessmentIn, scoring: ScoringService) -> list[AssessmentOut]:
        results = []
        for record in data.records:
            results.append(await scoring.score(data.model_version, record))
        return results
