"""A decorator whose wrapper enters a shared limiter limits what it decorates: in one module and across modules."""
from __future__ import annotations

import libcst as cst

from conftest import project_index

from boundlint.analysis.context import Context
from boundlint.analysis.limits.decorated import Wrapped, decorator_limit, wrapped_limiter
from boundlint.config import Settings
from boundlint.index import queries
from boundlint.index.summary import summarize
from boundlint.verdicts import LIMITER

LIMITS = '''\
import asyncio
import functools

SLOTS = asyncio.Semaphore(8)


def bounded(limit: int):
    gate = asyncio.Semaphore(limit)

    def decorate(fn):
        @functools.wraps(fn)
        async def limited(*args, **kwargs):
            async with gate:
                return await fn(*args, **kwargs)

        return limited

    return decorate


def pooled(fn):
    async def limited(*args, **kwargs):
        await SLOTS.acquire()
        try:
            return await fn(*args, **kwargs)
        finally:
            SLOTS.release()

    return limited


def holding(gate):
    def decorate(fn):
        async def limited(*args, **kwargs):
            async with gate:
                return await fn(*args, **kwargs)

        return limited

    return decorate


def fresh(limit: int):
    def decorate(fn):
        async def limited(*args, **kwargs):
            gate = asyncio.Semaphore(limit)
            async with gate:
                return await fn(*args, **kwargs)

        return limited

    return decorate


def measured(items):
    gate = asyncio.Semaphore(len(items))

    def decorate(fn):
        async def limited(*args, **kwargs):
            async with gate:
                return await fn(*args, **kwargs)

        return limited

    return decorate


def traced(fn):
    async def logged(*args, **kwargs):
        print(fn.__name__)
        return await fn(*args, **kwargs)

    return logged


from contextlib import asynccontextmanager, suppress


@asynccontextmanager
async def slot():
    async with SLOTS:
        yield


@asynccontextmanager
async def span():
    yield


def quiet(fn):
    async def limited(*args, **kwargs):
        with suppress(KeyError):
            async with SLOTS:
                return await fn(*args, **kwargs)

    return limited


def slotted(fn):
    async def limited(*args, **kwargs):
        async with span(), slot():
            return await fn(*args, **kwargs)

    return limited


def spanned(fn):
    async def limited(*args, **kwargs):
        async with span():
            return await fn(*args, **kwargs)

    return limited


async def gather_bounded(items):
    gate = asyncio.Semaphore(4)

    async def run(item):
        async with gate:
            return await item

    return await asyncio.gather(*(run(i) for i in items))
'''

CLIENTS = '''\
import httpx

from app import limits
from app.limits import SLOTS, bounded, fresh, holding, pooled, traced

client = httpx.AsyncClient()
NOT_A_LIMITER = 3


@bounded(10)
async def quote(sku):
    return await client.get(sku)


@limits.bounded(limit=4)
async def discount(sku):
    return await client.get(sku)


@pooled
async def stock(sku):
    return await client.get(sku)


@holding(SLOTS)
async def tax(sku):
    return await client.get(sku)


@holding(NOT_A_LIMITER)
async def photo(sku):
    return await client.get(sku)


@fresh(10)
async def history(sku):
    return await client.get(sku)


@traced
async def reviews(sku):
    return await client.get(sku)


async def line_total(sku):
    return await quote(sku)
'''


def test_summary_records_wrapper_limiters_and_decorations():
    facts = summarize(LIMITS, "app.limits", False)["functions"]
    assert facts["bounded"]["wraps_limiter"] == {
        "wrapper": "limited", "line": 12, "sized_by": ["limit"], "param": None, "via": None}
    assert facts["pooled"]["wraps_limiter"] == {"wrapper": "limited", "line": 22, "sized_by": [], "param": None, "via": None}
    assert facts["holding"]["wraps_limiter"] == {"wrapper": "limited", "line": 34, "sized_by": [], "param": "gate", "via": None}
    assert "wraps_limiter" not in facts["fresh"]  # a semaphore per call bounds nothing
    assert "wraps_limiter" not in facts["measured"]  # one slot per item of what the factory measures
    assert "wraps_limiter" not in facts["traced"]
    assert facts["quiet"]["wraps_limiter"]["via"] is None  # the semaphore inside `with suppress(...)` wins
    assert facts["slotted"]["wraps_limiter"]["via"] == ["app.limits.span", "app.limits.slot"]
    assert facts["spanned"]["wraps_limiter"]["via"] == ["app.limits.span"]
    assert "wraps_limiter" not in facts["gather_bounded"]  # it returns no def it nests: no decorator
    assert "wraps_limiter" not in facts["slot"]
    clients = summarize(CLIENTS, "app.clients", False)["functions"]
    assert clients["quote"]["decorated"] == [{"ref": "app.limits.bounded", "args": [None], "keywords": {}}]
    assert clients["discount"]["decorated"] == [{"ref": "app.limits.bounded", "args": [], "keywords": {"limit": None}}]
    assert clients["tax"]["decorated"] == [{"ref": "app.limits.holding", "args": ["app.limits.SLOTS"], "keywords": {}}]
    assert clients["stock"]["decorated"] == [{"ref": "app.limits.pooled", "args": [], "keywords": {}}]
    assert "decorated" not in clients["line_total"]


def _index(tmp_path, monkeypatch):
    return project_index(tmp_path, monkeypatch, {"app/__init__.py": "", "app/limits.py": LIMITS, "app/clients.py": CLIENTS})


def test_limiter_query_follows_decorations_across_modules(tmp_path, monkeypatch):
    index = _index(tmp_path, monkeypatch)
    assert queries.wrapped_limiter(index, "app.limits.bounded") == {
        "wrapper": "limited", "where": "app/limits.py:12", "sized_by": ["limit"], "param": None, "params": ["limit"]}
    assert queries.wrapped_limiter(index, "app.limits.fresh") is None
    assert queries.wrapped_limiter(index, "app.limits.slotted")["where"] == "app/limits.py:100"  # slot() enters SLOTS
    assert queries.wrapped_limiter(index, "app.limits.spanned") is None  # span() enters nothing
    bounded = "a limiter in `limited` of decorator `bounded` (app/limits.py:12)"
    assert queries.limiter(index, "app.clients.quote") == bounded
    assert queries.limiter(index, "app.clients.discount") == bounded  # @limits.bounded(limit=4)
    assert queries.limiter(index, "app.clients.stock") == "a limiter in `limited` of decorator `pooled` (app/limits.py:22)"
    assert queries.limiter(index, "app.clients.tax") == "a limiter in `limited` of decorator `holding` (app/limits.py:34)"
    assert queries.limiter(index, "app.clients.photo") is None  # the decoration passes no limiter
    assert queries.limiter(index, "app.clients.history") is None
    assert queries.limiter(index, "app.clients.reviews") is None
    assert queries.limiter(index, "app.clients.line_total") == bounded  # it awaits quote(), one call down


SINGLE = LIMITS + '''

def throttled(fn):
    gate = threading.BoundedSemaphore(2)

    def call(*args, **kwargs):
        with gate:
            return fn(*args, **kwargs)

    return call


@throttled
def push(item):
    return item


@bounded(10)
async def quote(sku):
    return sku


@bounded(len(ids))
async def per_item(sku):
    return sku


@holding(SLOTS)
async def tax(sku):
    return sku


@holding(None)
async def photo(sku):
    return sku


@fresh(10)
async def history(sku):
    return sku


@traced
async def reviews(sku):
    return sku
'''


def test_decorator_limit_in_one_module():
    module = cst.parse_module(SINGLE)
    ctx = Context("m.py", module, Settings())
    funcs = ctx.index.functions
    assert wrapped_limiter(funcs["bounded"], ctx) == Wrapped("limited", ("limit",))
    assert wrapped_limiter(funcs["holding"], ctx) == Wrapped("limited", param="gate")
    assert wrapped_limiter(funcs["pooled"], ctx) == Wrapped("limited")
    assert wrapped_limiter(funcs["fresh"], ctx) is None
    assert wrapped_limiter(funcs["measured"], ctx) is None
    assert wrapped_limiter(funcs["traced"], ctx) is None
    assert wrapped_limiter(funcs["quiet"], ctx) == Wrapped("limited")
    assert wrapped_limiter(funcs["spanned"], ctx) is None
    assert wrapped_limiter(funcs["gather_bounded"], ctx) is None
    assert decorator_limit(funcs["push"], ctx) == "a limiter in `call` of decorator `throttled`"  # a thread's `with`
    index_facts = summarize(SINGLE, "app.single", False)["functions"]  # the index reads the same
    assert index_facts["throttled"]["wraps_limiter"] == {
        "wrapper": "call", "line": 128, "sized_by": [], "param": None, "via": None}
    assert index_facts["push"]["decorated"] == [{"ref": "app.single.throttled", "args": [], "keywords": {}}]
    found = decorator_limit(funcs["quote"], ctx)
    assert (found.kind, found.why) == (LIMITER, "a limiter in `limited` of decorator `bounded`")
    assert decorator_limit(funcs["tax"], ctx) == "a limiter in `limited` of decorator `holding`"
    assert decorator_limit(funcs["per_item"], ctx) is None  # sized from the input's length
    assert decorator_limit(funcs["photo"], ctx) is None  # None is no limiter
    assert decorator_limit(funcs["history"], ctx) is None
    assert decorator_limit(funcs["reviews"], ctx) is None
