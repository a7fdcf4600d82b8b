"""Application factory: one shared session for outbound checks."""
from __future__ import annotations

import aiohttp
import asyncpg
from aiohttp import web

from .pages import PageStore
from .routes import routes


async def _session_ctx(app: web.Application):
    app["pages"] = PageStore(await asyncpg.create_pool(app["dsn"], max_size=10))
    app["http"] = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300))
    yield
    await app["http"].close()


def create_app(dsn: str) -> web.Application:
    app = web.Application()
    app["dsn"] = dsn
    app.cleanup_ctx.append(_session_ctx)
    app.add_routes(routes)
    return app
