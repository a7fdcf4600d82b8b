"""The same handler after the fix: a request size limit, one shared client, a semaphore, a counted log line."""
import asyncio
import logging

import grpc
import redis.asyncio as redis

from . import posts_pb2, posts_pb2_grpc

logger = logging.getLogger(__name__)
CACHE_URL = "redis://post-cache.internal:6379/0"
MAX_URIS = 100
MAX_CONCURRENT_CACHE_CALLS = 32


class PostsServicer(posts_pb2_grpc.PostsServicer):
    def __init__(self) -> None:
        self._cache = redis.Redis.from_url(CACHE_URL)
        self._limit = asyncio.Semaphore(MAX_CONCURRENT_CACHE_CALLS)

    async def _hydrate(self, uri: str) -> posts_pb2.Post | None:
        async with self._limit:
            raw = await self._cache.get(uri)
        return posts_pb2.Post.FromString(raw) if raw else None

    async def GetPosts(self, request: posts_pb2.GetPostsRequest, context: grpc.aio.ServicerContext):
        if len(request.uris) > MAX_URIS:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"at most {MAX_URIS} uris per call")
        results = await asyncio.gather(*(self._hydrate(uri) for uri in request.uris), return_exceptions=True)
        failed = sum(isinstance(r, Exception) for r in results)
        if failed:
            logger.warning("%d of %d cache reads failed", failed, len(results))
        posts = [r for r in results if r is not None and not isinstance(r, Exception)]
        return posts_pb2.GetPostsResponse(posts=posts)
