"""Server interceptor that enforces REPEATED_FIELD_LIMITS on unary requests."""
from __future__ import annotations

import grpc

from .limits import REPEATED_FIELD_LIMITS


class RepeatedFieldLimitInterceptor(grpc.ServerInterceptor):
    def intercept_service(self, continuation, handler_call_details):
        handler = continuation(handler_call_details)
        limits = REPEATED_FIELD_LIMITS.get(handler_call_details.method)
        if handler is None or not limits or handler.unary_unary is None:
            return handler
        inner = handler.unary_unary

        def checked(request, context):
            for field_name, limit in limits.items():
                count = len(getattr(request, field_name))
                if count > limit:
                    context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"{field_name}: {count} items, at most {limit} allowed")
            return inner(request, context)

        return grpc.unary_unary_rpc_method_handler(
            checked,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
