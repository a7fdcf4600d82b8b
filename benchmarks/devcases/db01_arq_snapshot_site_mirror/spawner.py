"""Tiny helper that starts coroutines as tasks and waits for all of them."""
import asyncio
from collections.abc import Coroutine
from typing import Any


class TaskSpawner:
    def __init__(self) -> None:
        self._tasks: list[asyncio.Task[Any]] = []

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)  # expect: FANOUT
        self._tasks.append(task)
        return task

    async def join(self) -> list[Any]:
        tasks, self._tasks = self._tasks, []
        return await asyncio.gather(*tasks, return_exceptions=True)
