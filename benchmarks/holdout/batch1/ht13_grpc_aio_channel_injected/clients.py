"""Client for the downstream inventory service."""
from __future__ import annotations

import grpc

from . import inventory_pb2 as inv_pb
from . import inventory_pb2_grpc as inv_grpc

CHANNEL_OPTIONS = [("grpc.keepalive_time_ms", 30_000), ("grpc.enable_retries", 1)]


def make_channel(target: str) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS)


class InventoryClient:
    def __init__(self, channel: grpc.aio.Channel, timeout_s: float = 2.0) -> None:
        self._stub = inv_grpc.InventoryStub(channel)
        self._timeout_s = timeout_s

    async def reserve(self, order_id: str, sku: str, quantity: int) -> bool:
        reply = await self._stub.Reserve(
            inv_pb.ReserveRequest(order_id=order_id, sku=sku, quantity=quantity), timeout=self._timeout_s
        )
        return reply.reserved
