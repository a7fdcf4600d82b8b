"""BND201 fix, pydantic v2: the names the cap needs are imported once, into the existing imports."""
from __future__ import annotations

from typing import Optional, Annotated

from pydantic import BaseModel, Field


class SearchRequest(BaseModel):
    terms: list[str] = Field(max_length=100)  # error: BND201 col 5
    filters: Optional[Annotated[list[str], Field(max_length=100)]] = None  # error: BND201 col 5
    sorts: Annotated[list[str], Field(max_length=100)] = []  # error: BND201 col 5
