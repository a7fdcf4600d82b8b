"""Encrypted segment storage: ciphertext in Postgres, data keys unwrapped by the KMS."""
import asyncpg
import httpx
from fastapi import Request

SEGMENT_SQL = "SELECT ciphertext, wrapped_key FROM segments WHERE user_id = $1 AND domain = $2 AND id = $3"


class Vault:
    def __init__(self, pool: asyncpg.Pool, kms: httpx.AsyncClient) -> None:
        self._pool = pool
        self._kms = kms

    async def read_segment(self, user_id: str, domain: str, segment_id: str) -> str:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(SEGMENT_SQL, user_id, domain, segment_id)
        resp = await self._kms.post("/v1/decrypt", json={"ciphertext": row["ciphertext"], "key": row["wrapped_key"]})
        resp.raise_for_status()
        return resp.json()["plaintext"]


def get_vault(request: Request) -> Vault:
    return request.app.state.vault
