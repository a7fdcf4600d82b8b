"""Request bodies validated by sanic-ext."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass
class ExportRequest:
    start: date
    end: date
    user_ids: list[int]  # expect: REQUEST-SHAPE
    fmt: str = "csv"
    include_properties: bool = True
