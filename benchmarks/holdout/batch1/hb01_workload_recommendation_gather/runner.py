# Rebuilt from robusta-dev/krr issue "Limit concurrency of asyncio for gather_objects_recommendations":
# with more than 1000 workloads the runner started one coroutine per object, each querying the
# metrics server, exhausting its connection pool and using >20 GB. Hazard: the workload list is
# read at run time from the cluster (k8s.py) and every item runs two Prometheus queries (metrics.py).
"""Computes right-sizing recommendations for every workload in the cluster."""
from __future__ import annotations

import asyncio
import logging

from .k8s import Workload, list_workloads
from .metrics import PrometheusMetrics

log = logging.getLogger(__name__)

HEADROOM = 1.15


class Runner:
    def __init__(self, apps, metrics: PrometheusMetrics) -> None:
        self._apps = apps
        self._metrics = metrics

    async def _recommend(self, workload: Workload) -> dict:
        usage = await self._metrics.usage(workload)
        return {
            "workload": f"{workload.namespace}/{workload.kind}/{workload.name}",
            "cpu_request": round(usage["cpu"] * HEADROOM, 3),
            "memory_request": int(usage["memory"] * HEADROOM),
        }

    async def scan(self) -> list[dict]:
        workloads = await list_workloads(self._apps)
        log.info("scanning %d workloads", len(workloads))
        results = await asyncio.gather(*[self._recommend(w) for w in workloads], return_exceptions=True)  # expect: FANOUT
        return [r for r in results if isinstance(r, dict)]
