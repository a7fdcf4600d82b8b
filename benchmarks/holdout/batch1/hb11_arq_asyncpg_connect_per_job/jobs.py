# Rebuilt from googleapis/python-spanner-django issue #739 ("New connection created on each
# request") and desec-io/desec-stack issue #435 (fresh DB connection per request): here an arq
# job opens its own PostgreSQL connection, twice per invoice (repository.py). Hazard: a backlog of
# thousands of sync jobs turns into thousands of connection handshakes and exhausts max_connections.
"""arq jobs and worker settings."""
from __future__ import annotations

from arq.connections import RedisSettings

from .accounting import AccountingAPI
from .repository import InvoiceRepository
from .settings import REDIS_URL

repo = InvoiceRepository()


async def sync_invoice(ctx: dict, invoice_id: str) -> str | None:
    row = await repo.load(invoice_id)
    if row is None or row["remote_id"] is not None:
        return None
    api: AccountingAPI = ctx["accounting"]
    remote_id = await api.create_invoice(customer=row["customer_id"], lines=row["lines"], currency=row["currency"])
    await repo.mark_synced(invoice_id, remote_id)
    return remote_id


async def startup(ctx: dict) -> None:
    ctx["accounting"] = AccountingAPI.from_env()


async def shutdown(ctx: dict) -> None:
    await ctx["accounting"].close()


class WorkerSettings:
    functions = [sync_invoice]
    on_startup = startup
    on_shutdown = shutdown
    redis_settings = RedisSettings.from_dsn(REDIS_URL)
    max_jobs = 20
