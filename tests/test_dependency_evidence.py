"""Does the per-item work reach a dependency? Evidence the code shows, exact verdicts and reasons."""
from __future__ import annotations

import shutil
import textwrap

import libcst as cst

from boundlint.analysis.context import Context
from boundlint.config import Settings
from boundlint.engine import check_source
from boundlint.kinds import calls
from boundlint.analysis.facts import receivers
from boundlint.index.build import index_for
from boundlint.index.queries import QUERIES
from conftest import FIXTURES


def _reasons(source: str) -> dict[int, tuple[str, str]]:
    found = check_source(textwrap.dedent(source), "svc/jobs.py", Settings(min_severity="low"))
    return {f.line: (f.severity, f.severity_reason) for f in found if f.code == "BND301"}


def test_role_words_name_the_receiver_only_as_its_head_noun():
    assert calls.receiver_reaches("group.upstream_group_ids") is False
    assert calls.receiver_reaches("upstream") is True
    assert calls.receiver_reaches("self.http_client") is True
    assert calls.receiver_reaches("self.session_factory") is False
    assert calls.receiver_reaches("self.redis_url") is True  # a product word counts anywhere
    assert calls.receiver_reaches("DB_CLIENT") is True
    assert calls.receiver_reaches("API_ROUTES") is False
    assert calls.classify(None, "group.upstream_group_ids", "update") == calls.LOCAL
    assert calls.classify(None, "upstream", "update") == calls.DEPENDENCY
    assert calls.classify(None, "self._queue", "put_nowait") == calls.LOCAL  # an in-process queue's method


def _context(source: str) -> tuple[Context, cst.FunctionDef]:
    module = cst.parse_module(textwrap.dedent(source))
    ctx = Context("svc/jobs.py", module, Settings())
    for stmt in module.body:
        if isinstance(stmt, (cst.SimpleStatementLine,)):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    ctx.names.add_import(small)
                elif isinstance(small, cst.ImportFrom):
                    ctx.names.add_import_from(small)
    return ctx, next(s for s in module.body if isinstance(s, cst.FunctionDef))


def _shown(found) -> tuple[str, str] | None:
    if found is None:
        return None
    return found[0], (cst.Module([]).code_for_node(found[1]) if found[0] == receivers.CLASS else found[1])


def test_what_the_bindings_show_a_receiver_is():
    ctx, func = _context("""
        from pathlib import Path

        def walk(names, root: Path, cache: "Cache | None" = None):
            dirs = [Path(n) for n in names]
            worker: Worker | None = None
            for d in dirs:
                for path in d.rglob("*.py"):
                    worker = Worker.instance()
                    plain = make_thing()
    """)
    assert _shown(receivers.shown("root", [func], ctx, None)) == ("class", "Path")
    assert _shown(receivers.shown("d", [func], ctx, None)) == ("class", "Path")
    assert _shown(receivers.shown("path", [func], ctx, None)) == ("stdlib", "d.rglob()")
    assert _shown(receivers.shown("worker", [func], ctx, None)) == ("class", "Worker")  # the annotation decides
    assert receivers.shown("plain", [func], ctx, None) is None  # a lower-case function shows no class
    assert receivers.shown("names", [func], ctx, None) is None
    assert receivers.stdlib_class(cst.Name("Path"), ctx) is True


def test_a_method_called_through_its_class_name_is_read():
    reasons = _reasons("""
        import logging
        import httpx

        log = logging.getLogger(__name__)

        class Job:
            async def run(self, rows):
                for row in rows:
                    try:
                        await Job._reset(row)
                    except Exception:
                        log.exception("cannot reset %s", row)

            async def push(self, rows):
                for row in rows:
                    try:
                        await Job._push(row)
                    except Exception:
                        log.exception("cannot push %s", row)

            @staticmethod
            async def _reset(row):
                row.spent = 0

            @staticmethod
            async def _push(row):
                await httpx.AsyncClient().post("/rows", json=row)
    """)
    assert reasons[13] == ("low", "the per-item work calls no external dependency")
    assert reasons[20] == ("medium", "per item: `post()` in `_push()`")


def test_an_os_error_says_nothing_when_the_try_works_on_local_files():
    reasons = _reasons("""
        import logging
        import os
        from urllib.request import urlopen

        log = logging.getLogger(__name__)

        def remove(paths):
            for path in paths:
                try:
                    os.remove(path)
                except OSError:
                    log.warning("gone: %s", path)

        def probe(urls):
            for url in urls:
                try:
                    urlopen(url)
                except OSError:
                    log.warning("down: %s", url)

        def unknown(items, store):
            for item in items:
                try:
                    store.keep(item)
                except OSError:
                    log.warning("cannot keep %s", item)
    """)
    assert reasons[13] == ("low", "the per-item work calls no external dependency")
    assert reasons[20] == ("medium", "per item: catches `OSError`")
    assert reasons[27] == ("medium", "per item: catches `OSError`")  # not shown local: the catch still counts


def test_a_catch_all_after_a_handler_that_reraises_the_dependency_errors_is_per_item():
    reasons = _reasons("""
        import logging
        from sqlalchemy.exc import DBAPIError

        log = logging.getLogger(__name__)

        def schedule(runs, session):
            for run in runs:
                try:
                    session.execute(run)
                except DBAPIError:
                    raise
                except Exception:
                    log.exception("cannot schedule %s", run)

        def schedule_retrying(runs, session):
            for run in runs:
                try:
                    session.execute(run)
                except DBAPIError:
                    session.rollback()
                except Exception:
                    log.exception("cannot schedule %s", run)
    """)
    assert reasons[14] == ("low", "an earlier handler re-raises `DBAPIError`: the handler sees only per-item faults")
    assert reasons[23] == ("medium", "per item: `session.execute()`")


def test_a_reraised_error_status_leaves_the_connection_errors_to_the_catch_all():
    reasons = _reasons("""
        import logging
        import aiohttp

        log = logging.getLogger(__name__)

        async def push(filters, session):
            for item in filters:
                try:
                    await session.post(item.url)
                except aiohttp.ClientResponseError:
                    raise
                except Exception:
                    log.exception("cannot push %s", item)

        async def push_all(filters, session):
            for item in filters:
                try:
                    await session.post(item.url)
                except aiohttp.ClientError:
                    raise
                except Exception:
                    log.exception("cannot push %s", item)
    """)
    assert reasons[14] == ("medium", "per item: `session.post()`")
    assert reasons[23] == ("low", "an earlier handler re-raises `aiohttp.ClientError`: the handler sees only per-item faults")


def test_the_index_reads_inherited_and_instance_methods(tmp_path):
    shutil.copytree(FIXTURES / "projects" / "event_relay", tmp_path / "event_relay")
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    index = index_for(str(tmp_path / "event_relay" / "relay.py"))
    defined, dependency = QUERIES["defined"], QUERIES["dependency"]
    assert defined(index, "event_relay.services.EventWorker.send") == ["event_relay.services.EventWorker.send", True]
    # `super().send()` is the first base's method, read where it is defined
    assert dependency(index, "event_relay.services.EventWorker.send") == ""
    assert defined(index, "event_relay.registry.REGISTRY.sync_entry") == ["event_relay.registry.Registry.sync_entry", True]
    assert dependency(index, "event_relay.registry.REGISTRY.sync_entry") is None  # read; `yaml` is out of sight
    assert dependency(index, "event_relay.services.Forwarder.send") == (
        "`httpx.post()` in `Forwarder.send` (" + _rel(tmp_path / "event_relay" / "services.py") + ":31)")
    assert defined(index, "event_relay.services.EventWorker.missing") is None
    assert defined(index, "event_relay.services.Sink.write") is None  # an abstract placeholder shows nothing
    assert defined(index, "httpx.post") is None


def _rel(path) -> str:
    import os

    return os.path.relpath(path).replace(os.sep, "/")
