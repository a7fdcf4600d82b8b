"""What counts as a limit: the one place every rule family asks.

Each question returns a short description of the limit it found (used in
audit reports and tests), or None when nothing bounds the quantity:

- ``constant(expr)``: is a number fixed in the code (literals, UPPER_CASE
  names, ``min(x, N)``)?
- ``source_limit(expr)``: is an iterable of bounded size (a literal,
  ``range(N)``, ``xs[:N]``, ``islice(xs, N)``, a fixed-size batch, a name
  checked by a dominating ``len`` guard)?
- ``loop_limit(loop)``: does a loop run a bounded number of times (also: it leaves
  when a limiter has no free slot, ``capacity_stop``)?
- ``callee_limit(def)``: does a spawned function acquire a semaphore or
  capacity limiter before its work?
- ``loop_backpressure(loop, site)``: does the loop wait for capacity
  before spawning (``await sem.acquire()``, ``if len(pending) >= N: await
  wait(...)``, a limiter ``with`` around the spawn)?
- ``size_from_input(expr)``: is a pool or semaphore size computed from
  the input's length (here, or by a caller in any module: ``size_chain``
  gives that caller's evidence)?
"""
from __future__ import annotations

from boundlint.analysis.limits.callers import callers_size_chain, size_chain
from boundlint.analysis.limits.limiters import (
    callee_limit, configured_limiter, is_limiter, iter_nodes, loop_backpressure, passed_limiter, project_limiter,
)
from boundlint.analysis.limits.loops import capacity_stop, loop_limit
from boundlint.analysis.limits.sources import (
    LIMITER_CLASS_NAMES, LIMITER_TYPES, batch_limit, checked_in_body, constant, guarded, is_upper,
    size_from_input, source_limit, teardown_call, walked_whole,
)

__all__ = [
    "LIMITER_CLASS_NAMES", "LIMITER_TYPES", "batch_limit", "capacity_stop", "callee_limit", "callers_size_chain", "checked_in_body",
    "configured_limiter", "constant", "guarded", "is_limiter", "is_upper", "iter_nodes", "loop_backpressure",
    "loop_limit", "passed_limiter", "project_limiter", "size_chain", "size_from_input", "source_limit", "teardown_call", "walked_whole",
]
