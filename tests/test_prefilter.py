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


def _searchers():
    """Every fast prefilter part of every rule (Words, Literals, AnyOf), each once."""
    from boundlint.rules.base import all_rules
    from boundlint.rules.prefilter import AnyOf, Literals, Words

    seen, out = set(), []
    stack = [cls.prefilter for cls in all_rules().values() if cls.prefilter is not None]
    while stack:
        part = stack.pop()
        if isinstance(part, tuple):
            stack.extend(part)
        elif isinstance(part, (Words, Literals, AnyOf)) and id(part) not in seen:
            seen.add(id(part))
            out.append(part)
            stack.extend(getattr(part, "parts", ()))
    return out


def test_fast_prefilters_equal_their_patterns_on_real_code(small_corpus):
    import re

    texts = [Path(p).read_text(encoding="utf-8", errors="replace") for p in discover([str(small_corpus)])]
    texts += [p.read_text(encoding="utf-8") for p in sorted(FIXTURES.rglob("*.py"))]
    parts = _searchers()
    assert len(parts) >= 12
    for part in parts:
        pattern = re.compile(part.pattern)
        found = [bool(part.search(t)) for t in texts]
        assert found == [pattern.search(t) is not None for t in texts], part.pattern
        assert 0 < sum(found) < len(texts) or "except" in part.pattern, part.pattern  # it tells files apart


def test_words_need_a_boundary_before_and_after():
    from boundlint.rules.prefilter import AnyOf, Literals, Words

    wait = Words("gather", "wait")
    assert wait.search("x = await y") is None  # `wait` inside `await`
    assert wait.search("asyncio.waiter()") is None
    assert wait.search("wait") == "wait"
    assert wait.search("(asyncio.wait(x))") == "wait"
    assert wait.search("await y; gather(") == "gather"
    call = Words("print", after=r"\s*\(")
    assert call.search("print_exc()\nprinted (") is None
    assert call.search("x; print  (1)") == "print"
    assert AnyOf(Literals("status"), Words("is_", after=r"\w*error\b")).search("if is_http_error:") == "is_"
    assert AnyOf(Literals("status"), Words("is_", after=r"\w*error\b")).search("this_error") is None
    with pytest.raises(ValueError):
        Words("(call")
