"""Application factory: one Redis connection pool for the process."""
import os

import redis.asyncio as aioredis
import tornado.web

from .cache import ListingCache
from .handlers import ListingHandler

REDIS_MAX_CONNECTIONS = 32


def make_app() -> tornado.web.Application:
    pool = aioredis.ConnectionPool(
        host=os.environ.get("REDIS_HOST", "localhost"),
        port=6379,
        db=0,
        socket_timeout=2,
        max_connections=REDIS_MAX_CONNECTIONS,
    )
    cache = ListingCache(pool)
    return tornado.web.Application([(r"/listings/([0-9a-f-]+)", ListingHandler)], listing_cache=cache)
