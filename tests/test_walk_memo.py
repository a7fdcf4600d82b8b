"""What the facts read of a node is remembered for one file only (facts.walk.kids, per_node)."""
from __future__ import annotations

import libcst as cst

from boundlint.config import Settings
from boundlint.engine import check_source
from boundlint.analysis.facts import walk

SOURCE = "import asyncio\n\nasync def f(urls):\n    for u in urls:\n        await asyncio.sleep(0)\n"


def test_kids_are_libcsts_children_read_once():
    module = cst.parse_module(SOURCE)
    func = module.body[1]
    first = walk.kids(func)
    assert first == tuple(func.children) and len(first) > 3
    assert walk.kids(func) is first  # remembered, not rebuilt
    walk.forget()
    assert walk.kids(func) is not first and walk.kids(func) == first


def test_per_node_remembers_per_node_until_forgotten():
    calls = []

    @walk.per_node
    def size(node: cst.CSTNode) -> int:
        calls.append(node)
        return len(walk.kids(node))

    module = cst.parse_module(SOURCE)
    a, b = module.body
    assert (size(a), size(a), size(b)) == (len(tuple(a.children)), len(tuple(a.children)), len(tuple(b.children)))
    assert calls == [a, b]
    walk.forget()
    size(a)
    assert calls == [a, b, a]


def test_a_checked_file_leaves_nothing_remembered(monkeypatch):
    held = []
    forget = walk.forget
    monkeypatch.setattr(walk, "forget", lambda: (held.append(len(walk._KIDS)), forget()))
    source = "import logging\nlog = logging.getLogger()\n\nasync def f(urls):\n    for u in urls:\n" \
             "        try:\n            await u.get()\n        except OSError:\n            log.error('x')\n"
    check_source(source, "m.py", Settings(select=("BND",)))
    assert held and held[0] > 0  # the facts read children, and the file's end dropped them
    assert walk._KIDS == {} and all(memo == {} for memo in walk._MEMOS)
