"""One HTTP health probe."""
from __future__ import annotations

import time

import httpx

from .settings import HEALTH_TIMEOUT_S, Dependency


async def probe(http: httpx.AsyncClient, dep: Dependency) -> dict:
    started = time.perf_counter()
    try:
        response = await http.get(dep.url, timeout=HEALTH_TIMEOUT_S)
        healthy = response.status_code == 200
    except httpx.HTTPError:
        healthy = False
    return {"name": dep.name, "healthy": healthy, "critical": dep.critical, "ms": round((time.perf_counter() - started) * 1000)}
