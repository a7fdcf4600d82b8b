"""Jittered exponential backoff shared by the long-running loops."""
from __future__ import annotations

import asyncio
import random


class Backoff:
    def __init__(self, base_s: float = 0.2, cap_s: float = 30.0) -> None:
        self._base = base_s
        self._cap = cap_s
        self._attempt = 0

    def reset(self) -> None:
        self._attempt = 0

    async def pause(self) -> float:
        delay = min(self._cap, self._base * (2 ** self._attempt)) * random.uniform(0.5, 1.0)
        self._attempt += 1
        await asyncio.sleep(delay)
        return delay
