# Incident: p4lang/p4runtime #125 - a client may send billions of entity updates in one Write
# batch; servers must bound repeated fields (cf. the 4 MB default only caps bytes, not work).
# Hazard: Write iterates request.updates with no count check; each update is a device RPC plus a
# database write in applier.py. Tenant agents (not operators) call Write.
"""Rule service servicer (sync gRPC)."""
import grpc

from . import rules_pb2, rules_pb2_grpc
from .applier import UpdateApplier


class RuleServicer(rules_pb2_grpc.RuleServiceServicer):
    def __init__(self, applier: UpdateApplier) -> None:
        self._applier = applier

    def Write(self, request: rules_pb2.WriteRequest, context: grpc.ServicerContext) -> rules_pb2.WriteResponse:
        if not request.tenant_id:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "tenant_id is required")
        applied = 0
        for update in request.updates:  # expect: REQUEST-SHAPE
            self._applier.apply(request.tenant_id, update)
            applied += 1
        return rules_pb2.WriteResponse(applied=applied)
