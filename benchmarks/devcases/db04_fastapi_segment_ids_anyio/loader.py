"""Loads and decrypts the requested segments concurrently."""
import anyio

from .vault import Vault


async def _load_one(vault: Vault, user_id: str, domain: str, segment_id: str, out: dict) -> None:
    out[segment_id] = await vault.read_segment(user_id, domain, segment_id)


async def load_segments(vault: Vault, user_id: str, domain: str, segment_ids: list[str]) -> dict:
    out: dict = {}
    async with anyio.create_task_group() as tg:
        for segment_id in segment_ids:
            tg.start_soon(_load_one, vault, user_id, domain, segment_id, out)  # expect: FANOUT
    return out
