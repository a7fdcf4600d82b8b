"""BND1xx unbounded fan-out: one concurrent task, thread or coroutine per input item.

The incident behind boundlint: one RPC handler turned a 20,000-item request
into 20,000 concurrent cache calls.  Every rule here reports on the call that
spawns the work, and stays quiet when ``boundlint.analysis.limits`` finds a
concurrency limit.

One module per rule; ``spawn_limits`` holds what BND101-BND103 share.  The
audit collector reads ``spawn_limit``, ``region_loops``, ``new_awaitables``,
``_pool_size`` and ``UnboundedGather._bounded`` from here.
"""
from boundlint.analysis.spawns import new_awaitables
from boundlint.rules.fanout.spawn_limits import (
    Unbounded, awaited_in_iteration, region_loops, spawn_limit, unbounded_loop, unshared_limiter,
)
from boundlint.rules.fanout.unbounded_gather import UnboundedGather
from boundlint.rules.fanout.unbounded_task_spawn import UnboundedTaskSpawn
from boundlint.rules.fanout.thread_per_item import ThreadPerItem
from boundlint.rules.fanout.pool_sized_from_input import PoolSizedFromInput
from boundlint.rules.fanout.pool_sized_from_input import _pool_size  # noqa: F401 - the audit collector reads it

__all__ = [
    "PoolSizedFromInput", "ThreadPerItem", "Unbounded", "UnboundedGather", "UnboundedTaskSpawn", "awaited_in_iteration",
    "new_awaitables", "region_loops", "spawn_limit", "unbounded_loop", "unshared_limiter",
]
