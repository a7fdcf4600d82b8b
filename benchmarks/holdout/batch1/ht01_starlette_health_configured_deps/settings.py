"""Deployment settings: the fixed set of services the backend depends on."""
from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Dependency:
    name: str
    url: str
    critical: bool


DEPENDENCIES: tuple[Dependency, ...] = (
    Dependency("postgres-proxy", os.environ.get("PG_HEALTH_URL", "http://pgbouncer:8080/health"), True),
    Dependency("redis", os.environ.get("REDIS_HEALTH_URL", "http://redis-exporter:9121/health"), True),
    Dependency("detector", os.environ.get("DETECTOR_URL", "http://detector:8090") + "/health", True),
    Dependency("llm", os.environ.get("LLM_URL", "http://llm:8091") + "/health", False),
    Dependency("media", os.environ.get("MEDIA_URL", "http://media:8092") + "/health", False),
)
HEALTH_TIMEOUT_S = 3.0
