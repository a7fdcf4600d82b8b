"""Concurrency limits shared by the download helpers."""
import asyncio
import functools

DOWNLOAD_SLOTS = 8


def bounded(limit: int):
    """Decorator: at most ``limit`` calls of the wrapped coroutine function run at once."""
    slots = asyncio.Semaphore(limit)

    def decorate(fn):
        @functools.wraps(fn)
        async def wrapper(*args, **kwargs):
            async with slots:
                return await fn(*args, **kwargs)

        return wrapper

    return decorate
