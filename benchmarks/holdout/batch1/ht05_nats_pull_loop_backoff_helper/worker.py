# Look-alike of the busy reconnect loops fixed in atribe/apcupsd-influxdb-exporter PR #5 and
# PredaaA/predacogs PR #29 ("Sleep on Exceptions to avoid potential busylooping"). Not a tight
# retry: the except path awaits Backoff.pause() from retry.py (0.2 s doubling to 30 s), so the
# warning is written once per paced attempt; idle fetches wait 5 s inside source.py.
"""Pull loop that stores audit events in ClickHouse."""
from __future__ import annotations

import asyncio
import logging

import nats.errors

from .retry import Backoff
from .source import AuditSource

log = logging.getLogger(__name__)


class AuditWorker:
    def __init__(self, source: AuditSource, store) -> None:
        self._source = source
        self._store = store
        self._stop = asyncio.Event()

    def stop(self) -> None:
        self._stop.set()

    async def pull_loop(self) -> None:
        backoff = Backoff()
        while not self._stop.is_set():
            try:
                messages = await self._source.next_batch()
                if messages:
                    await self._store.insert_many([m.data for m in messages])
                    for m in messages:
                        await m.ack()
                backoff.reset()
            except (nats.errors.ConnectionClosedError, nats.errors.NoServersError, OSError) as exc:
                self._source.reset()
                log.warning("audit pull failed (%s); backing off", exc)
                await backoff.pause()
