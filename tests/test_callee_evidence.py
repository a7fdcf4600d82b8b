"""Evidence inside a callee in another module: it absorbs its failures, pools its work, or holds a slot.

The index records, per function, which calls a catch-all ``try`` absorbs, which
calls are awaited and which hand work to a thread pool; the queries
``failing_dependency``, ``pooled`` and ``limiter`` follow them across modules.
"""
from __future__ import annotations

from conftest import project_index

from boundlint.index import queries
from boundlint.index.summary import summarize

BLOBS = '''\
import asyncio
import logging

import requests

log = logging.getLogger(__name__)


def fetch_image(url):
    try:
        return requests.get(url, timeout=5).content
    except:
        log.exception("cannot fetch %s", url)
        return None


def fetch_image_or_fail(url):
    try:
        return requests.get(url, timeout=5).content
    except Exception as exc:
        log.error("cannot fetch %s", url)
        raise LookupError(url) from exc


def thumbnail(url):
    return fetch_image(url)[:64]


class Threaded:
    async def read(self, key):
        return await asyncio.to_thread(lambda: self._s3.get_object(Key=key))

    async def read_twice(self, key):
        await asyncio.to_thread(lambda: self._s3.get_object(Key=key))
        return await self.http.get(key)


BLOBS = Threaded()


async def read_meta(key):
    blob = await BLOBS.read(key)
    return blob["Metadata"]


async def read_meta_of_meta(key):
    return await read_meta(key)


async def read_all(keys):
    return await asyncio.gather(*(asyncio.to_thread(str, k) for k in keys))
'''

SLOTS = '''\
import asyncio

import httpx

_SLOTS = asyncio.Semaphore(8)
client = httpx.AsyncClient()


async def post_slotted(path, payload):
    async with _SLOTS:
        return await client.post(path, json=payload)


async def notify(payload):
    response = await post_slotted("/notify", payload)
    return response.status_code


async def notify_and_audit(payload):
    await post_slotted("/notify", payload)
    await client.post("/audit", json=payload)


async def notify_twice_removed(payload):
    return await notify(payload)
'''


def _index(tmp_path, monkeypatch):
    return project_index(tmp_path, monkeypatch, {"app/__init__.py": "", "app/blobs.py": BLOBS, "app/slots.py": SLOTS})


def test_summary_marks_absorbed_and_awaited_calls_and_pool_handoffs():
    facts = summarize(BLOBS, "app.blobs", False)["functions"]
    assert facts["fetch_image"]["dep"] == ["`requests.get()`", 11]
    assert facts["fetch_image"]["dep_out"] is None  # the bare except logs and returns: nothing reaches the caller
    assert facts["fetch_image_or_fail"]["dep_out"] == ["`requests.get()`", 19]  # its handler raises again
    assert [(c["ref"], c.get("absorbed", False)) for c in facts["fetch_image"]["calls"]] == [
        ("requests.get", True), ("app.blobs.log.exception", False)]
    assert facts["Threaded.read"]["pool"] == ["`asyncio.to_thread()`", 31]
    assert (facts["Threaded.read"]["async"], facts["Threaded.read"]["pool_other"]) == (True, False)
    assert facts["Threaded.read_twice"]["pool_other"] is True  # awaits an http call of its own
    assert facts["read_all"]["pool_other"] is True  # gathers other awaitables
    assert [(c["ref"], c.get("awaited", False)) for c in facts["read_meta"]["calls"]] == [("app.blobs.BLOBS.read", True)]
    assert (facts["thumbnail"]["async"], facts["thumbnail"]["pool"]) == (False, None)


def test_failing_dependency_stops_at_a_catch_all_that_does_not_raise(tmp_path, monkeypatch):
    index = _index(tmp_path, monkeypatch)
    assert queries.dependency(index, "app.blobs.fetch_image") == "`requests.get()` in `fetch_image` (app/blobs.py:11)"
    assert queries.failing_dependency(index, "app.blobs.fetch_image") == ""
    assert queries.failing_dependency(index, "app.blobs.thumbnail") == ""  # one call further down
    assert queries.failing_dependency(index, "app.blobs.fetch_image_or_fail") == (
        "`requests.get()` in `fetch_image_or_fail` (app/blobs.py:19)")


def test_pooled_follows_awaits_through_module_instances_two_calls_down(tmp_path, monkeypatch):
    index = _index(tmp_path, monkeypatch)
    read = "`asyncio.to_thread()` in `Threaded.read` (app/blobs.py:31)"
    assert queries.pooled(index, "app.blobs.BLOBS.read") == read  # a method of a module-level instance
    assert queries.pooled(index, "app.blobs.read_meta") == read
    assert queries.pooled(index, "app.blobs.read_meta_of_meta") is None  # three calls down: too far
    assert queries.pooled(index, "app.blobs.BLOBS.read_twice") is None
    assert queries.pooled(index, "app.blobs.thumbnail") is None  # no coroutine


def test_limiter_one_call_below_only_when_every_dependency_call_waits(tmp_path, monkeypatch):
    index = _index(tmp_path, monkeypatch)
    assert queries.limiter(index, "app.slots.post_slotted") == "a limiter in `post_slotted` (app/slots.py:9)"
    assert queries.limiter(index, "app.slots.notify") == "a limiter in `post_slotted` (app/slots.py:9)"
    assert queries.limiter(index, "app.slots.notify_and_audit") is None  # the audit post takes no slot
    assert queries.limiter(index, "app.slots.notify_twice_removed") is None  # two calls below: not followed


def test_media_service_severity_reasons_name_the_callee_in_its_module(tmp_path):
    """The project fixture, checked whole: each low finding says which callee, in which module, bounds it."""
    import json
    import shutil
    import subprocess
    import sys

    from conftest import FIXTURES

    shutil.copytree(FIXTURES / "projects" / "media_service", tmp_path / "media_service")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "--format", "json",
                           "--min-severity", "low", "media_service/jobs.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    pool = ("low", "each item's work runs on a thread pool of fixed size "
                   "(`asyncio.to_thread() in ThreadedBlobs.read (media_service/blobs.py:19)`)")
    assert [(f["line"], f["code"], f["severity"], f["severity_reason"]) for f in json.loads(proc.stdout)] == [
        (20, "BND301", "low", "the per-item work calls no external dependency"),
        (30, "BND301", "medium", "per item: `http.get()` in `fetch_image_or_fail` (media_service/blobs.py:45)"),
        (36, "BND101", *pool),
        (40, "BND101", *pool),
        (44, "BND101", "medium", "per item: `self._http.post()` in `ThreadedBlobs.read_and_touch` (media_service/blobs.py:23)"),
        (61, "BND101", "medium", "per item: `client.post()` in `notify_and_audit` (media_service/slots.py:22)"),
    ]
