"""Invoice persistence."""
from __future__ import annotations

from contextlib import asynccontextmanager

import asyncpg

from .settings import DATABASE_URL


class InvoiceRepository:
    @asynccontextmanager
    async def _connect(self):
        conn = await asyncpg.connect(DATABASE_URL, command_timeout=30)  # expect: CONN-PER-ITEM
        try:
            yield conn
        finally:
            await conn.close()

    async def load(self, invoice_id: str) -> asyncpg.Record | None:
        async with self._connect() as conn:
            return await conn.fetchrow("SELECT * FROM invoices WHERE id = $1", invoice_id)

    async def mark_synced(self, invoice_id: str, remote_id: str) -> None:
        async with self._connect() as conn:
            await conn.execute(
                "UPDATE invoices SET remote_id = $2, synced_at = now() WHERE id = $1", invoice_id, remote_id
            )
