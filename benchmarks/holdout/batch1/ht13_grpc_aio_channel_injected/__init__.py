# Bounded: clients.make_channel() is called once, in server.serve(), and the resulting channel is injected into InventoryClient and shared by every RPC.
"""Checkout service (grpc.aio) calling inventory over one channel (trap ht13)."""
