"""Applies one table update to the edge device and records it."""
import psycopg_pool

from .device import DeviceClient


class UpdateApplier:
    def __init__(self, device: DeviceClient, pool: psycopg_pool.ConnectionPool) -> None:
        self._device = device
        self._pool = pool

    def apply(self, tenant_id: str, update) -> None:
        self._device.write_entry(update.table, update.match, update.action)
        with self._pool.connection() as conn:
            conn.execute(
                "INSERT INTO rule_log (tenant_id, table_name, match, action) VALUES (%s, %s, %s, %s)",
                (tenant_id, update.table, update.match, update.action),
            )
