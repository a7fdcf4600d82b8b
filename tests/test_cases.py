"""The shared incident cases (../shared/cases), when present beside the checkout.

Each case marks expected lines with ``# expect: FAMILY``; fp*.py files must stay
clean.  Families map to code prefixes.  The cases are restated in our own
fixtures; this test keeps the originals honest too.  The families of rules
not built yet are skipped, so the test tracks what the tool claims to cover.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from boundlint.config import Settings
from boundlint.engine import check_file
from boundlint.rules.base import all_rules

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"
FAMILIES = {"FANOUT": "BND1", "REQUEST-SHAPE": "BND2", "LOG-IN-LOOP": "BND3", "CONN-PER-ITEM": "BND4"}
EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9-]+(?:\s*,\s*[A-Z0-9-]+)*)")
CASE_FILES = sorted(CASES.glob("*.py")) if CASES.is_dir() else []
COVERED = {code[:4] for code in all_rules()}


@pytest.mark.skipif(not CASE_FILES, reason="../shared/cases is not beside this checkout")
@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.stem)
def test_case(path):
    want = set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = EXPECT.search(line)
        if m:
            for fam in m.group(1).split(","):
                prefix = FAMILIES[fam.strip()]
                if prefix in COVERED:
                    want.add((lineno, prefix))
    got = {(f.line, f.code[:4]) for f in check_file(str(path), Settings()).findings}
    assert got == want
