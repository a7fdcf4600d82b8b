"""Background work runs on one fixed-size pool per process."""
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

EXPORT_WORKERS = 4

_pool = ThreadPoolExecutor(max_workers=EXPORT_WORKERS, thread_name_prefix="export")


def run_in_background(fn: Callable[..., Any], *args: Any) -> Future:
    return _pool.submit(fn, *args)
