"""Application factory."""
import os

import tornado.web

from .cache import ListingCache
from .handlers import ListingHandler


def make_app() -> tornado.web.Application:
    cache = ListingCache(os.environ.get("REDIS_HOST", "localhost"))
    return tornado.web.Application([(r"/listings/([0-9a-f-]+)", ListingHandler)], listing_cache=cache)
