"""Thin Redis cache wrapper."""
import redis.asyncio as aioredis


class ListingCache:
    def __init__(self, host: str, port: int = 6379, db: int = 0) -> None:
        self._host = host
        self._port = port
        self._db = db

    async def lookup(self, key: str) -> bytes | None:
        client = aioredis.Redis(host=self._host, port=self._port, db=self._db, socket_timeout=2)  # expect: CONN-PER-ITEM
        try:
            return await client.get(key)
        finally:
            await client.aclose()
