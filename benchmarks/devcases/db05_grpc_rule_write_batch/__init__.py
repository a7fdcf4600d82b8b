"""Edge rule distribution: gRPC Write of table updates (case db05)."""
