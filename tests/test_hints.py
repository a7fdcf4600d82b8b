"""Help lines: short (at most 120 characters), and specific to the framework the finding is in."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from boundlint.config import OPT_IN, Settings
from boundlint.engine import check_source
from boundlint.rules.base import all_rules

RULES = all_rules()
FIXTURES = Path(__file__).parent / "fixtures"
LIMIT = 120


def _hints(cls) -> list[str]:
    return [cls.hint, *cls.hints.values()]


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_hint_a_rule_can_produce_is_short(code):
    for hint in _hints(RULES[code]):
        assert hint and "\n" not in hint and not hint.endswith("."), (code, hint)
        assert len(hint) <= LIMIT, f"{code} hint is {len(hint)} characters: {hint}"


def test_a_hint_outside_the_rules_hints_is_refused():
    rule = RULES["BND201"]([])
    with pytest.raises(ValueError, match="not one of the rule's `hints`"):
        rule.report(None, hint="a remedy nobody checked", model="M", field="f", type="list", via="")
    rule.report(None, hint=rule.hints["attrs"], model="M", field="f", type="list", via="")
    assert rule._sink[0].hint == rule.hints["attrs"]


def _all_findings():
    settings = Settings(extend_select=OPT_IN)
    for cls in RULES.values():
        for ex in cls.invalid:
            yield from check_source(ex.code, f"{cls.code}_{ex.name}.py", settings)
    for path in sorted(FIXTURES.rglob("*.py")):
        yield from check_source(path.read_text(encoding="utf-8"), str(path), settings)


def test_every_hint_found_comes_from_the_rule_and_is_short():
    findings = list(_all_findings())
    assert len({f.code for f in findings}) >= 12  # the examples and fixtures exercise nearly every rule
    for f in findings:
        assert f.hint in _hints(RULES[f.code]), (f.code, f.hint)
        assert len(f.hint) <= LIMIT


def _hint_of(source: str, code: str) -> list[str]:
    found = check_source(textwrap.dedent(source), "app.py", Settings(extend_select=OPT_IN))
    return [f.hint for f in found if f.code == code]


def test_pydantic_model_gets_the_pydantic_remedy_only():
    hints = _hint_of("""
        from pydantic import BaseModel

        class LookupRequest(BaseModel):
            uris: list[str]
        """, "BND201")
    assert hints == ["cap it: `Field(max_length=N)` (pydantic v1: `Field(max_items=N)`) or `conlist(X, max_length=N)`"]
    assert not any(word in hints[0] for word in ("msgspec", "attrs", "marshmallow", "DRF", "ListField"))


def test_each_model_kind_gets_its_own_remedy():
    msgspec = _hint_of("""
        import msgspec

        class LookupRequest(msgspec.Struct):
            uris: list[str]
        """, "BND201")
    marshmallow = _hint_of("""
        from marshmallow import Schema, fields

        class ImportSchema(Schema):
            rows = fields.List(fields.Str())

        def handler(payload):
            return ImportSchema().load(payload)
        """, "BND201")
    assert msgspec == ["cap it: `Annotated[list[X], msgspec.Meta(max_length=N)]`"]
    assert marshmallow == ["cap it: `fields.List(..., validate=validate.Length(max=N))`"]


def test_endpoint_parameter_remedy_follows_the_framework():
    fastapi = _hint_of("""
        from fastapi import FastAPI, Query

        app = FastAPI()

        @app.get("/posts")
        async def get_posts(ids: list[str] = Query(default=[])):
            return ids
        """, "BND202")
    litestar = _hint_of("""
        from litestar import post

        @post("/posts")
        async def create(data: list[dict], tags: list[str]) -> None:
            return None
        """, "BND202")
    # The parameter already has its Query(...): the remedy is one keyword more in it.
    assert fastapi == ["add `max_length=N` to its existing `Query(...)`: `Query(..., max_length=50)`"]
    assert litestar == ["cap the body: `Annotated[list[X], Body(max_length=N)]`",
                        "cap it: `Annotated[list[X], Parameter(max_items=N)]`"]


def test_doc_page_lists_the_specific_remedies():
    doc = RULES["BND201"].doc()
    assert "- pydantic: cap it: `Field(max_length=N)`" in doc
    assert "- marshmallow: cap it: `fields.List(..., validate=validate.Length(max=N))`" in doc
