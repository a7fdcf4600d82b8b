# Bounded: RepeatedFieldLimitInterceptor (interceptors.py) wraps every unary handler and aborts with INVALID_ARGUMENT when GetFeatures.entity_ids holds more than 500 ids, before the servicer runs.
"""Feature store: online feature lookup over gRPC (trap ht03)."""
