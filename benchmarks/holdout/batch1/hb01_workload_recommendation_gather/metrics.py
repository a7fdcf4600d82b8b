"""Per-workload usage history from Prometheus."""
from __future__ import annotations

import httpx

from .k8s import Workload

CPU_QUERY = (
    'quantile_over_time(0.95, rate(container_cpu_usage_seconds_total{{namespace="{ns}",pod=~"{name}-.*"}}[5m])[14d:5m])'
)
MEM_QUERY = 'max_over_time(container_memory_working_set_bytes{{namespace="{ns}",pod=~"{name}-.*"}}[14d])'


class PrometheusMetrics:
    def __init__(self, http: httpx.AsyncClient) -> None:
        self._http = http

    async def _query(self, expr: str) -> list[dict]:
        response = await self._http.get("/api/v1/query", params={"query": expr}, timeout=60.0)
        response.raise_for_status()
        return response.json()["data"]["result"]

    async def usage(self, workload: Workload) -> dict[str, float]:
        cpu = await self._query(CPU_QUERY.format(ns=workload.namespace, name=workload.name))
        mem = await self._query(MEM_QUERY.format(ns=workload.namespace, name=workload.name))
        return {
            "cpu": max((float(s["value"][1]) for s in cpu), default=0.0),
            "memory": max((float(s["value"][1]) for s in mem), default=0.0),
        }
