# Look-alike of gopaljilab/Clinical-Insight-Engine issue #1075 in its fixed form (".max(50)" on the
# bulk array). Not unbounded: BulkAssessmentIn.records (schemas.py) uses the BoundedRecords alias
# from constraints.py, so msgspec rejects more than 100 records before the handler runs.
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
