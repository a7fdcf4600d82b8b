"""BND101 fix: a gather over a comprehension in an async def, bounded by a semaphore local to the call."""
import asyncio

from app.clients import fetch


async def handler(ids):
    semaphore = asyncio.Semaphore(8)

    async def bounded(awaitable):
        async with semaphore:
            return await awaitable

    return await asyncio.gather(*(bounded(fetch(i)) for i in ids))  # error: BND101 col 18


async def with_options(ids):
    semaphore = "taken"
    semaphore_2 = asyncio.Semaphore(8)

    async def bounded(awaitable):
        async with semaphore_2:
            return await awaitable

    results = await asyncio.gather(*[bounded(fetch(i)) for i in ids], return_exceptions=True)  # error: BND101 col 21
    return semaphore, results


async def from_jobs(jobs):
    pending = []
    for job in jobs:
        pending.append(fetch(job))
    await asyncio.gather(*pending)  # error: BND101 col 11 (not fixable: not a comprehension)
