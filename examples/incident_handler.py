"""A Python rendition of the April 2026 read-path incident.

The GetPosts RPC takes a batch of post URIs.  Normal clients send 1 to 50; one
quiet internal client sent 15,000 to 20,000 at 3 requests per second.  The
handler below spawned one task per URI (no concurrency limit), each task
dialed its own cache connection, and every failed cache call was logged.
``boundlint check examples/`` finds each of those hazards.
"""
import asyncio
import logging

import grpc
import redis.asyncio as redis
from pydantic import BaseModel

from . import posts_pb2, posts_pb2_grpc

logger = logging.getLogger(__name__)
CACHE_URL = "redis://post-cache.internal:6379/0"


class GetPostsRequest(BaseModel):
    uris: list[str]


async def hydrate(uri: str) -> posts_pb2.Post | None:
    cache = redis.Redis.from_url(CACHE_URL)
    try:
        raw = await cache.get(uri)
        return posts_pb2.Post.FromString(raw) if raw else None
    except redis.RedisError:
        logger.error("cache read failed for %s", uri)
        return None
    finally:
        await cache.aclose()


class PostsServicer(posts_pb2_grpc.PostsServicer):
    async def GetPosts(self, request: posts_pb2.GetPostsRequest, context: grpc.aio.ServicerContext):
        posts = await asyncio.gather(*(hydrate(uri) for uri in request.uris))
        return posts_pb2.GetPostsResponse(posts=[p for p in posts if p is not None])
