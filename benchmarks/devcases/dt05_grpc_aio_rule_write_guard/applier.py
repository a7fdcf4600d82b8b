"""Applies one table update to the edge device and records it."""
import asyncpg


class UpdateApplier:
    def __init__(self, device_stub, pool: asyncpg.Pool) -> None:
        self._device = device_stub
        self._pool = pool

    async def apply(self, tenant_id: str, update) -> None:
        await self._device.WriteEntry(update, timeout=5)
        async with self._pool.acquire() as conn:
            await conn.execute(
                "INSERT INTO rule_log (tenant_id, table_name, match, action) VALUES ($1, $2, $3, $4)",
                tenant_id, update.table, update.match, update.action,
            )
