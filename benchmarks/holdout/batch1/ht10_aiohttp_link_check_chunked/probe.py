"""Checks one URL with a HEAD request, falling back to GET."""
from __future__ import annotations

import aiohttp

TIMEOUT = aiohttp.ClientTimeout(total=15)


async def probe(session: aiohttp.ClientSession, url: str) -> dict:
    try:
        async with session.head(url, allow_redirects=True, timeout=TIMEOUT) as response:
            status = response.status
        if status in (405, 501):
            async with session.get(url, allow_redirects=True, timeout=TIMEOUT) as response:
                status = response.status
    except (aiohttp.ClientError, TimeoutError) as exc:
        return {"url": url, "ok": False, "error": type(exc).__name__}
    return {"url": url, "ok": status < 400, "status": status}
