"""Download helpers."""
from pathlib import Path

import aiofiles
import httpx

from .limits import DOWNLOAD_SLOTS, bounded


async def station_urls(client: httpx.AsyncClient, country: str) -> list[str]:
    resp = await client.get("https://discomap.example/urls", params={"country": country})
    resp.raise_for_status()
    return [line.strip() for line in resp.text.splitlines() if line.strip()]


@bounded(DOWNLOAD_SLOTS)
async def download_station_file(client: httpx.AsyncClient, url: str, cache_dir: str) -> Path:
    path = Path(cache_dir) / url.rsplit("/", 1)[-1]
    resp = await client.get(url)
    resp.raise_for_status()
    async with aiofiles.open(path, "wb") as fh:
        await fh.write(resp.content)
    return path
