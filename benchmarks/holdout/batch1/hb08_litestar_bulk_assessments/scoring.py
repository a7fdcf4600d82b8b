"""Calls the model server and stores the result."""
from __future__ import annotations

import httpx

from .schemas import AssessmentIn, AssessmentOut


class ScoringService:
    def __init__(self, http: httpx.AsyncClient, db) -> None:
        self._http = http
        self._db = db

    async def score(self, model_version: str, record: AssessmentIn) -> AssessmentOut:
        response = await self._http.post(
            f"/v1/models/risk-{model_version}:predict",
            json={"instances": [{"age": record.age, "sbp": record.systolic_bp, "notes": record.notes}]},
        )
        response.raise_for_status()
        risk = float(response.json()["predictions"][0])
        label = "high" if risk >= 0.7 else "medium" if risk >= 0.3 else "low"
        await self._db.execute(
            "INSERT INTO assessments (patient_id, model, risk, label) VALUES ($1, $2, $3, $4)",
            record.patient_id, model_version, risk, label,
        )
        return AssessmentOut(patient_id=record.patient_id, risk=risk, label=label)
