"""Server bootstrap: one device channel and one pool, shared by every call."""
from concurrent import futures

import grpc
import psycopg_pool

from . import rules_pb2_grpc
from .applier import UpdateApplier
from .device import DeviceClient
from .servicer import RuleServicer


def serve(device_target: str, dsn: str, port: int = 50051) -> None:
    applier = UpdateApplier(DeviceClient(grpc.insecure_channel(device_target)), psycopg_pool.ConnectionPool(dsn, max_size=8))
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    rules_pb2_grpc.add_RuleServiceServicer_to_server(RuleServicer(applier), server)
    server.add_insecure_port(f"[::]:{port}")
    server.start()
    server.wait_for_termination()
