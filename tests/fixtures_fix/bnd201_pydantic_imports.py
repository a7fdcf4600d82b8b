"""BND201 fix, pydantic v2: the names the cap needs are imported once, into the existing imports."""
from __future__ import annotations

from typing import Optional

from pydantic import BaseModel


class SearchRequest(BaseModel):
    terms: list[str]  # error: BND201 col 5
    filters: Optional[list[str]] = None  # error: BND201 col 5
    sorts: list[str] = []  # error: BND201 col 5
