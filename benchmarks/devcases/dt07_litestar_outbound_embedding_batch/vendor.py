# Pattern: defenseunicorns/leapfrogai #887 - the API batches its own CreateEmbedding calls to
# the backend 500 inputs at a time. Not a hazard: these structs are what this server sends to
# (and reads back from) the backend; no client of this service can send them.
"""Wire types of the embeddings backend."""
import msgspec


class EmbeddingBatchRequest(msgspec.Struct):
    model: str
    inputs: list[str]


class EmbeddingBatchResponse(msgspec.Struct):
    embeddings: list[list[float]]
