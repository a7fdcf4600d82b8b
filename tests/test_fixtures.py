"""Every fixture under tests/fixtures is checked against its inline markers, exactly.

A marker ``# error: BND101 col 11`` expects that code at that line and
(1-based) column; every unmarked line must be clean.  A second pass turns each
marker into ``# noqa: CODE`` and expects no findings at all, except on a line
whose own ``# noqa`` is under test (BND900): only the first ``# noqa`` of a
line counts, as in flake8, so the added one cannot silence them.
"""
from __future__ import annotations

import re

import pytest

from conftest import FIXTURES, LOW_MARKER, MARKER, expected_markers, found, found_low

FIXTURE_FILES = sorted(FIXTURES.rglob("*.py"))
# The noqa pass needs a marker to turn into a `# noqa`: a clean fixture has nothing to test there.
MARKED_FILES = [p for p in FIXTURE_FILES if expected_markers(p.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_fixture_markers(path):
    text = path.read_text(encoding="utf-8")
    assert found(text, str(path)) == expected_markers(text)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_fixture_low_markers(path):
    """``# low: CODE col N`` marks a finding the evidence makes low: found, hidden by default."""
    text = path.read_text(encoding="utf-8")
    assert found_low(text, str(path)) == expected_markers(text, LOW_MARKER)


@pytest.mark.parametrize("path", MARKED_FILES, ids=lambda p: p.stem)
def test_fixture_noqa(path):
    text = path.read_text(encoding="utf-8")
    lines, kept = [], set()
    for lineno, line in enumerate(text.splitlines(), 1):
        codes = [code for code, _ in MARKER.findall(line)]
        if codes:
            head = re.sub(r"#\s*error:.*$", "", line)
            if "# noqa" in head.lower():
                kept |= {(lineno, int(col), code) for code, col in MARKER.findall(line)}
            line = head + "# noqa: " + ",".join(codes)
        lines.append(line)
    assert found("\n".join(lines) + "\n", str(path)) == kept


def test_noqa_pass_lists_only_marked_fixtures():
    """No parametrised case that can only skip: every clean fixture is left out of the noqa pass."""
    clean = [p for p in FIXTURE_FILES if not expected_markers(p.read_text(encoding="utf-8"))]
    assert clean, "the fixtures include clean files (false-positive guards)"
    assert set(MARKED_FILES).isdisjoint(clean)
    assert len(MARKED_FILES) + len(clean) == len(FIXTURE_FILES)


def test_fixtures_exist_for_every_rule():
    from boundlint.rules.base import all_rules

    text = "\n".join(p.read_text(encoding="utf-8") for p in FIXTURE_FILES)
    for code in all_rules():
        if code == "BND002":
            continue  # an internal error has no fixture shape; tests/test_engine.py covers it
        assert f"error: {code}" in text, f"no fixture marks {code}"
