"""``boundlint server``: a real LSP session over stdio (pytest-lsp), plus its position and noqa helpers."""
from __future__ import annotations

import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from boundlint.cli import main
from boundlint.noqa import noqa_edit, string_continued_lines

HAZARD = "import asyncio\n\nasync def f(ids):\n    await asyncio.gather(*(g(i) for i in ids))\n"
CLEAN = "import asyncio\n\nasync def f(ids):\n    return ids\n"
MESSAGE = "`asyncio.gather(...)` starts one coroutine per item of `ids` with no concurrency limit"
HELP = "help: acquire an asyncio.Semaphore inside each coroutine, or gather fixed-size batches"
DOC_URL = "https://github.com/boundlint/boundlint/blob/main/docs/rules/BND101.md"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "boundlint", "server"]))
async def client(lsp_client: LanguageClient, tmp_path):
    (tmp_path / ".git").mkdir()  # the config search stops here
    (tmp_path / "svc").mkdir()
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def open_doc(client: LanguageClient, uri: str, text: str, language: str = "python") -> list[types.Diagnostic]:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


async def change_doc(client: LanguageClient, uri: str, version: int, text: str) -> list[types.Diagnostic]:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return list(client.diagnostics[uri])


async def quick_fixes(client: LanguageClient, uri: str, diagnostics, only=None) -> list[types.CodeAction]:
    return list(await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=diagnostics[0].range, context=types.CodeActionContext(diagnostics=list(diagnostics), only=only))) or ())


def apply(text: str, edit: types.TextEdit) -> str:
    """*text* with one single-line *edit* applied (ASCII line: characters are code points)."""
    lines = text.split("\n")
    start, end = edit.range.start, edit.range.end
    assert start.line == end.line
    line = lines[start.line]
    lines[start.line] = line[:start.character] + edit.new_text + line[end.character:]
    return "\n".join(lines)


@pytest.mark.asyncio
async def test_open_change_save_and_quick_fix(client: LanguageClient, tmp_path):
    uri = (tmp_path / "svc" / "h.py").as_uri()  # never written to disk: the buffer is checked
    [diagnostic] = await open_doc(client, uri, HAZARD)
    assert diagnostic.code == "BND101" and diagnostic.source == "boundlint"
    assert diagnostic.code_description.href == DOC_URL
    assert diagnostic.message == f"{MESSAGE}\n{HELP}"
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    # Finding 4:11 to the end of the call (1-based) -> LSP 3:10 .. 3:46 (0-based).
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (3, 10)
    assert (diagnostic.range.end.line, diagnostic.range.end.character) == (3, 46)

    [fix, action] = await quick_fixes(client, uri, [diagnostic])  # the gather's own fix (test_fix_lsp), then noqa
    assert action.kind == types.CodeActionKind.QuickFix and action.title == "Add `# noqa: BND101`"
    assert await quick_fixes(client, uri, [diagnostic], only=[types.CodeActionKind.QuickFix]) == [fix, action]
    assert await quick_fixes(client, uri, [diagnostic], only=[types.CodeActionKind.SourceFixAll]) == []
    [edit] = action.edit.changes[uri]
    fixed = apply(HAZARD, edit)
    assert fixed.splitlines()[3] == "    await asyncio.gather(*(g(i) for i in ids))  # noqa: BND101"
    assert await change_doc(client, uri, 2, fixed) == []

    assert len(await change_doc(client, uri, 3, HAZARD)) == 1
    assert await change_doc(client, uri, 4, CLEAN) == []  # the hazard removed

    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=5),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=HAZARD)]))
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in client.diagnostics[uri]] == ["BND101"]


@pytest.mark.asyncio
async def test_utf16_columns_and_noqa_merge(client: LanguageClient, tmp_path):
    uri = (tmp_path / "svc" / "u.py").as_uri()
    # "é" is one UTF-16 unit, "😀" two: the finding's column 21 (code points) is character 21 in UTF-16.
    text = 'import asyncio\n\nasync def f(ids):\n    s = "é😀"; await asyncio.gather(*(g(i) for i in ids))  # noqa: E501\n'
    [diagnostic] = await open_doc(client, uri, text)
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (3, 21)
    assert (diagnostic.range.end.line, diagnostic.range.end.character) == (3, 57)
    [_, action] = await quick_fixes(client, uri, [diagnostic])  # the gather's own fix, then noqa
    [edit] = action.edit.changes[uri]
    # ", BND101" goes after "E501": 70 code points into the line, 71 UTF-16 units.
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.character, edit.new_text) == (
        3, 71, 71, ", BND101")


@pytest.mark.asyncio
async def test_config_of_the_nearest_pyproject(client: LanguageClient, tmp_path):
    (tmp_path / "svc" / "pyproject.toml").write_text('[tool.boundlint]\nselect = ["BND3"]\n', encoding="utf-8")
    assert await open_doc(client, (tmp_path / "svc" / "h.py").as_uri(), HAZARD) == []
    assert [d.code for d in await open_doc(client, (tmp_path / "other.py").as_uri(), HAZARD)] == ["BND101"]
    assert await open_doc(client, (tmp_path / "notes.md").as_uri(), HAZARD, "markdown") == []
    assert len(await open_doc(client, (tmp_path / "stub.pyi").as_uri(), HAZARD, "plaintext")) == 1
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "pyproject.toml").write_text('[tool.boundlint]\nselekt = ["BND1"]\n', encoding="utf-8")
    [broken] = await open_doc(client, (tmp_path / "bad" / "h.py").as_uri(), HAZARD)
    assert (broken.code, broken.severity, broken.range.start.line) == ("BND001", types.DiagnosticSeverity.Error, 0)
    assert broken.message.startswith("cannot check this file: ")
    assert "unknown key 'selekt' in [tool.boundlint]; did you mean 'select'?" in broken.message


@pytest.mark.parametrize("hidden", ["pygls", "pygls.lsp.server", "lsprotocol"])  # the second: pygls 1.x
def test_server_without_pygls_says_what_to_install(monkeypatch, capsys, hidden):
    monkeypatch.delitem(sys.modules, "boundlint.server", raising=False)
    for name in [hidden] + [m for m in sys.modules if m.startswith(hidden + ".")]:
        monkeypatch.setitem(sys.modules, name, None)  # importing it now raises ImportError
    assert main(["server"]) == 2
    assert capsys.readouterr().err == ("boundlint: error: the language server needs pygls 2 or newer: install the "
                                       "lsp extra, pip install '.[lsp]' in the boundlint checkout "
                                       "(or pip install 'pygls>=2')\n")


@pytest.mark.parametrize("line, edit", [
    ("x = f(ids)", (10, 10, "  # noqa: BND101")),
    ("x = f(ids)   ", (10, 13, "  # noqa: BND101")),
    ("x = f(ids)  # why: fast path", (28, 28, "  # noqa: BND101")),
    ("x = f(ids)  # noqa: E501", (24, 24, ", BND101")),
    ("x = f(ids)  # noqa:E501,W291  # why", (28, 28, ", BND101")),
    ("x = f(ids)  # noqa", None),
    ("x = f(ids)  # noqa: BND1", None),
    ("x = f(ids) + \\", None),
])
def test_noqa_edit(line, edit):
    assert noqa_edit(line, "BND101") == edit


def test_lines_ending_inside_a_string_get_no_comment():
    assert string_continued_lines('x = f("""a\nb""", ids)\ny = (1,\n     2)\n') == {1}


def test_readme_editor_settings_start_this_server():
    import json
    import re
    from pathlib import Path

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # boundlint depends on tomli there
        import tomli as tomllib

    from boundlint.cli import build_parser

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Editors\n", 1)[1].split("\n## ", 1)[0]
    vscode = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    assert [vscode["glspc.server.command"], *vscode["glspc.server.commandArguments"]] == ["boundlint", "server"]
    helix = tomllib.loads(re.search(r"```toml\n(.*?)```", section, re.S).group(1))
    server = helix["language-server"]["boundlint"]
    assert [server["command"], *server["args"]] == ["boundlint", "server"]
    assert "boundlint" in helix["language"][0]["language-servers"]
    assert 'cmd = { "boundlint", "server" }' in re.search(r"```lua\n(.*?)```", section, re.S).group(1)
    assert "pip install" not in section and "```sh" not in section  # no set-up commands
    assert build_parser().parse_args(["server", "--stdio"]).command == "server"


@pytest.mark.parametrize("encoding, character", [
    (types.PositionEncodingKind.Utf16, 21),  # "😀" is two UTF-16 units
    (types.PositionEncodingKind.Utf8, 24),   # "é" two bytes, "😀" four
    (types.PositionEncodingKind.Utf32, 20),  # code points, as the finding counts
])
def test_position_in_the_negotiated_encoding(encoding, character):
    from pygls.workspace.position_codec import PositionCodec

    from boundlint.server import split_lines, to_position

    lines = split_lines('import asyncio\r\n\x0c\n    s = "é😀"; await asyncio.gather(*(g(i) for i in ids))\n')
    assert len(lines) == 4  # a form feed does not end a line in LSP; "\r\n" does
    codec = PositionCodec(encoding)
    assert to_position(lines, 3, 21, codec) == types.Position(line=2, character=character)
    assert to_position(lines, 9, 1, codec) == types.Position(line=3, character=0)  # past the end: clamped
