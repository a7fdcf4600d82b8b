"""Crawled pages of a site, stored in PostgreSQL."""
from __future__ import annotations

import asyncpg


class PageStore:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def outbound_links(self, site_id: int) -> list[str]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT DISTINCT l.href FROM links l JOIN pages p ON p.id = l.page_id"
                " WHERE p.site_id = $1 AND l.href LIKE 'http%'",
                site_id,
            )
        return [row["href"] for row in rows]
