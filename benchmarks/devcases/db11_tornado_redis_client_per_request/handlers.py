# Incident: thefab/tornadis #5/#6 - a Redis client was created and connected inside the request
# handler path on every GET; CPU and connection count climbed with traffic.
# Hazard: every request calls ListingCache.lookup (cache.py), which constructs a new Redis client
# and connection per call; the cache object itself is built once in app.py.
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
