# Pattern: thefab/tornadis #5/#6 - a Redis client connected inside the handler path on every GET;
# the fix shape is one pool for the process. Not a hazard: each request calls ListingCache.lookup
# (cache.py), whose per-call Redis(...) handle borrows from the pool built once in app.py.
"""Request handlers."""
import json

import tornado.web


class ListingHandler(tornado.web.RequestHandler):
    async def get(self, listing_id: str) -> None:
        cache = self.application.settings["listing_cache"]
        cached = await cache.lookup(f"listing:{listing_id}")
        if cached is None:
            self.set_status(404)
            return
        self.set_header("Content-Type", "application/json")
        self.write(json.dumps({"id": listing_id, "listing": json.loads(cached)}))
