"""The codes in the registry, the docs, the README and the fixtures are one set."""
from __future__ import annotations

import re
from pathlib import Path

from boundlint.rules.base import all_rules

ROOT = Path(__file__).resolve().parent.parent
RULES = all_rules()


def test_codes_well_formed_and_unique_names():
    names = [cls.name for cls in RULES.values()]
    assert len(names) == len(set(names))
    for code, cls in RULES.items():
        assert re.fullmatch(r"BND\d{3}", code)
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", cls.name)
        assert cls.hint and not cls.message.endswith(".")


def test_doc_pages_match_rules():
    pages = {p.stem for p in (ROOT / "docs" / "rules").glob("BND*.md")}
    assert pages == set(RULES)
    for code, cls in RULES.items():
        text = (ROOT / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")
        assert text == cls.doc(), f"docs/rules/{code}.md is stale: run python -m boundlint.docs"


def test_readme_lists_every_rule():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for code, cls in RULES.items():
        assert f"[{code}](docs/rules/{code}.md) | {cls.name} |" in readme, code


def test_catalog_matches_registry():
    from boundlint.codes import CODES

    assert CODES == {code: cls.name for code, cls in RULES.items()}
