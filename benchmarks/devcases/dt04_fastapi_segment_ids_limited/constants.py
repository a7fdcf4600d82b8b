"""Request and concurrency limits."""
MAX_SEGMENTS = 50
LOAD_CONCURRENCY = 8
