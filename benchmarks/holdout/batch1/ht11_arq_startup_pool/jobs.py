# Look-alike of googleapis/python-spanner-django issue #739 ("New connection created on each
# request"), in the fixed shape. Not churn: sync_invoice runs per job but only uses ctx["repo"],
# whose pool worker.startup() (worker.py) creates once per worker process; repository.py only
# acquires pooled connections.
"""arq jobs."""
from __future__ import annotations

from .accounting import AccountingAPI
from .repository import InvoiceRepository


async def sync_invoice(ctx: dict, invoice_id: str) -> str | None:
    repo: InvoiceRepository = ctx["repo"]
    row = await repo.load(invoice_id)
    if row is None or row["remote_id"] is not None:
        return None
    api: AccountingAPI = ctx["accounting"]
    remote_id = await api.create_invoice(customer=row["customer_id"], lines=row["lines"], currency=row["currency"])
    await repo.mark_synced(invoice_id, remote_id)
    return remote_id
