"""Fuzzing: generated programs and mutated real files through every rule.

Properties, for any input: ``check_source`` raises nothing, gives the same
findings twice (and the same again with every position resolved in one
module-wide pass), and every finding lies inside the file.  Two sources:

- ``hypothesmith.from_grammar()``: syntactically valid programs from
  CPython's grammar (often not compilable, which is fine: BND001 is allowed);
- real files (the rule fixtures, boundlint's own source) mutated at the
  text level: slices deleted, duplicated or moved, hostile characters
  (brackets, quotes, NUL, CR, form feed, tabs, non-ASCII) inserted.

Every rule runs on every example (the text pre-filter is off, so rules see
programs that would not trigger them).  CI runs a bounded number of
examples; ``BOUNDLINT_FUZZ_EXAMPLES=5000 pytest tests/test_fuzz.py`` runs
the longer campaign (see docs/robustness.md).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
hypothesmith = pytest.importorskip("hypothesmith")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from boundlint import engine  # noqa: E402
from boundlint.config import Settings  # noqa: E402
from boundlint.engine import check_source  # noqa: E402
from boundlint.rules.base import all_rules  # noqa: E402

EXAMPLES = int(os.environ.get("BOUNDLINT_FUZZ_EXAMPLES", "0")) or None
FUZZ = settings(
    max_examples=EXAMPLES or 40,
    deadline=None,
    database=None,  # CI leaves nothing behind; a long local run may pass its own
    derandomize=EXAMPLES is None,  # CI is reproducible; a long run explores
    suppress_health_check=list(HealthCheck),
)
ROOT = Path(__file__).resolve().parent.parent
SEEDS = sorted((ROOT / "tests" / "fixtures").rglob("*.py")) + sorted((ROOT / "src" / "boundlint" / "rules").glob("*.py"))
SEED_TEXTS = [p.read_text(encoding="utf-8") for p in SEEDS]
# Every registered rule, opt-in ones included; BND0xx are reported by the engine itself.
EVERY_RULE = [cls for code, cls in all_rules().items() if not code.startswith("BND0")]
EVERYTHING = Settings(select=("BND",), extend_select=tuple(all_rules()))
LINE_BREAK = re.compile(r"\r\n|\r|\n")  # Python's line breaks; str.splitlines knows more


def lines_of(text: str) -> list[str]:
    parts = LINE_BREAK.split(text)
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def module_wide_positions(text: str):
    """Findings with every position from one module-wide pass (the engine resolves per statement)."""
    fast = engine._Sink.append
    engine._Sink.append = list.append  # no statement recorded: the module-wide fallback
    try:
        return check_source(text, "fuzz.py", EVERYTHING, EVERY_RULE, prefilter=False)
    finally:
        engine._Sink.append = fast


def check_invariants(text: str) -> None:
    """Run every rule over *text* twice; assert determinism and positions inside the file."""
    first = check_source(text, "fuzz.py", EVERYTHING, EVERY_RULE, prefilter=False)
    second = check_source(text, "fuzz.py", EVERYTHING, EVERY_RULE, prefilter=False)
    assert first == second
    assert first == module_wide_positions(text)
    assert first == sorted(first)
    lines = lines_of(text)
    for f in first:
        assert f.code.startswith("BND") and "\n" not in f.message, f
        if f.code in ("BND001", "BND002"):
            # CPython may point just past the last line (unexpected end of input).
            assert 1 <= f.line <= len(lines) + 1, f
            continue
        assert 1 <= f.line <= f.end_line <= len(lines), f
        assert 1 <= f.column <= len(lines[f.line - 1]) + 1, f
        assert 1 <= f.end_column <= len(lines[f.end_line - 1]) + 1, f
        if f.line == f.end_line:
            assert f.column <= f.end_column, f


@FUZZ
@given(hypothesmith.from_grammar())
def test_generated_programs(text):
    check_invariants(text)


HOSTILE = st.sampled_from(["(", ")", "[", "]", "{", "}", "'", '"', '"""', ":", ",", "\\", "\n", "\r", "\r\n",
                           "\t", "\f", "\x00", "    ", "#", "é", "名", "\ufeff", "async ", "await ", "lambda ",
                           "yield ", "*", "**", "=", ":=", "@", "f'{", "}'", "\\N{", "\x0b"])


@st.composite
def mutated(draw) -> str:
    text = draw(st.sampled_from(SEED_TEXTS))
    for _ in range(draw(st.integers(1, 4))):
        size = len(text)
        a = draw(st.integers(0, size))
        b = draw(st.integers(a, min(size, a + 400)))
        kind = draw(st.sampled_from(["delete", "duplicate", "insert", "move", "swap_lines"]))
        if kind == "delete":
            text = text[:a] + text[b:]
        elif kind == "duplicate":
            text = text[:b] + text[a:b] + text[b:]
        elif kind == "insert":
            text = text[:a] + "".join(draw(st.lists(HOSTILE, min_size=1, max_size=6))) + text[a:]
        elif kind == "move":
            piece, rest = text[a:b], text[:a] + text[b:]
            at = draw(st.integers(0, len(rest)))
            text = rest[:at] + piece + rest[at:]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    return text


@FUZZ
@given(mutated())
def test_mutated_real_files(text):
    check_invariants(text)


@pytest.mark.parametrize("path", SEEDS, ids=lambda p: p.name)
def test_seed_files_hold_the_invariants(path):
    check_invariants(path.read_text(encoding="utf-8"))
