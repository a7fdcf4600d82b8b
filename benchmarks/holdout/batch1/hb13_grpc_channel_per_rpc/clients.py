"""Client for the downstream inventory service."""
from __future__ import annotations

import grpc

from . import inventory_pb2 as inv_pb
from . import inventory_pb2_grpc as inv_grpc

CHANNEL_OPTIONS = [("grpc.keepalive_time_ms", 30_000), ("grpc.enable_retries", 1)]


class InventoryClient:
    def __init__(self, target: str, timeout_s: float = 2.0) -> None:
        self._target = target
        self._timeout_s = timeout_s

    def reserve(self, order_id: str, sku: str, quantity: int) -> bool:
        with grpc.insecure_channel(self._target, options=CHANNEL_OPTIONS) as channel:  # expect: CONN-PER-ITEM
            stub = inv_grpc.InventoryStub(channel)
            reply = stub.Reserve(
                inv_pb.ReserveRequest(order_id=order_id, sku=sku, quantity=quantity), timeout=self._timeout_s
            )
        return reply.reserved
