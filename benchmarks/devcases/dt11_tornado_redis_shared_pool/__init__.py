# Bounded: see handlers.py; ListingCache.lookup (cache.py) builds a Redis client per call, but
# over the one ConnectionPool that make_app (app.py) creates at start-up with max_connections=32:
# the client object owns no connection, each command borrows one from that shared pool.
"""Listing cache in front of the catalog, on Tornado, over a shared pool (trap dt11)."""
