"""BND203 fix, a sync gRPC servicer: a length check that aborts with INVALID_ARGUMENT before the loop."""
import grpc

from . import feed_pb2 as pb
from . import feed_pb2_grpc as pb_grpc


class FeedServicer(pb_grpc.FeedServicer):
    def GetPosts(self, request, context):
        posts = []
        # one lookup per uri
        if len(request.uris) > 100:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "uris: at most 100 items")
        for uri in request.uris:  # error: BND203 col 20
            posts.append(self._store.get(uri))
        return pb.GetPostsResponse(posts=posts)

    def GetAuthors(self, request: pb.GetAuthorsRequest, ctx: grpc.ServicerContext):
        dids = request.dids
        if len(dids) > 100:
            ctx.abort(grpc.StatusCode.INVALID_ARGUMENT, "dids: at most 100 items")
        return pb.GetAuthorsResponse(authors=[self._store.author(d) for d in dids])  # error: BND203 col 78
