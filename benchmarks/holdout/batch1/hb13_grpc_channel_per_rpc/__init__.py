"""Checkout service (sync gRPC) calling the inventory service (case hb13).

``clients.InventoryClient.reserve`` dials a new channel to the inventory service
on every call; ``servicer.CheckoutServicer.PlaceOrder`` calls it per order line.
"""
