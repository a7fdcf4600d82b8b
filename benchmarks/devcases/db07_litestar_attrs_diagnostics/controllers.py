"""Diagnose endpoint."""
from litestar import Controller, post
from litestar.di import Provide

from .advisor import Advisor, provide_advisor
from .models import DiagnosticReport


class DiagnoseController(Controller):
    path = "/api/v1"
    dependencies = {"advisor": Provide(provide_advisor)}

    @post("/diagnose")
    async def diagnose(self, data: DiagnosticReport, advisor: Advisor) -> dict:
        findings = await advisor.assess(data)
        return {"host": data.hostname, "findings": findings}
