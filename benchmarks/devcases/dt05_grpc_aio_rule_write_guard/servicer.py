# Pattern: p4lang/p4runtime #125 answer - servers should bound repeated fields in Write batches.
# Not a hazard: the loop over request.updates only runs after the max_repeated guard (guards.py)
# has checked len(request.updates) <= 500.
"""Rule service servicer (grpc.aio)."""
import grpc

from . import rules_pb2, rules_pb2_grpc
from .applier import UpdateApplier
from .guards import MAX_UPDATES, max_repeated


class RuleServicer(rules_pb2_grpc.RuleServiceServicer):
    def __init__(self, applier: UpdateApplier) -> None:
        self._applier = applier

    @max_repeated("updates", MAX_UPDATES)
    async def Write(self, request: rules_pb2.WriteRequest, context: grpc.aio.ServicerContext) -> rules_pb2.WriteResponse:
        applied = 0
        for update in request.updates:
            await self._applier.apply(request.tenant_id, update)
            applied += 1
        return rules_pb2.WriteResponse(applied=applied)
