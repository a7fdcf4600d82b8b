"""The language server offers each fix as a quick fix beside the noqa one (pytest-lsp, a real session)."""
from __future__ import annotations

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from test_server import change_doc, client, open_doc, quick_fixes  # noqa: F401 -- `client` is the session fixture

MODEL = "from pydantic import BaseModel\n\n\nclass LookupRequest(BaseModel):\n    uris: list[str]\n"
LOG_STORM = ("import logging\n\nlog = logging.getLogger(__name__)\n\n\ndef sync_all(client, ids):\n"
             "    for i in ids:\n        try:\n            client.sync(i)\n        except Exception:\n"
             "            log.exception('sync failed')\n")


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """*text* with whole-line *edits* (character 0 to character 0) applied, last first."""
    lines = text.splitlines(keepends=True)
    for edit in sorted(edits, key=lambda e: e.range.start.line, reverse=True):
        assert edit.range.start.character == edit.range.end.character == 0
        lines[edit.range.start.line:edit.range.end.line] = [edit.new_text] if edit.new_text else []
    return "".join(lines)


@pytest.mark.asyncio
async def test_quick_fix_for_a_request_field_clears_the_diagnostic(client: LanguageClient, tmp_path):
    uri = (tmp_path / "svc" / "api.py").as_uri()
    [diagnostic] = await open_doc(client, uri, MODEL)
    assert diagnostic.code == "BND201" and diagnostic.range.start.line == 4
    actions = await quick_fixes(client, uri, [diagnostic])
    assert [a.title for a in actions] == [
        "Fix BND201: Cap `uris` at 1000 items: `max_length=1000` (unsafe: changes behaviour)", "Add `# noqa: BND201`"]
    fix = actions[0]
    assert fix.kind == types.CodeActionKind.QuickFix and list(fix.diagnostics) == [diagnostic] and not fix.is_preferred
    fixed = apply_edits(MODEL, fix.edit.changes[uri])
    assert fixed == ("from pydantic import BaseModel, Field\n\n\nclass LookupRequest(BaseModel):\n"
                     "    uris: list[str] = Field(max_length=1000)  # boundlint: default limit, choose yours\n")
    assert await change_doc(client, uri, 2, fixed) == []
    # no safe fix here: fixAll has nothing to do
    assert await quick_fixes(client, uri, [diagnostic], only=[types.CodeActionKind.SourceFixAll]) == []


@pytest.mark.asyncio
async def test_display_only_suggestion_is_a_disabled_action(client: LanguageClient, tmp_path):
    uri = (tmp_path / "svc" / "jobs.py").as_uri()
    diagnostics = [d for d in await open_doc(client, uri, LOG_STORM) if d.code == "BND301"]
    assert len(diagnostics) == 1
    actions = await quick_fixes(client, uri, diagnostics)
    suggestion = actions[0]
    assert suggestion.title.startswith("Suggestion (BND301): ") and suggestion.edit is None
    assert suggestion.disabled.reason == "a display-only suggestion: boundlint has no automatic fix for it"
    assert actions[1].title == "Add `# noqa: BND301`"


@pytest.mark.asyncio
async def test_fix_all_applies_the_safe_fixes(client: LanguageClient, tmp_path):
    (tmp_path / "svc" / "pyproject.toml").write_text(
        '[tool.boundlint]\nfix-max-items = 20\nextend-safe-fixes = ["BND201"]\n', encoding="utf-8")
    uri = (tmp_path / "svc" / "api.py").as_uri()
    text = MODEL + "    tags: list[str] = []\n"
    diagnostics = await open_doc(client, uri, text)
    assert [d.code for d in diagnostics] == ["BND201", "BND201"]
    actions = await quick_fixes(client, uri, diagnostics[:1], only=[types.CodeActionKind.SourceFixAll])
    assert [(a.title, a.kind) for a in actions] == [("boundlint: fix all safe fixes", "source.fixAll.boundlint")]
    fixed = apply_edits(text, actions[0].edit.changes[uri])
    assert fixed == ("from pydantic import BaseModel, Field\nfrom typing import Annotated\n\n\n"
                     "class LookupRequest(BaseModel):\n    uris: list[str] = Field(max_length=20)\n"
                     "    tags: Annotated[list[str], Field(max_length=20)] = []\n")
    quick = await quick_fixes(client, uri, diagnostics[:1])
    assert quick[0].title == "Fix BND201: Cap `uris` at 20 items: `max_length=20`" and quick[0].is_preferred
    assert await change_doc(client, uri, 2, fixed) == []
