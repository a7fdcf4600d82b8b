# Rebuilt from the batch-query endpoint of an open vulnerability database (google/osv.dev,
# QueryAffectedBatch) before its 1000-query cap, and spiffe/spire "Check the use of repeated
# fields": a repeated field is a list with no bound. Hazard: request.queries is iterated with no
# length check, and each query runs a datastore query plus a get_multi (store.py).
"""gRPC (asyncio) servicer for the vulnerability API."""
from __future__ import annotations

import asyncio

import grpc

from . import osv_service_pb2 as pb
from . import osv_service_pb2_grpc as pb_grpc
from .store import VulnStore


class OSVServicer(pb_grpc.OSVServicer):
    def __init__(self, store: VulnStore) -> None:
        self._store = store

    async def QueryAffectedBatch(
        self, request: pb.BatchQuery, context: grpc.aio.ServicerContext
    ) -> pb.BatchVulnerabilityList:
        results = []
        for query in request.queries:  # expect: REQUEST-SHAPE
            if not query.package.name or not query.version:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "package and version are required")
            ids = await asyncio.to_thread(
                self._store.affected, query.package.ecosystem, query.package.name, query.version
            )
            results.append(pb.VulnerabilityList(vulns=[pb.Vulnerability(id=i) for i in ids]))
        return pb.BatchVulnerabilityList(results=results)
