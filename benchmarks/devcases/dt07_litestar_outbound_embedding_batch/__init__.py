# Bounded: see vendor.py; EmbeddingBatchRequest is the server's own outbound payload to the
# embeddings backend (built in client.py from stored chunks, 500 at a time), not a request body.
"""Document embedding service on Litestar (trap dt07)."""
