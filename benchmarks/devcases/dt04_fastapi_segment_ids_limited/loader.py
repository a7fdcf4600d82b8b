"""Loads and decrypts the requested segments, a few at a time."""
import anyio
from fastapi import Request

from .limits import make_limiter


class SegmentLoader:
    def __init__(self, vault) -> None:
        self._vault = vault
        self._limiter = make_limiter()

    async def _load_one(self, user_id: str, domain: str, segment_id: str, out: dict) -> None:
        async with self._limiter:
            out[segment_id] = await self._vault.read_segment(user_id, domain, segment_id)

    async def load(self, user_id: str, domain: str, segment_ids: list[str]) -> dict:
        out: dict = {}
        async with anyio.create_task_group() as tg:
            for segment_id in segment_ids:
                tg.start_soon(self._load_one, user_id, domain, segment_id, out)
        return out


def get_loader(request: Request) -> SegmentLoader:
    return request.app.state.segment_loader
