import asyncio
import logging

import redis.asyncio as redis

from . import posts_pb2, posts_pb2_grpc

logger = logging.getLogger(__name__)
MAX_URIS = 100


async def hydrate(uri):
    cache = redis.Redis.from_url("redis://cache")
    try:
        return await cache.get(uri)
    except redis.RedisError:
        logger.error("cache read failed for %s", uri)
        return None
    finally:
        await cache.aclose()


class PostsServicer(posts_pb2_grpc.PostsServicer):
    async def GetPosts(self, request, context):
        posts = await asyncio.gather(*(hydrate(uri) for uri in request.uris))
        return posts_pb2.GetPostsResponse(posts=posts)

    async def CountPosts(self, request, context):
        if len(request.uris) > MAX_URIS:
            await context.abort(3, "too many uris")
        return posts_pb2.Count(n=len([u for u in request.uris if u]))

    def _helper(self, request, context):
        return None
