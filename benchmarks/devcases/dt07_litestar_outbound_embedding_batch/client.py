"""Embeddings backend client (one shared httpx client, created at startup)."""
import httpx
import msgspec

from .vendor import EmbeddingBatchRequest, EmbeddingBatchResponse

BATCH = 500


class EmbeddingClient:
    def __init__(self, http: httpx.AsyncClient, model: str) -> None:
        self._http = http
        self._model = model

    async def embed(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            payload = EmbeddingBatchRequest(model=self._model, inputs=texts[start:start + BATCH])
            resp = await self._http.post("/v1/embeddings", content=msgspec.json.encode(payload))
            resp.raise_for_status()
            vectors.extend(msgspec.json.decode(resp.content, type=EmbeddingBatchResponse).embeddings)
        return vectors
