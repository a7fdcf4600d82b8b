"""arq worker settings and lifecycle hooks."""
from __future__ import annotations

import asyncpg
from arq.connections import RedisSettings

from .accounting import AccountingAPI
from .jobs import sync_invoice
from .repository import InvoiceRepository
from .settings import DATABASE_URL, REDIS_URL


async def startup(ctx: dict) -> None:
    ctx["pool"] = await asyncpg.create_pool(DATABASE_URL, min_size=2, max_size=10, command_timeout=30)
    ctx["repo"] = InvoiceRepository(ctx["pool"])
    ctx["accounting"] = AccountingAPI.from_env()


async def shutdown(ctx: dict) -> None:
    await ctx["accounting"].close()
    await ctx["pool"].close()


class WorkerSettings:
    functions = [sync_invoice]
    on_startup = startup
    on_shutdown = shutdown
    redis_settings = RedisSettings.from_dsn(REDIS_URL)
    max_jobs = 20
