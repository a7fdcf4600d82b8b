"""Issue 14's storm shapes: a pause only on the success path, failed results outside `except`, per-item callbacks.

The fixtures (bnd303_skipped_pause, bnd301_failed_results, bnd302_callbacks) pin codes and positions;
these tests pin the message and evidence of the new BND303 shape and the pieces of judgement one by one.
"""
from __future__ import annotations

import libcst as cst
import pytest

from boundlint.analysis.failure_results import EXCEPTION_RESULT, FULL_BUFFER, HTTP_ERROR, failure_test, local_fault
from boundlint.config import Settings
from boundlint.engine import check_source

POLL = """\
import logging
import time

import requests

log = logging.getLogger(__name__)


def poll(url, book):
    while True:
        try:
            book.update(requests.get(url, timeout=5).json())
            time.sleep(30)
        except requests.RequestException:
            log.warning("poll failed")
"""


def _findings(text: str):
    return [(f.line, f.column, f.code, f.message, f.evidence) for f in check_source(text, "poll.py", Settings())]


def test_skipped_pause_names_the_pause_in_message_and_evidence():
    assert _findings(POLL) == [
        (14, 9, "BND303",
         "`except requests.RequestException` sends `while True` straight back to `book.update(...)` "
         "with no sleep or backoff (`time.sleep(30)` runs only on success)",
         ("`time.sleep(30)` runs only when the `try` succeeds (poll.py:13)",)),
        (15, 13, "BND301", "`log.warning(...)` logs a warning on every failed iteration of `while True`", ()),
    ]


def test_pause_moved_to_finally_is_clean():
    text = POLL.replace("            time.sleep(30)\n", "").replace(
        '            log.warning("poll failed")\n', '            log.warning("poll failed")\n        finally:\n            time.sleep(30)\n')
    assert "finally:" in text
    assert _findings(text) == []


def test_plain_print_counts_only_where_the_loop_spins():
    spinning = POLL.replace('log.warning("poll failed")', 'print("poll failed")')
    assert [(line, code) for line, _, code, _, _ in _findings(spinning)] == [(14, "BND303"), (15, "BND301")]
    paced = spinning.replace('            print("poll failed")\n', '            print("poll failed")\n            time.sleep(30)\n')
    assert _findings(paced) == []


def _test_of(source: str) -> cst.BaseExpression:
    return cst.parse_statement(f"if {source}:\n    pass\n").test  # type: ignore[attr-defined]


STATUS_CASES = [
    ("resp.status_code == 429", True),
    ("resp.status_code >= 500", True),
    ("500 <= resp.status_code", True),
    ("resp.status_code != 200", True),
    ("resp.status in (429, 503)", True),
    ("resp.status_code not in (200, 201)", True),
    ("resp.status_code == 200", False),
    ("resp.status_code < 400", False),
    ("resp.status_code in (200, 204)", False),
    ("not resp.ok", True),
    ("resp.ok", False),
    ("resp.is_error", True),
    ("not resp.is_success", True),
]


@pytest.mark.parametrize(("source", "on_failure"), STATUS_CASES)
def test_http_status_tests_and_their_polarity(source, on_failure):
    assert failure_test(_test_of(source), _NoContext()) == (HTTP_ERROR, on_failure)


@pytest.mark.parametrize("source", ["resp.status_code == 302", "resp.status_code != 404", "resp.code == 429", "row.valid", "full", "self.full_sync"])
def test_local_checks_are_no_failed_result(source):
    assert failure_test(_test_of(source), _NoContext()) is None


@pytest.mark.parametrize("source", ["outbox.full()", "self._buffer_full", "queue_is_full", "not self.is_full"])
def test_full_buffers(source):
    found = failure_test(_test_of(source), _NoContext())
    assert found == (FULL_BUFFER, not source.startswith("not "))


def test_task_exception_is_an_exception_result():
    assert failure_test(_test_of("task.exception()"), _NoContext()) == (EXCEPTION_RESULT, True)
    assert failure_test(_test_of("task.exception() and not task.cancelled()"), _NoContext()) == (EXCEPTION_RESULT, True)


@pytest.mark.parametrize(("clause", "local"), [
    ("except ValueError:", True),
    ("except (KeyError, json.JSONDecodeError):", True),
    ("except pydantic.ValidationError:", True),
    ("except Exception:", False),
    ("except:", False),
    ("except (ValueError, ConnectionError):", False),
])
def test_local_faults(clause, local):
    handler = cst.parse_statement(f"try:\n    pass\n{clause}\n    pass\n").handlers[0]  # type: ignore[attr-defined]
    assert local_fault(handler) is local


class _NoContext:
    """A context with no bindings: enough for tests that read no names."""

    def lookup(self, name):
        return None

    def loop_with_target(self, name):
        return None
