"""Checks every reported GPU against the driver compatibility matrix."""
import asyncpg
from litestar.datastructures import State

from .models import DiagnosticReport

COMPAT_SQL = "SELECT min_driver, cuda_max, notes FROM gpu_compat WHERE model = $1"


class Advisor:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def assess(self, report: DiagnosticReport) -> list[dict]:
        findings = []
        async with self._pool.acquire() as conn:
            for gpu in report.gpus:
                row = await conn.fetchrow(COMPAT_SQL, gpu.name)
                if row is not None and gpu.driver < row["min_driver"]:
                    findings.append({"gpu": gpu.name, "upgrade_to": row["min_driver"], "notes": row["notes"]})
        return findings


async def provide_advisor(state: State) -> Advisor:
    return Advisor(state.pool)
