"""Callback delivery for build events."""
from __future__ import annotations

import asyncio
import json
import logging

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest

log = logging.getLogger(__name__)


class Notifier:
    def __init__(self, db) -> None:
        self._db = db
        self._http = AsyncHTTPClient()

    async def _deliver(self, url: str, body: bytes) -> None:
        request = HTTPRequest(url, method="POST", body=body, headers={"Content-Type": "application/json"}, request_timeout=10)
        try:
            await self._http.fetch(request)
        except (HTTPClientError, OSError):
            await self._db.execute("UPDATE subscriptions SET failures = failures + 1 WHERE url = %s", url)

    async def broadcast(self, project: str, event: dict) -> int:
        rows = await self._db.fetch_all("SELECT url FROM subscriptions WHERE project = %s AND active", project)
        body = json.dumps(event).encode()
        for row in rows:
            asyncio.ensure_future(self._deliver(row["url"], body))  # expect: FANOUT
        return len(rows)
