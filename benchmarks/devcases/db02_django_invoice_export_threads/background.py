"""Fire-and-forget helper for work that should not block the request."""
import threading
from typing import Any, Callable


def run_in_background(fn: Callable[..., Any], *args: Any) -> None:
    threading.Thread(target=fn, args=args, daemon=True, name=f"bg-{fn.__name__}").start()  # expect: FANOUT
