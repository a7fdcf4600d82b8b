# Bounded: see routes.py and loader.py; segment_ids is capped by Query(max_length=MAX_SEGMENTS)
# from constants.py, and every start_soon'd load enters the CapacityLimiter built in limits.py.
"""Personal knowledge store: encrypted domain segments, capped (trap dt04)."""
