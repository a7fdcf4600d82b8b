# Bounded: the only logged failure in the per-message path is codec.decode() (codec.py), a local msgspec decode; search-cluster errors are not caught and stop the consumer.
"""Search indexer with local decode warnings (trap ht04)."""
