# Rebuilt from the pattern the gRPC performance best-practices guide warns about ("always re-use
# stubs and channels when possible"): a Python service dialing its downstream inside each call.
# Hazard: each order line calls reserve() (clients.py), which builds a new channel, i.e. a TCP +
# HTTP/2 (+TLS in production) handshake per line of every order. The line count itself is capped.
"""Checkout servicer."""
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

    def PlaceOrder(self, request: pb.PlaceOrderRequest, context: grpc.ServicerContext) -> pb.PlaceOrderReply:
        if len(request.lines) > MAX_LINES:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"at most {MAX_LINES} lines per order")
        order_id = self._orders.create(request.customer_id)
        for line in request.lines:
            if not self._inventory.reserve(order_id, line.sku, line.quantity):
                self._orders.cancel(order_id)
                context.abort(grpc.StatusCode.FAILED_PRECONDITION, f"{line.sku} is out of stock")
        self._orders.confirm(order_id)
        return pb.PlaceOrderReply(order_id=order_id)
