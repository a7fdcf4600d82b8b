"""Request bodies validated by sanic-ext."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from .validators import MAX_EXPORT_USERS, require_max_items


@dataclass
class ExportRequest:
    start: date
    end: date
    user_ids: list[int]
    fmt: str = "csv"
    include_properties: bool = True

    def __post_init__(self) -> None:
        require_max_items("user_ids", self.user_ids, MAX_EXPORT_USERS)
        if self.end <= self.start:
            raise ValueError("end must be after start")
