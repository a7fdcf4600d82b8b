"""The language server never dies on a document, a URI or a frame (issue 32), driven with pytest-lsp."""
from __future__ import annotations

import asyncio
import json
import os
import sys
import time

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

HAZARD = "import asyncio\n\nasync def f(ids):\n    await asyncio.gather(*(g(i) for i in ids))\n"
CRASH = "x = " + "-" * 9000 + "1\n"  # LibCST's native parser overflows its stack: SIGSEGV (after ~30 s of CPU)
# The same kind of death at once: the test server below segfaults (a real SIGSEGV, through ctypes) on this text.
INJECTED = "# crash-here\nx = 1\n"
CRASHING_SERVER = """
import ctypes, boundlint.server as server
real = server.lint
def lint(text, path):
    if text.startswith('# crash-here'):
        ctypes.string_at(0)  # SIGSEGV in native code, as LibCST's parser dies
    return real(text, path)
server.lint = lint
server.serve()
"""
SLOW = 60  # seconds a first check may take on a loaded 2-core machine (the worker imports the engine)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-c", CRASHING_SERVER]))
async def client(lsp_client: LanguageClient, tmp_path):
    (tmp_path / ".git").mkdir()  # the config search stops here
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri()))
    yield
    await asyncio.wait_for(lsp_client.shutdown_session(), 5)  # shutdown answered, exit obeyed


async def published(client: LanguageClient, uri: str, text: str) -> list[types.Diagnostic]:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    while True:  # diagnostics of other documents may come first
        params = await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), SLOW)
        if params.uri == uri:
            return list(params.diagnostics)


@pytest.mark.asyncio
async def test_a_native_crash_is_bnd001_and_the_next_buffer_is_checked(client: LanguageClient, tmp_path):
    [crash] = await published(client, (tmp_path / "neg.py").as_uri(), INJECTED)
    assert (crash.code, crash.range.start.line, crash.range.start.character) == ("BND001", 0, 0)
    assert crash.message.startswith("cannot check this file: the parser crashed (SIGSEGV)")
    assert crash.severity == types.DiagnosticSeverity.Error
    [hazard] = await published(client, (tmp_path / "h.py").as_uri(), HAZARD)
    assert (hazard.code, hazard.range.start.line, hazard.range.start.character) == ("BND101", 3, 10)
    [again] = await published(client, (tmp_path / "neg2.py").as_uri(), INJECTED)  # a second crash: a fresh worker
    assert again.code == "BND001"
    assert [d.code for d in await published(client, (tmp_path / "h2.py").as_uri(), HAZARD)] == ["BND101"]


@pytest.mark.skipif(not os.environ.get("BOUNDLINT_SLOW_TESTS"), reason="LibCST takes a minute of CPU to crash on it; "
                    "BOUNDLINT_SLOW_TESTS=1 runs it")
@pytest.mark.asyncio
async def test_the_real_unary_chain_crash(client: LanguageClient, tmp_path):
    global SLOW
    SLOW = 600
    [crash] = await published(client, (tmp_path / "neg.py").as_uri(), CRASH)
    assert crash.code == "BND001" and "the parser crashed" in crash.message
    assert [d.code for d in await published(client, (tmp_path / "h.py").as_uri(), HAZARD)] == ["BND101"]


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["sp%20ace/mod.py", "caf%C3%A9.py", "a%2Bb.py"])
async def test_a_percent_encoded_uri_gets_diagnostics_under_its_own_spelling(client: LanguageClient, tmp_path,
                                                                             name: str):
    uri = tmp_path.as_uri() + "/" + name
    [hazard] = await published(client, uri, HAZARD)
    assert (hazard.code, hazard.range.start.line) == ("BND101", 3)
    assert uri in client.diagnostics  # published under the URI as the client sent it


@pytest.mark.asyncio
async def test_a_windows_drive_uri_gets_diagnostics(client: LanguageClient):
    uri = "file:///c%3A/proj/h.py"
    [hazard] = await published(client, uri, HAZARD)
    assert hazard.code == "BND101"


def frame(message: dict) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def did_open(uri: str, text: str) -> dict:
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}}


BROKEN = {
    "too short": lambda body: b"Content-Length: %d\r\n\r\n%s" % (len(body) // 2, body),
    "too long": lambda body: b"Content-Length: %d\r\n\r\n%s" % (len(body) + 4000, body),
    "100 TB": lambda body: b"Content-Length: 100000000000000\r\n\r\n%s" % body,
    "no number": lambda body: b"Content-Length: lots\r\n\r\n%s" % body,
    "no header": lambda body: body,
    "not json": lambda body: b"Content-Length: 9\r\n\r\n{not json",
    "garbage line": lambda body: b"\x00\xff garbage\r\n\r\n",
}


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", sorted(BROKEN))
async def test_after_a_broken_frame_the_server_answers_within_5_s(client: LanguageClient, tmp_path, kind: str):
    assert [d.code for d in await published(client, (tmp_path / "first.py").as_uri(), HAZARD)] == ["BND101"]
    body = json.dumps(did_open((tmp_path / "lost.py").as_uri(), HAZARD)).encode()
    client.protocol.writer.write(BROKEN[kind](body))
    started = time.monotonic()
    actions = await asyncio.wait_for(client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=(tmp_path / "first.py").as_uri()),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
        context=types.CodeActionContext(diagnostics=[]))), 5)
    assert not actions and time.monotonic() - started < 5
    # The next well-framed document is checked, and shutdown (in the fixture) is answered.
    [hazard] = await published(client, (tmp_path / "next.py").as_uri(), HAZARD)
    assert hazard.code == "BND101"
