# Look-alike of the repeated-field hazard in spiffe/spire issue #341 ("Check the use of repeated
# fields"), in the fixed shape: the cap is enforced once, for every method, by a server interceptor.
# Not unbounded: serve() installs RepeatedFieldLimitInterceptor (interceptors.py), which aborts
# GetFeatures when entity_ids exceeds 500 before this loop runs.
"""Feature service (sync gRPC)."""
from __future__ import annotations

from concurrent import futures

import grpc

from . import features_pb2 as pb
from . import features_pb2_grpc as pb_grpc
from .interceptors import RepeatedFieldLimitInterceptor


class FeatureServicer(pb_grpc.FeatureServiceServicer):
    def __init__(self, redis) -> None:
        self._redis = redis

    def GetFeatures(self, request: pb.GetFeaturesRequest, context: grpc.ServicerContext) -> pb.GetFeaturesResponse:
        rows = []
        for entity_id in request.entity_ids:
            values = self._redis.hmget(f"fs:{request.entity_type}:{entity_id}", list(request.features))
            rows.append(pb.FeatureRow(entity_id=entity_id, values=[v or b"" for v in values]))
        return pb.GetFeaturesResponse(rows=rows)


def serve(redis, port: int = 50051) -> grpc.Server:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), interceptors=[RepeatedFieldLimitInterceptor()])
    pb_grpc.add_FeatureServiceServicer_to_server(FeatureServicer(redis), server)
    server.add_insecure_port(f"[::]:{port}")
    server.start()
    return server
