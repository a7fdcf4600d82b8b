"""Coroutines handed to a task of their own: their failure never reaches the code that spawned them.

``asyncio.create_task(self.run(item))`` builds the coroutine here, but its body
runs in another task; an exception it raises is stored on that task and
raised only where the task is awaited.  So a ``try`` around the spawn (or a
loop pass that spawns) does not see the coroutine's dependency fail, unless
the same code waits on a task: awaits something other than a call (``await
task``), or gathers or waits on tasks (``gather``, ``wait``, ``wait_for``,
``shield``, ``as_completed``).  Pure reading of LibCST nodes.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted
from boundlint.analysis.facts.walk import kids

# calls that hand a coroutine to a task of its own (`asyncio.create_task`, `loop.create_task`,
# `TaskGroup.create_task`, `asyncio.ensure_future`)
_SPAWNS = frozenset({"create_task", "ensure_future"})
# calls that wait on tasks already made: a task's failure is raised there
_WAITS = frozenset({"gather", "wait", "wait_for", "shield", "as_completed"})


def _last(call: cst.Call) -> str:
    return (dotted(call.func) or "").rsplit(".", 1)[-1]


def spawned_elsewhere(node: cst.CSTNode) -> set[int]:
    """The ids of the coroutine calls under *node* that are handed to a task of their own
    (``create_task(fetch(x))``, the spawn not awaited) while *node* waits on no task: their bodies
    run, and fail, in that task.  Empty when *node* awaits anything but a call or calls one of
    ``gather`` / ``wait`` / ``wait_for`` / ``shield`` / ``as_completed``.  Nested defs are not read."""
    found: set[int] = set()
    awaited: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Await):
            if not isinstance(n.expression, cst.Call):
                return set()  # `await task`: a spawned task's failure comes back here
            awaited.add(id(n.expression))
        if isinstance(n, cst.Call):
            last = _last(n)
            if last in _WAITS:
                return set()
            if last in _SPAWNS and id(n) not in awaited:
                first = next((a.value for a in n.args if a.keyword is None and not a.star), None)
                if isinstance(first, cst.Call):
                    found.add(id(first))
        if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and n is not node:
            continue
        stack.extend(reversed(kids(n)))
    return found
