"""Reads each user's events from ClickHouse and writes them to object storage."""
from __future__ import annotations

import csv
import io

from .models import ExportRequest

BASE_COLUMNS = ["ts", "event", "session_id", "url"]


class EventExporter:
    def __init__(self, clickhouse, storage) -> None:
        self._ch = clickhouse
        self._storage = storage

    async def export_user(self, team_id: int, user_id: int, req: ExportRequest) -> str:
        columns = BASE_COLUMNS + (["properties"] if req.include_properties else [])
        rows = await self._ch.fetch(
            f"SELECT {', '.join(columns)} FROM events WHERE team_id = %(team)s AND user_id = %(user)s"
            " AND ts >= %(start)s AND ts < %(end)s ORDER BY ts",
            {"team": team_id, "user": user_id, "start": req.start, "end": req.end},
        )
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(columns)
        writer.writerows(rows)
        key = f"exports/{team_id}/{user_id}-{req.start}-{req.end}.csv"
        await self._storage.put(key, buffer.getvalue().encode())
        return key
