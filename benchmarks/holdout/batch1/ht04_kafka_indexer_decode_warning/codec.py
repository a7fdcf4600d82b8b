"""Decoding of change events: pure in-process msgspec parsing, no I/O."""
from __future__ import annotations

from typing import Any, Literal

import msgspec


class ChangeEvent(msgspec.Struct, frozen=True):
    table: str
    pk: str
    op: Literal["insert", "update", "delete"]
    after: dict[str, Any] | None = None


DecodeError = (msgspec.DecodeError, msgspec.ValidationError)

_decoder = msgspec.json.Decoder(ChangeEvent)


def decode(raw: bytes) -> ChangeEvent:
    return _decoder.decode(raw)
