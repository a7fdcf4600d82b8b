# Look-alike of mikesvoboda/nemotron-v3-home-security-intelligence issue #1031 ("Add concurrency
# limit to asyncio.gather health checks"). Not a fan-out hazard: the gather width is the number of
# configured dependencies (settings.DEPENDENCIES, five entries fixed at deployment), not anything a
# request or the data can grow.
"""System health route (Starlette)."""
from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from .probes import probe
from .settings import DEPENDENCIES


async def system_health(request: Request) -> JSONResponse:
    http = request.app.state.http
    results = await asyncio.gather(*(probe(http, dep) for dep in DEPENDENCIES))
    ok = all(r["healthy"] for r in results if r["critical"])
    return JSONResponse({"status": "ok" if ok else "degraded", "services": results}, status_code=200 if ok else 503)


routes = [Route("/api/system/health", system_health)]
