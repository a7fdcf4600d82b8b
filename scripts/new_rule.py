#!/usr/bin/env python3
"""Start a new rule: its module (doc page, examples, one hook), its fixture, and its registration.

usage: python scripts/new_rule.py CODE SLUG [--root DIR]

CODE is ``BND`` + family digit + two digits (``BND105``); SLUG names the
hazard in kebab case (``unbounded-queue-consumers``).  Writes, under the
checkout (or ``--root``):

- ``src/boundlint/rules/<family>/<slug_with_underscores>.py``: one ``Rule``
  class (the PascalCase slug) with the doc sections every rule page has,
  one invalid and one valid example, and a ``visit_Call`` hook to fill in;
- ``tests/fixtures/<code>.py``: a fixture with one ``# error:`` marker and one
  ``# bounded:`` look-alike;
- an import line in ``src/boundlint/rules/<family>/__init__.py``.

Then: write the judgement (ask verdicts from ``boundlint.analysis``, report with
``self.report(node, evidence, **fields)``), run ``python -m boundlint.docs`` to
generate ``docs/rules/<CODE>.md``, and ``pytest tests/test_meta.py
tests/test_fixtures.py``.  Refuses (exit 2) a malformed or taken code, an
unknown family, or a file that already exists; it never overwrites anything.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

FAMILIES = {"1": "fanout", "2": "request_shape", "3": "amplification", "4": "churn"}

RULE = '''"""{code} {slug}: TODO one line: what is unbounded, per what."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.rules.base import Example, Rule, short


class {cls}(Rule):
    """
    ## What it does
    TODO: the construct this flags, as written in code.

    ## Why is this bad?
    TODO: what grows with the input, which dependency it multiplies against.

    ## What counts as a limit
    TODO: each kind of limit that keeps it quiet (see analysis/limits).
    """
    code, name = "{code}", "{slug}"
    message = "`{{call}}` TODO: what is unbounded, naming `{{source}}`"
    hint = "TODO: the remedy, at most 120 characters"
    invalid = (
        Example("hazard", """
            def handler(ids):
                for i in ids:
                    fetch_item(i)  # error: {code} col 9
            """),
    )
    valid = (
        Example("bounded", """
            def handler():
                for i in (1, 2):
                    fetch_item(i)
            """),
    )

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        if not (isinstance(node.func, cst.Name) and node.func.value == "fetch_item"):
            return  # TODO: recognise the construct (from a table in boundlint.tables, not a list of your own)
        loop = next((lp for lp in reversed(ctx.frame.loops) if limits.loop_limit(lp, ctx) is None), None)
        if loop is None:
            return  # no loop, or every loop around it is bounded: the shared verdict of analysis/limits
        # The severity is judged from this evidence (analysis.severity): where the volume comes from, and
        # what each item's work reaches (a dependency call makes it medium, with input volume high).
        self.report(node, call=short(node.func), source=short(loop.iter or node), volume=loop.iter, work=(node,))
'''

FIXTURE = '''"""{code} {slug}: the hazard, then each kind of limit that makes it safe."""


def handler(ids):
    for i in ids:
        fetch_item(i)  # error: {code} col 9


def fixed():
    for i in (1, 2):
        fetch_item(i)  # bounded: a literal
'''


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="new_rule.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("code")
    ap.add_argument("slug")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = ap.parse_args(argv)
    code, slug, root = args.code.upper(), args.slug, args.root
    if not re.fullmatch(r"BND[1-9]\d\d", code) or code[3] not in FAMILIES:
        return _fail(f"code must be BND + a family digit (1-4) + two digits, got {args.code!r}")
    if not re.fullmatch(r"[a-z]+(?:-[a-z]+)+", slug):
        return _fail(f"slug must be kebab-case words naming the hazard, got {slug!r}")
    sys.path.insert(0, str(root / "src"))
    from boundlint.rules.base import all_rules

    if code in all_rules():
        return _fail(f"{code} is taken by {all_rules()[code].__name__}; codes are never reused")
    family = FAMILIES[code[3]]
    package = root / "src" / "boundlint" / "rules" / family
    if not package.is_dir():
        return _fail(f"the {family} family is one module, not a package: add the class there by hand")
    module = package / f"{slug.replace('-', '_')}.py"
    fixture = root / "tests" / "fixtures" / f"{code.lower()}.py"
    for path in (module, fixture):
        if path.exists():
            return _fail(f"{path} exists; nothing written")
    cls = "".join(word.capitalize() for word in slug.split("-"))
    module.write_text(RULE.format(code=code, slug=slug, cls=cls), encoding="utf-8")
    fixture.write_text(FIXTURE.format(code=code, slug=slug), encoding="utf-8")
    init = package / "__init__.py"
    text = init.read_text(encoding="utf-8")
    line = f"from boundlint.rules.{family}.{module.stem} import {cls}\n"
    marker = "\n__all__"
    text = text.replace(marker, line + marker, 1) if marker in text else text + line
    init.write_text(text, encoding="utf-8")
    print(f"wrote {module.relative_to(root)}, {fixture.relative_to(root)}; registered in {init.relative_to(root)}")
    print("next: fill in the TODOs, then `python -m boundlint.docs` and `pytest tests/test_meta.py tests/test_fixtures.py`")
    return 0


def _fail(message: str) -> int:
    print(f"new_rule.py: error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
