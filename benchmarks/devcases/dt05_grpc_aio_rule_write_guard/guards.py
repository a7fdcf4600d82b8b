"""Request guards for servicer methods."""
import functools

import grpc

MAX_UPDATES = 500


def max_repeated(field: str, limit: int):
    """Reject requests whose repeated ``field`` holds more than ``limit`` items."""

    def decorate(method):
        @functools.wraps(method)
        async def wrapper(self, request, context: grpc.aio.ServicerContext):
            if len(getattr(request, field)) > limit:
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"{field}: at most {limit} items per call")
            return await method(self, request, context)

        return wrapper

    return decorate
