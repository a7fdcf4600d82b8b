"""The pre-filter loses nothing: findings with and without it are identical.

Checked on every fixture and on the fixed small slice of the real-world corpus
(``benchmarks/corpus.py --small-only``, downloaded from the package index when
it is not already built; skipped with the reason when it cannot be).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from boundlint.config import Settings
from boundlint.engine import check_file
from boundlint.files import discover
from conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "benchmarks" / ".corpus" / "small"


def _pairs(paths):
    settings = Settings()
    out = []
    for path in paths:
        on = check_file(path, settings).findings
        off = check_file(path, settings, prefilter=False).findings
        out.append((path, on, off))
    return out


def test_prefilter_lossless_on_fixtures():
    for path, on, off in _pairs(sorted(str(p) for p in FIXTURES.rglob("*.py"))):
        assert on == off, path


@pytest.fixture(scope="session")
def small_corpus():
    if not SMALL.is_dir():
        proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "corpus.py"), "--small-only"],
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0 or not SMALL.is_dir():
            pytest.skip(f"small corpus could not be built: {proc.stderr.strip()[-300:]}")
    return SMALL


def test_prefilter_lossless_on_real_code(small_corpus):
    files = discover([str(small_corpus)])
    assert len(files) > 200
    skipped = 0
    for path, on, off in _pairs(files):
        assert on == off, path
        skipped += not off
    assert skipped > 0
