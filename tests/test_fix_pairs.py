"""Each fix, one before/after pair per framework form (tests/fixtures_fix/NAME.py -> NAME.fixed.py).

The before file's ``# error: CODE col N`` markers are exactly what it reports; after
``check --fix --unsafe-fixes`` (here: the same passes in process) it must equal NAME.fixed.py,
compile, and report only the markers that say ``not fixable``.  Fixed with ``fix-max-items = 100``
and ``fix-concurrency = 8`` (chosen numbers: no note), except ``default_numbers`` (the defaults).

``BOUNDLINT_WRITE_FIX_PAIRS=1`` rewrites the after files (read every diff before committing it).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from boundlint.config import OPT_IN, Settings
from conftest import expected_markers
from fix_helpers import CHOSEN, check, fix_all

PAIRS = Path(__file__).parent / "fixtures_fix"
BEFORE = sorted(p for p in PAIRS.glob("*.py") if not p.name.endswith(".fixed.py"))


def _settings(path: Path) -> Settings:
    return Settings(extend_select=OPT_IN) if path.stem == "default_numbers" else CHOSEN


def _not_fixable(text: str) -> set:
    return {m for m in expected_markers(text) if "not fixable" in text.splitlines()[m[0] - 1]}


@pytest.mark.parametrize("path", BEFORE, ids=lambda p: p.stem)
def test_fix_pair(path):
    text = path.read_text(encoding="utf-8")
    settings = _settings(path)
    if path.stem != "default_numbers":
        assert {(f.line, f.column, f.code) for f in check(text, str(path), settings)} == expected_markers(text)
    fixed, count = fix_all(text, str(path), settings)
    after = path.with_name(path.stem + ".fixed.py")
    if os.environ.get("BOUNDLINT_WRITE_FIX_PAIRS"):
        after.write_text(fixed, encoding="utf-8")
    assert fixed == after.read_text(encoding="utf-8")
    compile(fixed, str(after), "exec")
    left = {(f.line, f.column, f.code) for f in check(fixed, str(path), settings)}
    assert left == _not_fixable(fixed)
    assert count >= len(expected_markers(text)) - len(_not_fixable(text))
    assert fix_all(fixed, str(path), settings) == (fixed, 0)  # idempotent


def test_every_fix_kind_has_a_pair():
    from boundlint.fixes.apply import KINDS

    kinds = set()
    for path in BEFORE:
        text = path.read_text(encoding="utf-8")
        kinds |= {f.fix.partition(":")[0] for f in check(text, str(path), _settings(path)) if f.fix}
    assert kinds == {k for k, (module, _) in KINDS.items() if module is not None}
