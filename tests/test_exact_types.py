"""The exact type tests that stand in for ``isinstance`` on LibCST nodes are only equal to it for
classes without subclasses: hold every class the source so tests to that."""
from __future__ import annotations

import re
from pathlib import Path

import libcst as cst
import pytest

from boundlint.analysis.facts.walk import leaf_types

SRC = Path(__file__).resolve().parent.parent / "src" / "boundlint"
_EXACT = re.compile(r"type\([^()]*\) is (?:not )?cst\.(\w+)")
_LEAVES = re.compile(r"leaf_types\(([^)]*)\)")


def _classes() -> set[str]:
    names: set[str] = set()
    for path in SRC.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        names.update(_EXACT.findall(text))
        for args in _LEAVES.findall(text):
            names.update(re.findall(r"cst\.(\w+)", args))
    return names


def test_exact_type_tests_name_leaf_classes() -> None:
    names = _classes()
    assert "Name" in names and "FunctionDef" in names  # the scan finds the tests
    branching = sorted(n for n in names if getattr(cst, n).__subclasses__())
    assert branching == []


def test_leaf_types_refuses_a_class_with_subclasses() -> None:
    assert leaf_types(cst.Name, cst.Attribute) == frozenset({cst.Name, cst.Attribute})
    with pytest.raises(TypeError):
        leaf_types(cst.BaseExpression)
