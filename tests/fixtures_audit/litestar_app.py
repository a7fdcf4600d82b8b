import anyio
from litestar import post
from msgspec import Meta, Struct
from typing import Annotated


class BatchRequest(Struct):
    runs: Annotated[list[str], Meta(max_length=100)]


async def execute(run: str, limiter: anyio.CapacityLimiter) -> None:
    async with limiter:
        await anyio.sleep(0)


@post("/batch")
async def batch(data: BatchRequest) -> None:
    limiter = anyio.CapacityLimiter(8)
    async with anyio.create_task_group() as tg:
        for run in data.runs:
            tg.start_soon(execute, run, limiter)
