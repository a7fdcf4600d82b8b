"""Pull subscription wrapper: returns [] after an idle wait instead of raising."""
from __future__ import annotations

import nats.errors
from nats.js import JetStreamContext

FETCH_WAIT_S = 5.0


class AuditSource:
    def __init__(self, js: JetStreamContext, stream: str, durable: str) -> None:
        self._js = js
        self._stream = stream
        self._durable = durable
        self._sub = None

    async def next_batch(self, size: int = 100) -> list:
        if self._sub is None:
            self._sub = await self._js.pull_subscribe("audit.>", durable=self._durable, stream=self._stream)
        try:
            return await self._sub.fetch(batch=size, timeout=FETCH_WAIT_S)
        except nats.errors.TimeoutError:
            return []

    def reset(self) -> None:
        self._sub = None
