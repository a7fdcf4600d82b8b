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

    Returns text with the BOM removed.  Raises DecodeError (and nothing else)
    with a position on an unknown or non-text encoding, or bytes invalid in
    the declared one.
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if "invalid or missing encoding declaration" not in str(exc):
            raise DecodeError(str(exc), getattr(exc, "lineno", 1) or 1) from None
        # Non-UTF-8 bytes in the first two lines and no cookie: decode as UTF-8
        # below so the message names the byte and its position, as CPython does.
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = data[exc.start:exc.start + 1].hex()
        cookie = "" if encoding != "utf-8" else " (no coding cookie declares another encoding)"
        raise DecodeError(f"invalid {encoding} byte 0x{byte}: {exc.reason}{cookie}", line, column) from None
    except (LookupError, UnicodeError, ValueError) as exc:  # a cookie naming a non-text codec ("rot13", "hex")
        raise DecodeError(f"coding cookie {encoding!r}: {' '.join(str(exc).split())}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text
