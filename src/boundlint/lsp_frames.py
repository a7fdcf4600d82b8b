"""LSP base-protocol framing that survives broken frames (``Content-Length`` headers, then a JSON body).

pygls reads exactly the length a header claims: a frame that claims too
much swallows the frames after it (the server goes deaf, ``shutdown`` is
never answered), and a claim of 100 TB is an allocation of 100 TB.  This
reader never allocates more than ``MAX_BODY`` for a body and resynchronises
on the next header:

- a header block that is not ``Name: value`` lines, has no (or a
  non-numeric) ``Content-Length``, or claims more than ``MAX_BODY``: skipped
  up to the next ``Content-Length:``;
- a body that is not JSON: skipped the same way;
- a claim longer than what came: when the bytes up to the next header are a
  whole JSON value, that is the message (a well-framed body is one JSON
  value, so it never parses short of its end); once nothing has come for
  ``STALL_SECONDS``, what came is taken if it is JSON, and dropped up to
  the next header if there is one (a body still arriving is waited for).

Every skipped frame is named in ``errors`` (one line each) for the log.
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable

MAX_BODY = 64 * 1024 * 1024  # bytes: an LSP message larger than this is a broken frame, not a document
MAX_HEADER = 8192  # bytes of header lines before the blank line
STALL_SECONDS = 1.0  # seconds without input after which a short frame is judged on what came
_MARK = re.compile(rb"content-length:", re.IGNORECASE)
_HEADER = re.compile(rb"([A-Za-z0-9-]+):[ \t]*(.*?)[ \t]*")


class FrameParser:
    """Sans-IO framing: ``feed`` bytes in, ``next_message`` gives decoded messages out.

    *decode*: bytes -> message (default ``json.loads``); a body it rejects
    (any exception) is a broken frame.  *max_body*: the largest body taken,
    in bytes.
    """

    def __init__(self, decode: Callable[[bytes], Any] = json.loads, max_body: int = MAX_BODY) -> None:
        self.decode = decode
        self.max_body = max_body
        self.buffer = bytearray()
        self.errors: list[str] = []

    def feed(self, data: bytes) -> None:
        """Add bytes read from the stream."""
        self.buffer += data

    def next_message(self, stalled: bool = False) -> tuple[bool, Any]:
        """``(True, message)`` for the next whole message, ``(False, None)`` when more input is needed.

        *stalled*: no input has come for a while, so a frame still short of
        its ``Content-Length`` is judged on what came.
        """
        while self.buffer:
            end = self.buffer.find(b"\r\n\r\n", 0, MAX_HEADER + 4)
            if end < 0:
                if len(self.buffer) <= MAX_HEADER and not (stalled and self._mark(1) >= 0):
                    return False, None
                self._skip("a header longer than 8 KB or not ended by a blank line")
                continue
            length = _content_length(bytes(self.buffer[:end]))
            if isinstance(length, str):
                self._skip(length)
                continue
            if length > self.max_body:
                self._skip(f"a Content-Length of {length} bytes (more than the {self.max_body} taken)")
                continue
            start = end + 4
            if len(self.buffer) >= start + length:
                body = bytes(self.buffer[start:start + length])
                try:
                    message = self.decode(body)
                except Exception as exc:  # noqa: BLE001 - any undecodable body is one broken frame
                    self._skip(f"a body that is not a JSON-RPC message ({type(exc).__name__})")
                    continue
                del self.buffer[:start + length]
                return True, message
            nxt = self._mark(start)
            if nxt < 0 and not stalled:
                return False, None
            stop = nxt if nxt >= 0 else len(self.buffer)
            try:
                message = self.decode(bytes(self.buffer[start:stop]).strip())
            except Exception:  # noqa: BLE001
                if nxt >= 0 and stalled:  # a header came after it, and nothing more for a while
                    self._skip(f"a Content-Length of {length} bytes, and what came is not a message")
                    continue
                return False, None  # a long body still arriving slowly is waited for, never dropped
            self.errors.append(f"a Content-Length of {length} bytes for a body of {stop - start} (taken as it came)")
            del self.buffer[:stop]
            return True, message
        return False, None

    def _mark(self, since: int) -> int:
        found = _MARK.search(self.buffer, since)
        return -1 if found is None else found.start()

    def _skip(self, why: str) -> None:
        """Drop the frame at the start of the buffer, up to the next header (or all but a header's prefix)."""
        nxt = self._mark(1)
        if nxt < 0:
            keep = len(b"content-length:") - 1  # the start of a header cut by the read
            nxt = max(1, len(self.buffer) - keep)
        del self.buffer[:nxt]
        self.errors.append(f"a broken frame skipped: {why}")


def _content_length(block: bytes) -> int | str:
    """The Content-Length of the header *block* (lines without the blank one), or why there is none."""
    length: int | str = "a header block without Content-Length"
    for line in block.split(b"\r\n"):
        match = _HEADER.fullmatch(line)
        if match is None:
            return "a header line that is not `Name: value`"
        if match.group(1).lower() == b"content-length":
            value = match.group(2)
            if not value.isdigit() or len(value) > 18:
                return "a Content-Length that is not a byte count"
            length = int(value)
    return length


def serve_stdio(server, stdin_fd: int = 0, stdout=None) -> None:
    """Run the pygls *server* on the file descriptor *stdin_fd* and the binary stream *stdout*
    (default: ``sys.stdout.buffer``) with this framing, until ``exit`` or the end of input.

    Replaces ``server.start_io()``; messages go to ``server.protocol`` as
    pygls's own loop hands them over, each broken frame is one line on stderr.
    """
    import asyncio
    import sys
    import threading

    from pygls.io_ import StdoutWriter

    protocol = server.protocol
    server._stop_event = threading.Event()
    protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    parser = FrameParser(lambda body: json.loads(body, object_hook=protocol.structure_message))

    async def run() -> None:
        loop = asyncio.get_running_loop()
        chunks: asyncio.Queue[bytes] = asyncio.Queue()

        def read() -> None:  # a thread: os.read blocks
            import os

            while True:
                try:
                    data = os.read(stdin_fd, 65536)
                except OSError:
                    data = b""
                try:
                    loop.call_soon_threadsafe(chunks.put_nowait, data)
                except RuntimeError:  # the loop is closed: the server has ended
                    return
                if not data:
                    return

        threading.Thread(target=read, name="boundlint-stdin", daemon=True).start()
        stalled = False
        while not server._stop_event.is_set():
            ok, message = parser.next_message(stalled)
            for error in parser.errors:
                print(f"boundlint server: {error}", file=sys.stderr, flush=True)
            parser.errors.clear()
            if ok:
                try:
                    protocol.handle_message(message)
                except Exception as exc:  # noqa: BLE001 - one bad message, as pygls's loop treats it
                    print(f"boundlint server: cannot handle a message: {type(exc).__name__}: {exc}",
                          file=sys.stderr, flush=True)
                await asyncio.sleep(0)  # let the handler's tasks run between messages
                continue
            stalled = False
            try:
                data = await asyncio.wait_for(chunks.get(), timeout=STALL_SECONDS if parser.buffer else None)
            except asyncio.TimeoutError:
                stalled = True
                continue
            if not data:
                return  # the client closed our input: nothing more can be asked
            parser.feed(data)

    try:
        asyncio.run(run())
    except BrokenPipeError:
        print("boundlint server: the client is gone", file=sys.stderr, flush=True)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
