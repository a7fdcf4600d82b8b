"""Process entry point: dials the downstream once and serves."""
from __future__ import annotations

import asyncio
import os

import grpc

from . import checkout_pb2_grpc as pb_grpc
from .clients import InventoryClient, make_channel
from .orders import OrderStore
from .servicer import CheckoutServicer


async def serve() -> None:
    channel = make_channel(os.environ.get("INVENTORY_TARGET", "inventory:50051"))
    server = grpc.aio.server()
    pb_grpc.add_CheckoutServicer_to_server(CheckoutServicer(InventoryClient(channel), OrderStore.from_env()), server)
    server.add_insecure_port("[::]:50052")
    await server.start()
    try:
        await server.wait_for_termination()
    finally:
        await channel.close()


if __name__ == "__main__":
    asyncio.run(serve())
