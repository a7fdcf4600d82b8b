"""The BND3xx / BND4xx analysis options reach their rules: logger-names, rate-limited-loggers, client-factories."""
from __future__ import annotations

from boundlint.config import Settings
from boundlint.engine import check_source

LOOP_LOG = """\
import logging

log = logging.getLogger(__name__)


def drain(rows, audit):
    for row in rows:
        try:
            store(row)
        except ConnectionError:
            audit.error("bad row %s", row)
            log.error("bad row %s", row)
"""

LOOP_CLIENT = """\
from app.net import make_client


def run_jobs(jobs):
    for job in jobs:
        client = make_client(job.host)
        client.send(job)
"""


def _codes(text: str, **options: tuple[str, ...]) -> list[tuple[int, str]]:
    extra = tuple(sorted((name.replace("_", "-"), value) for name, value in options.items()))
    return [(f.line, f.code) for f in check_source(text, "m.py", Settings(extra=extra))]


def test_logger_names_adds_a_logger():
    assert _codes(LOOP_LOG) == [(12, "BND301")]
    assert _codes(LOOP_LOG, logger_names=("audit",)) == [(11, "BND301"), (12, "BND301")]


def test_rate_limited_loggers_silences_a_logger():
    assert _codes(LOOP_LOG, rate_limited_loggers=("log",)) == []
    assert _codes(LOOP_LOG, logger_names=("audit",), rate_limited_loggers=("audit",)) == [(12, "BND301")]


def test_client_factories_adds_a_constructor():
    assert _codes(LOOP_CLIENT) == []
    assert _codes(LOOP_CLIENT, client_factories=("app.net.make_client",)) == [(6, "BND401")]


def test_migrations_are_not_a_hot_path():
    # A data migration runs once per deployment: a line per bad row is its report.
    def codes(path):
        return [(f.line, f.code) for f in check_source(LOOP_LOG, path, Settings())]

    assert codes("shop/migrations/0042_fix_rows.py") == []
    assert codes("shop/services/fix_rows.py") == [(12, "BND301")]
    assert codes("shop/migrations.py") == [(12, "BND301")]
