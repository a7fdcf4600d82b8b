"""Reading a file's bytes into text the way Python itself would (PEP 263)."""
from __future__ import annotations

import io
import tokenize


class DecodeError(Exception):
    """The bytes cannot be decoded: bad coding cookie or invalid bytes.

    ``line`` and ``column`` (1-based) locate the problem where it is known.
    """

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def decode_source(data: bytes) -> str:
    """Decode *data* per PEP 263: a UTF-8 BOM, else a coding cookie on line 1 or 2, else UTF-8.

    Returns text with the BOM removed.  Raises DecodeError with a position on an
    unknown encoding or bytes invalid in the declared one.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown codec, or a BOM that contradicts the cookie
        raise DecodeError(str(exc), getattr(exc, "lineno", 1) or 1) from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DecodeError(f"invalid {encoding} bytes: {exc.reason}", line, column) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text
