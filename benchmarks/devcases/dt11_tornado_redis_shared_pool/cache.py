"""Thin Redis cache wrapper over the application's connection pool."""
import redis.asyncio as aioredis


class ListingCache:
    def __init__(self, pool: aioredis.ConnectionPool) -> None:
        self._pool = pool

    async def lookup(self, key: str) -> bytes | None:
        # A client over an existing pool is a cheap handle: it opens nothing, and since the pool
        # was passed in, it never closes the pool either (auto_close_connection_pool is False).
        client = aioredis.Redis(connection_pool=self._pool)
        return await client.get(key)
