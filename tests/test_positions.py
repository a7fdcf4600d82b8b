"""Where each top-level statement starts, read from CPython's parser, equals LibCST's own count."""
from __future__ import annotations

import re

import libcst as cst
import pytest

from boundlint.engine.positions import _statement_lines
from conftest import FIXTURES

_NEWLINE = re.compile(r"\r\n?|\n")
TRICKY = [
    "# header\n\nimport a; import b\n\n\n# lead\n@dec\n\n@other(\n  1)\ndef f():\n    pass\n    # trailing\n\nx = 1\n",
    "if x: y = 1\nelse: y = 2\nclass C: pass\n\n\n\n\n",
    "x = (\n  1,\n)\\\n\ny = '''\na\n'''\n",
    "def f():\r\n    return 1\r\n\r\n# c\r\nz = 2\r\n",
    "a = 1\n\x0c\nb = 2;\n",
    "async def f():\n    async with x:\n        pass\n\n    # comment in the body's footer\n# a comment at column 0\nx = 1",
]


def _by_codegen(module: cst.Module) -> list[int]:
    out, line = [], 1 + len(module.header)
    for statement in module.body:
        out.append(line)
        line += len(_NEWLINE.findall(module.code_for_node(statement)))
    return out


@pytest.mark.parametrize("text", TRICKY)
def test_statement_lines_equal_libcsts_count(text):
    module = cst.parse_module(text)
    assert _statement_lines(module, text) == _by_codegen(module)


def test_statement_lines_equal_libcsts_count_on_every_fixture():
    paths = sorted(FIXTURES.rglob("*.py"))
    assert len(paths) > 100
    for path in paths:
        text = path.read_text(encoding="utf-8")
        try:
            module = cst.parse_module(text)
        except cst.ParserSyntaxError:
            continue
        assert _statement_lines(module, text) == _by_codegen(module), path


def test_statement_lines_refuse_what_cpython_rejects():
    text = "x = 1\n"
    assert _statement_lines(cst.parse_module(text), "x = (\n") is None
