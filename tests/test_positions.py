"""A reported node's position, resolved in the innermost statement that holds it, equals LibCST's
module-wide position pass."""
from __future__ import annotations

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from boundlint.analysis.locate import Locator
from boundlint.analysis.facts.placement import chain_from, parents_in
from conftest import FIXTURES

TRICKY = [
    "# header\n\nimport a; import b\n\n\n# lead\n@dec\n\n@other(\n  1)\ndef f():\n    pass\n    # trailing\n\nx = 1\n",
    "if x: y = 1\nelse: y = 2\nclass C: pass\n\n\n\n\n",
    "x = (\n  1,\n)\\\n\ny = '''\na\n'''\n",
    "def f():\r\n    return 1\r\n\r\n# c\r\nz = 2\r\n",
    "a = 1\n\x0c\nb = 2;\n",
    "async def f():\n    async with x:\n        pass\n\n    # comment in the body's footer\n# a comment at column 0\nx = 1",
    # every kind of block, nested, with odd indentation and continuation lines
    "class C:\n  def f(self):\n     if a:\n      pass\n     elif b:\n         for i in x:\n          call(i,\n   i)\n"
    "         else:\n          y = [\n1]\n     else:\n         while z: z -= 1\n",
    "def f():\n\tif a:\n\t\tg(1,\n\t\t  2)\n",
    "try:\n    a()\nexcept (E,\n        F) as e:\n    # why\n    b(e)\nelse:\n    c()\nfinally:\n    d()\n",
    "try:\n    a()\nexcept* E:\n    b()\n",
    "def f(v):\n    match v:\n        case [a, *rest]:\n            g(a)\n        case {'k': b}:\n"
    "              h(b)\n        case _:\n            pass\n",
    "async def f():\n    async for x in y:\n        async with z as w, \\\n                q:\n            await w(x)\n",
    "def last():\n    return f(1)",
    "def last():\r    if x:\r        return f(1)\r",
    "@a.b(c)\n# between\n@d\nclass K(\n    Base,\n):\n    x: int = 1; y: str = ''\n",
]


def _module_wide_equal(text: str) -> int:
    """Assert every node's position equals the module-wide pass; returns how many nodes were compared."""
    module = cst.parse_module(text)
    full = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    parents = parents_in(module)
    where = Locator(module, text)
    compared = 0
    for node, expected in full.items():
        if id(node) not in parents:
            continue  # whitespace and punctuation: never reported
        got = where._in_statement(node, chain_from(parents, node)[1:])
        assert got == expected, (type(node).__name__, got, expected)
        compared += 1
    return compared


@pytest.mark.parametrize("text", TRICKY)
def test_positions_in_the_innermost_statement_equal_the_module_wide_pass(text):
    assert _module_wide_equal(text) > 3


def test_positions_equal_the_module_wide_pass_on_every_fixture():
    paths = sorted(FIXTURES.rglob("*.py"))
    assert len(paths) > 100
    compared = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        try:
            compared += _module_wide_equal(text)
        except cst.ParserSyntaxError:
            continue
    assert compared > 50_000


def test_a_text_that_does_not_match_falls_back_to_the_module_wide_pass():
    module = cst.parse_module("def f():\n    g(1)\n")
    call = module.body[0].body.body[0].body[0].value
    chain = chain_from(parents_in(module), call)[1:]
    # The text the statement would be placed in says otherwise: no position from it ...
    where = Locator(module, "def f():\n    g(2)\n")
    assert where._in_statement(call, chain) is None
    # ... and the answer comes from the module-wide pass.
    assert where.position(call, chain).start.line == 2
    assert where.position(call, chain).start.column == 4
    # A text CPython cannot parse gives no statement lines either.
    assert Locator(module, "def f(:\n").position(call, chain).start.line == 2


def test_a_node_outside_every_statement_is_resolved_module_wide():
    module = cst.parse_module("x = 1\n")
    where = Locator(module, "x = 1\n")
    assert where._in_statement(module.body[0].body[0].value, []) is None
    assert where.position(module.body[0], []).start.line == 1


def test_each_statement_is_generated_once():
    text = "def f():\n    g(1, 2)\n"
    module = cst.parse_module(text)
    call = module.body[0].body.body[0].body[0].value
    parents = parents_in(module)
    where = Locator(module, text)
    where._in_statement(call, chain_from(parents, call)[1:])
    where._in_statement(call.args[1], chain_from(parents, call.args[1])[1:])
    assert [type(s).__name__ for s, *_ in where.statements.values()] == ["SimpleStatementLine"]
