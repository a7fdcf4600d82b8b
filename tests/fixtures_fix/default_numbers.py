"""Fixes with no fix-max-items / fix-concurrency set: the default number, and a note to choose one."""
import asyncio

from app.clients import fetch

from pydantic import BaseModel


class LookupRequest(BaseModel):
    uris: list[str]


async def handler(ids):
    return await asyncio.gather(*(fetch(i) for i in ids))
