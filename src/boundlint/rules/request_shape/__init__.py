"""BND2xx unbounded request shape: a request contract whose collections have no size limit.

In the incident one internal client sent 15,000-20,000 URIs per request where
normal traffic carried 1 to 50; nothing in the request contract rejected a
batch that large.  These rules find request models (``models``), endpoint
parameters (``endpoints``) and gRPC handlers (``grpc``) that accept a
collection of any size (their helpers: ``model_roles``, ``model_sources``,
``mapping_uses``, ``grpc_iteration``).  Which annotations, defaults and validators count as
a size limit is decided in ``boundlint.analysis.models``.
"""
from boundlint.rules.request_shape.endpoints import UnboundedEndpointCollection
from boundlint.rules.request_shape.grpc import UncheckedRepeatedField
from boundlint.rules.request_shape.models import UnboundedRequestCollection

__all__ = ["UnboundedRequestCollection", "UnboundedEndpointCollection", "UncheckedRepeatedField"]
