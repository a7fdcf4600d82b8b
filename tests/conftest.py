"""Shared test helpers: the fixture marker grammar and an in-process check."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from boundlint.config import OPT_IN, Settings
from boundlint.engine import check_source

FIXTURES = Path(__file__).parent / "fixtures"
# "# error: BND101 col 11" (several allowed on one line)
MARKER = re.compile(r"error:\s*(BND\d{3})\s+col\s+(\d+)")


def expected_markers(text: str) -> set[tuple[int, int, str]]:
    """``(line, column, code)`` for every ``# error: CODE col N`` marker in *text*."""
    out = set()
    for lineno, line in enumerate(text.splitlines(), 1):
        if "#" not in line:
            continue
        comment = line[line.index("#"):]
        for code, col in MARKER.findall(comment):
            out.add((lineno, int(col), code))
    return out


def found(text: str, path: str = "fixture.py", settings: Settings | None = None) -> set[tuple[int, int, str]]:
    """``(line, column, code)`` for every finding boundlint reports on *text* (opt-in codes included)."""
    settings = settings or Settings(extend_select=OPT_IN)
    return {(f.line, f.column, f.code) for f in check_source(text, path, settings)}


@pytest.fixture(autouse=True)
def _no_colour_from_the_environment(monkeypatch):
    """Tests assert exact text: a CI runner's FORCE_COLOR / NO_COLOR must not change it (nor its subprocesses')."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
