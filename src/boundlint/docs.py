"""Render each rule's doc page to ``docs/rules/CODE.md``: ``python -m boundlint.docs [DIR]``.

The pages are generated from the rule classes, so ``boundlint rule CODE`` and
the docs say the same thing; tests/test_meta.py fails when they drift.
"""
from __future__ import annotations

import sys
from pathlib import Path

from boundlint.rules.base import all_rules


def render_all(out_dir: Path) -> list[Path]:
    """Write one Markdown page per rule into *out_dir*; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for code, cls in all_rules().items():
        path = out_dir / f"{code}.md"
        path.write_text(cls.doc(), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/rules")
    for p in render_all(target):
        print(p)
