"""Reusable pydantic validators."""
from __future__ import annotations

from collections.abc import Callable, Sized
from typing import TypeVar

S = TypeVar("S", bound=Sized)

MAX_TEST_TARGETS = 5


def max_items(limit: int) -> Callable[[S], S]:
    def check(value: S) -> S:
        if len(value) > limit:
            raise ValueError(f"at most {limit} items allowed, got {len(value)}")
        return value

    return check
