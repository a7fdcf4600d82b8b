import asyncio
from typing import Annotated

import httpx
from fastapi import Depends, FastAPI, Query
from pydantic import BaseModel, Field

app = FastAPI()
sem = asyncio.Semaphore(16)


class LookupRequest(BaseModel):
    uris: list[str]
    tags: list[str] = Field(max_length=20)


async def fetch(uri: str) -> bytes:
    async with httpx.AsyncClient() as client:
        return (await client.get(uri)).content


async def fetch_limited(uri: str) -> bytes:
    async with sem:
        return await fetch(uri)


@app.post("/posts/lookup")
async def lookup(req: LookupRequest):
    return await asyncio.gather(*(fetch(u) for u in req.uris))


@app.get("/posts")
async def get_posts(ids: list[str] = Query(default=[], max_length=50)):
    return await asyncio.gather(*(fetch_limited(i) for i in ids))


@app.get("/health")
async def health():
    return await asyncio.gather(ping(), ping())


async def ping() -> bool:
    return True


def current_roles() -> list[str]:
    return ["admin"]


@app.get("/me")
async def me(roles: Annotated[list[str], Depends(current_roles)]):
    return roles
