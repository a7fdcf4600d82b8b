"""Invoice persistence on a pool owned by the worker."""
from __future__ import annotations

import asyncpg


class InvoiceRepository:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def load(self, invoice_id: str) -> asyncpg.Record | None:
        async with self._pool.acquire() as conn:
            return await conn.fetchrow("SELECT * FROM invoices WHERE id = $1", invoice_id)

    async def mark_synced(self, invoice_id: str, remote_id: str) -> None:
        async with self._pool.acquire() as conn:
            await conn.execute(
                "UPDATE invoices SET remote_id = $2, synced_at = now() WHERE id = $1", invoice_id, remote_id
            )
