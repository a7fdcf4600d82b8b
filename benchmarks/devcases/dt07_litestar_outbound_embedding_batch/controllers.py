"""Embedding endpoint: the request names a stored document, nothing more."""
import asyncpg
from litestar import Controller, post
from litestar.datastructures import State

from .client import EmbeddingClient


class EmbedController(Controller):
    path = "/documents"

    @post("/{doc_id:int}/embed")
    async def embed_document(self, doc_id: int, state: State) -> dict:
        pool: asyncpg.Pool = state.pool
        client: EmbeddingClient = state.embeddings
        async with pool.acquire() as conn:
            rows = await conn.fetch("SELECT id, text FROM chunks WHERE document_id = $1 ORDER BY id", doc_id)
        vectors = await client.embed([r["text"] for r in rows])
        async with pool.acquire() as conn:
            await conn.executemany("UPDATE chunks SET embedding = $2 WHERE id = $1", [(r["id"], v) for r, v in zip(rows, vectors)])
        return {"document": doc_id, "chunks": len(rows)}
