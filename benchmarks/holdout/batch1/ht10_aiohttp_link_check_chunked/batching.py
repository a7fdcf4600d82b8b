"""Batch helpers for outbound work."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

PROBE_BATCH = 20


def chunked(items: Sequence[T], size: int = PROBE_BATCH) -> Iterator[Sequence[T]]:
    if size < 1:
        raise ValueError("size must be positive")
    for start in range(0, len(items), size):
        yield items[start : start + size]
