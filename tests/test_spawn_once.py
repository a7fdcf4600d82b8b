"""Limits the spawn rules read from the code, and code that runs once by its own signs: exact verdicts."""
from __future__ import annotations

import ast

import libcst as cst

from boundlint import verdicts
from boundlint.analysis import limits
from boundlint.analysis.context import Loop
from boundlint.analysis.facts.once_flag import once_flag
from boundlint.analysis.facts.placement import ancestors_of
from boundlint.index import closures


def _loop(source: str) -> Loop:
    module = cst.parse_module(source)
    node = next(n for n in limits.iter_nodes(module, into_defs=True) if isinstance(n, cst.For))
    return Loop("for", node, node.iter, None, node)


def test_a_loop_that_leaves_when_no_slot_is_free_is_bounded_by_the_limiter():
    found = limits.capacity_stop(_loop(
        "for run in runs:\n    try:\n        tok = self.slots.acquire()\n    except WouldBlock:\n        break\n"
        "    tg.start_soon(submit, run, tok)\n"))
    assert (found.kind, found.why) == (
        verdicts.LOOP_SLOT, "stops when `self.slots` has no free slot: at most its capacity per run")
    found = limits.capacity_stop(_loop("for run in runs:\n    if not sem.acquire(blocking=False):\n        return\n"
                                       "    tg.start_soon(submit, run)\n"))
    assert found.why == "stops when `sem` has no free slot: at most its capacity per run"


def test_a_slot_released_in_the_loop_or_a_handler_that_goes_on_bounds_nothing():
    assert limits.capacity_stop(_loop(
        "for run in runs:\n    try:\n        sem.acquire_nowait()\n    except WouldBlock:\n        continue\n"
        "    tg.start_soon(submit, run)\n")) is None
    assert limits.capacity_stop(_loop(
        "for run in runs:\n    try:\n        sem.acquire_nowait()\n    except WouldBlock:\n        break\n"
        "    sem.release()\n    tg.start_soon(submit, run)\n")) is None


def _flag_at(source: str, marker: str) -> str | None:
    module = cst.parse_module(source)
    node = next(n for n in limits.iter_nodes(module, into_defs=True)
                if isinstance(n, cst.Call) and module.code_for_node(n.func) == marker)
    return once_flag([*ancestors_of(module, node)])


def test_the_once_flag_of_the_code_a_finding_sits_in():
    early = ("class S:\n    def start(self):\n        if self._started:\n            return\n"
             "        self._started = True\n        spawn_all()\n")
    assert _flag_at(early, "spawn_all") == "self._started"
    block = "def prepare():\n    global READY\n    if not READY:\n        migrate()\n        READY = True\n    after()\n"
    assert _flag_at(block, "migrate") == "READY"
    assert _flag_at(block, "after") is None  # after the guarded block: every call
    never_set = "class S:\n    def start(self):\n        if self._started:\n            return\n        spawn_all()\n"
    assert _flag_at(never_set, "spawn_all") is None


def test_once_spans_and_memoized_functions_in_the_index():
    tree = ast.parse("class S:\n    def start(self):\n        if self.up:\n            return\n        self.up = 1\n"
                     "        go()\n\n\n@functools.lru_cache(maxsize=None)\ndef load():\n    pass\n\n\n"
                     "@cache\ndef load_one(name):\n    pass\n")
    start = tree.body[0].body[0]
    assert closures.once_spans(start) == [[5, 6, "self.up"]]
    assert closures.memoized(tree.body[1], None) is True
    assert closures.memoized(tree.body[2], None) is False  # once per argument, not once
    assert closures.memoized(tree.body[1], ["object"]) is False  # a method: once per instance at best


def _spawn_limits(source: str, monkeypatch) -> list:
    from boundlint.config import Settings
    from boundlint.engine import check_source
    from boundlint.rules.fanout import unbounded_task_spawn

    seen = []
    real = unbounded_task_spawn.spawn_limit

    def spy(*args, **kwargs):
        result = real(*args, **kwargs)
        seen.append(result[1])
        return result
    monkeypatch.setattr(unbounded_task_spawn, "spawn_limit", spy)
    check_source(source, "m.py", Settings())
    return seen


def test_staggered_starts_and_an_and_ed_none_test_are_typed_limits(monkeypatch):
    staggered = ("import trio\n\nasync def connect(targets, delay):\n    async with trio.open_nursery() as n:\n"
                 "        for t in targets:\n            failed = trio.Event()\n            n.start_soon(attempt, t, failed)\n"
                 "            with trio.move_on_after(delay):\n                await failed.wait()\n")
    [found] = _spawn_limits(staggered, monkeypatch)
    assert (found.kind, found.why) == (
        verdicts.PACED, "each start waits for `failed`, which the task it started sets, before the next")
    single = ("import asyncio\n\nasync def relay(stream):\n    task = None\n    async for chunk in stream:\n"
              "        if chunk and task is None:\n            task = asyncio.create_task(finish(chunk))\n")
    [found] = _spawn_limits(single, monkeypatch)
    assert (found.kind, found.why) == (verdicts.SINGLE_FLIGHT, "one task at a time: started only while `task` holds none")


def test_a_reentrancy_guard_is_no_once_flag():
    busy = ("class S:\n    def flush(self):\n        if self._busy:\n            return\n        self._busy = True\n"
            "        try:\n            send_all()\n        finally:\n            self._busy = False\n")
    assert _flag_at(busy, "send_all") is None
    tree = ast.parse(busy)
    assert closures.once_spans(tree.body[0].body[0]) == []
    block = "def f():\n    if not self.ready:\n        self.ready = True\n        go()\n        self.ready = False\n"
    assert _flag_at(block, "go") is None
    assert closures.once_spans(ast.parse(block).body[0]) == []
