"""Each rule's documented examples are tests: invalid ones report their markers, valid ones nothing."""
from __future__ import annotations

import pytest

from boundlint.rules.base import all_rules
from conftest import expected_markers, found

RULES = all_rules()
INVALID = [(code, ex) for code, cls in RULES.items() for ex in cls.invalid]
VALID = [(code, ex) for code, cls in RULES.items() for ex in cls.valid]


@pytest.mark.parametrize(("code", "example"), INVALID, ids=[f"{c}-{e.name}" for c, e in INVALID])
def test_invalid_example(code, example):
    want = expected_markers(example.code)
    assert want, "an invalid example must carry a marker"
    assert {w[2] for w in want} == {code}
    assert found(example.code) == want


@pytest.mark.parametrize(("code", "example"), VALID, ids=[f"{c}-{e.name}" for c, e in VALID])
def test_valid_example(code, example):
    assert found(example.code) == set()


@pytest.mark.parametrize("code", [c for c in RULES if not c.startswith("BND0")])
def test_rule_doc_sections(code):
    doc = RULES[code].doc()
    for section in ("## What it flags", "## Why is this bad?", "## What counts as a limit", "## Example", "## Use instead"):
        assert section in doc, f"{code} doc lacks {section}"
