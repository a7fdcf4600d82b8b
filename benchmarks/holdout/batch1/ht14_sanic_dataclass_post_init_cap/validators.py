"""Field validators shared by the request dataclasses."""
from __future__ import annotations

from collections.abc import Sized

MAX_EXPORT_USERS = 25


def require_max_items(name: str, value: Sized, limit: int) -> None:
    if len(value) == 0:
        raise ValueError(f"{name} must not be empty")
    if len(value) > limit:
        raise ValueError(f"{name}: at most {limit} items per request, got {len(value)}")
