# Bounded: see tasks.py and indexer.py; DocIndexer.index_doc reports each connection error to
# the CircuitBreaker from breaker.py, which raises SearchUnavailable on the 3rd consecutive
# failure (and at once while open, for 300 s): the exception leaves the loop in reindex_changed,
# so a run logs at most 3 stack traces, and at most 1 per cool-down after that.
"""Search reindexer: Huey periodic task feeding Elasticsearch, behind a breaker (trap dt13)."""
