"""A subset of a configured registry picked by lookups (``analysis.facts.lookups``): exact severities and reasons
for each case of tests/fixtures/precision_lookups.py, and the fact's answers on small functions."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from boundlint.config import OPT_IN, Settings
from boundlint.engine import check_source
from boundlint.analysis.facts import lookups

ROOT = Path(__file__).parent.parent
FIXTURE = Path(__file__).parent / "fixtures" / "precision_lookups.py"
REGISTRY = "`backend_registry.get_backend_by_name()`, a read of `backend_registry`, the registry of configured backends"


@pytest.fixture()
def judged(monkeypatch) -> dict[tuple[int, str], tuple[str, str]]:
    monkeypatch.chdir(ROOT)  # evidence paths are relative to the working directory
    settings = Settings(extend_select=OPT_IN, min_severity="low")
    return {(f.line, f.code): (f.severity, f.severity_reason)
            for f in check_source(FIXTURE.read_text(encoding="utf-8"), str(FIXTURE.relative_to(ROOT)), settings)}


def test_hits_of_registry_lookups_are_configured(judged):
    assert judged[(19, "BND101")] == (
        "low", f"the volume is configured: the hits of {REGISTRY}, one item per configured entry at most")


def test_keys_rows_and_unchecked_lookups_stay_reported(judged):
    assert judged[(29, "BND101")] == ("medium", "per item: `client.post()`")  # the keys themselves
    assert judged[(39, "BND101")] == ("medium", "per item: `client.post()`")  # rows of a query
    assert judged[(48, "BND101")] == ("medium", "per item: `client.post()`")  # misses appended too


def test_keys_kept_by_membership_in_a_configured_registry(judged):
    assert judged[(55, "BND101")] == (
        "low", "the volume is configured: the keys found in `known` (`backend_registry.get_backends()`, a read of "
               "`backend_registry`, the registry of configured backends), one per configured entry at most")
    assert judged[(61, "BND101")] == ("medium", "per item: `client.get()`")  # a set the caller sent


def _func(source: str) -> cst.FunctionDef:
    return cst.parse_module(source).body[0]


def test_filled_refuses_a_fill_of_another_shape():
    source = ("def f(ids, server_manager):\n    out = []\n    for i in ids:\n"
              "        s = server_manager.get_server(i)\n        if s:\n            out.append(s)\n{extra}"
              "    return out\n")
    assert lookups.filled(_func(source.format(extra="")), "out", Settings(), None) == (
        "the hits of `server_manager.get_server()`, a read of `server_manager`, the registry of configured "
        "servers, one item per configured entry at most")
    keyed = "    for i in ids:\n        out[i] = i\n"
    assert lookups.filled(_func(source.format(extra=keyed)), "out", Settings(), None) == ""
    rebound = "    s = ids\n"  # the name is bound to something else too
    assert lookups.filled(_func(source.format(extra=rebound)), "out", Settings(), None) == ""


def test_an_awaited_read_of_the_registry_a_class_keeps(judged):
    assert judged[(74, "BND101")] == (
        "low", "the volume is configured: the keys found in `allowed` (`self.get_allowed_backends()`, a read of the "
               "registry of configured backends that `BackendManager` keeps), one per configured entry at most")
    assert judged[(80, "BND101")] == ("medium", "per item: `client.get()`")  # jobs, not backends
