"""Request bodies of the notification API (pydantic v2)."""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field, HttpUrl

from .validators import MAX_TEST_TARGETS, max_items


class Target(BaseModel):
    kind: Literal["slack", "webhook", "teams"]
    url: HttpUrl
    secret: str | None = Field(default=None, max_length=256)


class TestNotification(BaseModel):
    title: str = Field(max_length=200)
    message: str = Field(max_length=4000)
    targets: Annotated[list[Target], AfterValidator(max_items(MAX_TEST_TARGETS))]
