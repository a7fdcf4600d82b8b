"""Fixes with no fix-max-items / fix-concurrency set: the default number, and a note to choose one."""
import asyncio

from app.clients import fetch

from pydantic import BaseModel, Field


class LookupRequest(BaseModel):
    uris: list[str] = Field(max_length=1000)  # boundlint: default limit, choose yours


async def handler(ids):
    semaphore = asyncio.Semaphore(16)  # boundlint: default limit, choose yours

    async def bounded(awaitable):
        async with semaphore:
            return await awaitable

    return await asyncio.gather(*(bounded(fetch(i)) for i in ids))
