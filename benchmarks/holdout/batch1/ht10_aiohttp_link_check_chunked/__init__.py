# Bounded: the handler gathers one chunk at a time from batching.chunked(urls, PROBE_BATCH) (batching.py, PROBE_BATCH = 20), so at most 20 probes are in flight.
"""Link-check microservice with batched probes (trap ht10)."""
