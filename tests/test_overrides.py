"""A placeholder method called on ``self`` is judged by the project's overrides of it.

``index.queries.overrides`` reads the subclasses of a class in every module
of the project; ``analysis.facts.overrides.overridden`` turns its answer into the
verdict BND3xx's failure reading uses for ``await self._handle(item)``.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

from conftest import FIXTURES, project_index

from boundlint.index import queries
from boundlint.index.queries.overrides import subclasses

BASE = '''\
import abc


class Sink(abc.ABC):
    async def run(self, items):
        for item in items:
            await self.put(item)

    @abc.abstractmethod
    async def put(self, item):
        ...


class Middle(Sink):
    async def put(self, item):
        raise NotImplementedError


class Lonely(abc.ABC):
    def handle(self, item):
        raise NotImplementedError


class Guarded(abc.ABC):
    async def flush(self, batch):
        """Filled in below."""
'''

SINKS = '''\
import orjson

from app.base import Guarded, Middle, Sink
from app.util import prepare


class HttpSink(Middle):
    async def put(self, item):
        await self._http_client.post("/items", json=item)


class QuietSink(Sink):
    async def put(self, item):
        try:
            await self._http_client.post("/items", json=item)
        except Exception:
            pass


class Absorbing(Guarded):
    async def flush(self, batch):
        body = orjson.dumps(batch)
        try:
            await self._http_client.post("/batch", content=body)
        except Exception:
            self.failed += 1


class Opaque(Guarded):
    async def flush(self, batch):
        try:
            await self._http_client.post("/batch", json=batch)
        except Exception:
            pass
        await prepare(batch)
'''

UTIL = '''\
import orjson


async def prepare(batch):
    return orjson.dumps(batch)
'''

TEST_DOUBLE = '''\
from app.base import Lonely


class FakeLonely(Lonely):
    def handle(self, item):
        self.seen.append(item)
'''


def _index(tmp_path, monkeypatch, **extra: str):
    return project_index(tmp_path, monkeypatch, {"app/__init__.py": "", "app/base.py": BASE, "app/sinks.py": SINKS,
                                                 "app/util.py": UTIL, "tests/__init__.py": "",
                                                 "tests/test_fakes.py": TEST_DOUBLE, **extra})


def test_subclasses_maps_each_project_class_to_its_direct_subclasses_outside_tests(tmp_path, monkeypatch):
    index = _index(tmp_path, monkeypatch)
    found = {key: sorted(name for _, name in subs) for key, subs in subclasses(index).items()}
    assert found == {"app.base.Sink": ["Middle", "QuietSink"], "app.base.Middle": ["HttpSink"],
                     "app.base.Guarded": ["Absorbing", "Opaque"]}  # FakeLonely is test code: left out


def test_an_override_that_lets_the_failure_out_decides_through_a_placeholder_override(tmp_path, monkeypatch):
    index = _index(tmp_path, monkeypatch)
    # Middle.put only raises NotImplementedError: passed through to HttpSink below it
    assert queries.overrides(index, "app.base.Sink", "put") == [
        "yes", "`self._http_client.post()` in `HttpSink.put` (app/sinks.py:9)"]


def test_every_override_absorbing_is_no_and_names_them(tmp_path, monkeypatch):
    index = _index(tmp_path, monkeypatch, **{"app/sinks.py": SINKS.split("\n\nclass Opaque")[0] + "\n"})
    # orjson.dumps, outside the try, is out of the project (its answer is unknown) and not awaited: the post decides
    assert queries.overrides(index, "app.base.Guarded", "flush") == ["no", "`Absorbing.flush` (app/sinks.py:21)"]


def test_an_override_of_unknown_effect_or_none_at_all_is_unknown(tmp_path, monkeypatch):
    index = _index(tmp_path, monkeypatch)
    assert queries.overrides(index, "app.base.Guarded", "flush") is None  # Opaque awaits prepare(), of unknown effect, outside its try
    assert queries.overrides(index, "app.base.Lonely", "handle") is None  # only a test double overrides it
    assert queries.overrides(index, "app.base.Nowhere", "handle") is None  # no such class


def test_outbox_severity_reasons_name_the_override_in_its_module(tmp_path):
    """The project fixture, checked whole: each BND301 says which override, in which module, decides it."""
    shutil.copytree(FIXTURES / "projects" / "outbox", tmp_path / "outbox")
    proc = subprocess.run([sys.executable, "-m", "boundlint", "check", "--isolated", "--no-cache", "--format", "json",
                           "--min-severity", "low", "outbox/base.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    none = "the per-item work calls no external dependency"
    assert [(f["line"], f["code"], f["severity"], f["severity_reason"]) for f in json.loads(proc.stdout)] == [
        (18, "BND301", "medium", "per item: `self._http_client.post()` in `WebhookService.deliver` (outbox/senders.py:9)"),
        (32, "BND301", "low", none),  # AuditBatcher.flush absorbs its post's failure; the poll is out of the try
        (45, "BND301", "medium", "per item: `self._http_client.post()` in `LoudFanout.handle_event` (outbox/senders.py:31)"),
        (58, "BND301", "medium", "per item: awaits `self._inbox.get()`"),  # no override: the poll keeps it
        (72, "BND301", "low", none),  # the try parses: a failing poll never reaches its handler
    ]
