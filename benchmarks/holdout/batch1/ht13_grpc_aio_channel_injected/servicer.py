# Look-alike of the channel-per-call pattern the gRPC performance guide warns about, in its fixed
# form. Not churn: PlaceOrder calls reserve() per line, but InventoryClient (clients.py) only holds
# a stub on a channel that serve() (server.py) dials once at start-up. Lines are capped at 50.
"""Checkout servicer (grpc.aio)."""
from __future__ import annotations

import grpc

from . import checkout_pb2 as pb
from . import checkout_pb2_grpc as pb_grpc
from .clients import InventoryClient

MAX_LINES = 50


class CheckoutServicer(pb_grpc.CheckoutServicer):
    def __init__(self, inventory: InventoryClient, orders) -> None:
        self._inventory = inventory
        self._orders = orders

    async def PlaceOrder(self, request: pb.PlaceOrderRequest, context: grpc.aio.ServicerContext) -> pb.PlaceOrderReply:
        if len(request.lines) > MAX_LINES:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"at most {MAX_LINES} lines per order")
        order_id = await self._orders.create(request.customer_id)
        for line in request.lines:
            if not await self._inventory.reserve(order_id, line.sku, line.quantity):
                await self._orders.cancel(order_id)
                await context.abort(grpc.StatusCode.FAILED_PRECONDITION, f"{line.sku} is out of stock")
        await self._orders.confirm(order_id)
        return pb.PlaceOrderReply(order_id=order_id)
