"""Writing the report to stdout so that a reader who leaves is always noticed.

With ``PYTHONUNBUFFERED=1`` (common in containers and CI) ``sys.stdout``
writes straight to the file descriptor and takes a short write as done:
when the reader of a pipe closes it mid-report (``boundlint check | head``),
the kernel reports the bytes it took, and the rest of the report is dropped
without an error, so the run exits 1 instead of 141.  ``write_stdout``
writes every byte itself, so the next write after a short one raises
``BrokenPipeError``, which the command line turns into exit status 141.
"""
from __future__ import annotations

import os
import sys


def write_stdout(text: str) -> None:
    """Write *text* to ``sys.stdout`` in full; raises BrokenPipeError when the reader is gone.

    Encoded with stdout's own encoding and error handler, with ``\\n``
    written as the platform's line ending as a text stream would.  A
    replaced ``sys.stdout`` without a byte buffer (a StringIO) is written
    to as text.
    """
    stream = sys.stdout
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text)
        stream.flush()
        return
    stream.flush()  # whatever was printed before goes first
    if os.linesep != "\n":
        text = text.replace("\n", os.linesep)
    data = memoryview(text.encode(stream.encoding or "utf-8", getattr(stream, "errors", None) or "strict"))
    while data:
        written = buffer.write(data)
        if written is None:  # a non-blocking stream that is full: Python's own print would fail too
            raise BlockingIOError(11, "stdout is full")
        data = data[written:]
    buffer.flush()
