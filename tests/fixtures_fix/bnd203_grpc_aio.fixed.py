"""BND203 fix, a grpc.aio servicer: `await context.abort(...)`, and `import grpc` added once."""
from . import posts_pb2_grpc
import grpc


class PostsServicer(posts_pb2_grpc.PostsServicer):
    async def GetLabels(self, request, context):
        out = {}
        if len(request.labels) > 100:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "labels: at most 100 items")
        for key, value in request.labels.items():  # error: BND203 col 27
            out[key] = await self._fetch(value)
        return out

    async def GetPosts(self, request, context):
        if len(request.uris) > 100:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "uris: at most 100 items")
        return [await self._fetch(u) for u in request.uris]  # error: BND203 col 47
