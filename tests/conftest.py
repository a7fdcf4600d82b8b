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


# The slow integration tests (pytest -m slow): each runs real tools in subprocesses (pre-commit,
# flake8, pip) or sweeps every fixture and a real corpus.  The README's test command leaves them
# out (-m "not slow"); .ci/run runs them too.  Files listed whole, or file::test.
SLOW = (
    "test_precommit.py",
    "test_flake8_plugin.py",
    "test_prefilter.py::test_prefilter_lossless_on_real_code",
    "test_prefilter.py::test_prefilter_lossless_on_fixtures",
    "test_positions.py::test_positions_equal_the_module_wide_pass_on_every_fixture",
    "test_isolation.py::test_writes_nothing_outside_its_cache_dir_and_output_file",
    "test_isolation.py::test_same_output_in_the_same_order_with_one_and_two_jobs",
    "test_isolation.py::test_time_limit_while_other_workers_are_busy",
    "test_sarif.py::test_fixtures_validate_with_rule_metadata",
    "test_schedule.py::test_a_large_file_gets_a_longer_limit",
    "test_projects.py::test_cache_rejudges_modules_whose_linked_facts_changed",
    "test_hints.py::test_every_hint_found_comes_from_the_rule_and_is_short",
    "test_output.py::test_a_reader_that_stays_gets_every_line",
    "test_output.py::test_reader_that_leaves_after_one_line_gives_141",
    "test_hostile.py::test_five_megabyte_file_finishes_with_every_finding",
    "test_fuzz.py::test_mutated_real_files",
)


def pytest_collection_modifyitems(config, items):
    """Mark the SLOW tests ``slow`` (registered in pyproject.toml)."""
    for item in items:
        name = f"{item.path.name}::{getattr(item, 'originalname', item.name)}"
        if item.path.name in SLOW or name in SLOW:
            item.add_marker(pytest.mark.slow)
