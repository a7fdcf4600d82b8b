"""Request bodies of the notification API (pydantic v2)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, HttpUrl


class Target(BaseModel):
    kind: Literal["slack", "webhook", "teams"]
    url: HttpUrl
    secret: str | None = Field(default=None, max_length=256)


class TestNotification(BaseModel):
    title: str = Field(max_length=200)
    message: str = Field(max_length=4000)
    targets: list[Target]  # expect: REQUEST-SHAPE
