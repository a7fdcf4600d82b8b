# Bounded: see servicer.py; Write is wrapped by @max_repeated("updates", MAX_UPDATES) from
# guards.py, which aborts with INVALID_ARGUMENT before the loop when more than 500 arrive.
"""Edge rule distribution on grpc.aio, with a batch cap (trap dt05)."""
