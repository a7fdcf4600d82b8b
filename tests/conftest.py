"""Shared test helpers: the fixture marker grammar and an in-process check."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from boundlint.config import OPT_IN, Settings
from boundlint.engine import check_source

FIXTURES = Path(__file__).parent / "fixtures"
# "# error: BND101 col 11" (several allowed on one line): reported at the default severity (medium or high).
MARKER = re.compile(r"error:\s*(BND\d{3})\s+col\s+(\d+)")
# "# low: BND101 col 11": found, with severity low, so shown only with --min-severity low.
LOW_MARKER = re.compile(r"low:\s*(BND\d{3})\s+col\s+(\d+)")


def expected_markers(text: str, marker: re.Pattern = MARKER) -> set[tuple[int, int, str]]:
    """``(line, column, code)`` for every ``# error: CODE col N`` marker (or *marker*) in *text*."""
    out = set()
    for lineno, line in enumerate(text.splitlines(), 1):
        if "#" not in line:
            continue
        comment = line[line.index("#"):]
        for code, col in marker.findall(comment):
            out.add((lineno, int(col), code))
    return out


def found_low(text: str, path: str = "fixture.py") -> set[tuple[int, int, str]]:
    """``(line, column, code)`` of the findings with severity low (hidden at the default severity)."""
    settings = Settings(extend_select=OPT_IN, min_severity="low")
    return {(f.line, f.column, f.code) for f in check_source(text, path, settings) if f.severity == "low"}


def found(text: str, path: str = "fixture.py", settings: Settings | None = None) -> set[tuple[int, int, str]]:
    """``(line, column, code)`` for every finding boundlint reports on *text* (opt-in codes included)."""
    settings = settings or Settings(extend_select=OPT_IN)
    return {(f.line, f.column, f.code) for f in check_source(text, path, settings)}


def project_index(tmp_path: Path, monkeypatch, files: dict[str, str]):
    """The project index of *files* (``{"app/x.py": text}``, paths relative to *tmp_path*) written below
    *tmp_path* beside an empty ``pyproject.toml``; the test then runs there, since evidence paths are
    relative to the working directory."""
    from boundlint.index.build import build_index

    for name, text in {"pyproject.toml": "", **files}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return build_index(str(tmp_path), True)


@pytest.fixture(autouse=True)
def _no_colour_from_the_environment(monkeypatch):
    """Tests assert exact text: a CI runner's FORCE_COLOR / NO_COLOR must not change it (nor its subprocesses')."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
