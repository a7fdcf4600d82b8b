"""Limiter factory."""
import anyio

from .constants import LOAD_CONCURRENCY


def make_limiter() -> anyio.CapacityLimiter:
    return anyio.CapacityLimiter(LOAD_CONCURRENCY)
