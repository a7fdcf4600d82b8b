"""Typed verdicts: a Limit carries its kind, its prose and where it lives, through pickling too."""
from __future__ import annotations

import pickle

import libcst as cst

from boundlint import verdicts
from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.config import Settings
from boundlint.verdicts import Limit, kind_of


def _limit(expr: str):
    module = cst.parse_module(f"x = {expr}\n")
    ctx = Context("m.py", module, Settings())
    return limits.source_limit(module.body[0].body[0].value, ctx)


def test_limit_is_its_prose_with_a_kind():
    found = Limit(verdicts.LIMITER, "a limiter in `slot` (app/limits.py:9)", "app/limits.py:9")
    assert (found.kind, found.why, found.where, str(found)) == (
        verdicts.LIMITER, "a limiter in `slot` (app/limits.py:9)", "app/limits.py:9", "a limiter in `slot` (app/limits.py:9)")
    again = pickle.loads(pickle.dumps(found))
    assert (type(again), again.kind, again.where, again) == (Limit, found.kind, found.where, found)
    assert kind_of(None) is None and kind_of("prose") is None


def test_source_limits_are_typed():
    assert kind_of(_limit("[1, 2, 3]")) == verdicts.LITERAL
    assert kind_of(_limit("range(8)")) == verdicts.CONSTANT_RANGE
    assert kind_of(_limit("ids[:50]")) == verdicts.SLICE
    assert kind_of(_limit("itertools.batched(ids, 50)")) is None  # batches bound each batch, not the source
    assert limits.batch_limit(cst.parse_expression("batched(ids, 50)"), Context("m.py", cst.parse_module(""), Settings())).kind \
        == verdicts.BATCHES
    assert _limit("ids") is None


def test_storm_and_spawn_limits_are_typed(monkeypatch):
    from boundlint.engine import check_source
    from boundlint.rules.amplification import log_storms
    from boundlint.rules.fanout import unbounded_task_spawn

    seen = []

    def spy(module, name):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            result = real(*args, **kwargs)
            seen.append(result[1] if isinstance(result, tuple) else result)
            return result
        monkeypatch.setattr(module, name, wrapper)

    spy(log_storms, "loop_storm_limit")
    spy(unbounded_task_spawn, "spawn_limit")
    source = (
        "import asyncio, logging\nlog = logging.getLogger(__name__)\n\n"
        "def push(client, rows):\n    for row in rows:\n        try:\n            client.send(row)\n"
        "        except ConnectionError:\n            log.error('push failed')\n            raise\n\n"
        "async def refresh(stream, client):\n    task = None\n    async for m in stream:\n"
        "        if task is None:\n            task = asyncio.create_task(client.get(m))\n"
    )
    check_source(source, "m.py", Settings())
    kinds = {kind_of(v) for v in seen if v is not None}
    assert {verdicts.EXITS, verdicts.SINGLE_FLIGHT} <= kinds
