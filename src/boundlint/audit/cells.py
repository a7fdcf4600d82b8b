"""One-line descriptions of map entries, shared by the terminal, Markdown and HTML renderers."""
from __future__ import annotations

import re

from boundlint.audit.model import FanOut, Handler, RequestField, Site

_TICKS = re.compile(r"`+")


def fanout_text(f: FanOut) -> str:
    """``L33 asyncio.gather over request.uris -> hydrate: UNBOUNDED (request field request.uris) [BND101]``."""
    parts = [f"L{f.line} {f.api}"]
    if f.source:
        parts.append(f"over {f.source}")
    if f.target:
        parts.append(f"-> {f.target}")
    text = " ".join(parts)
    if f.via:
        text += f" (in {f.via})"
    if f.bounded:
        return f"{text}: bounded: {f.limit}"
    status = f"{text}: UNBOUNDED"
    if f.request_field:
        status += f" (request field {f.request_field})"
    if f.code:
        status += f" [{f.code}]"
    return status


def field_text(f: RequestField) -> str:
    """``request.uris (repeated): no limit [BND203]`` or ``ids (list[str]): limited by ...``."""
    kind = f" ({f.type})" if f.type else ""
    if f.limit is not None:
        return f"{f.name}{kind}: limited by {f.limit}"
    return f"{f.name}{kind}: no size limit" + (f" [{f.code}]" if f.code else "")


def site_text(s: Site) -> str:
    """``L31 BND301 ... (in hydrate)``."""
    via = f" (in {s.via})" if s.via else ""
    return f"L{s.line} {s.code}{via}: {s.message}"


def handler_title(h: Handler) -> str:
    """``path:line name``."""
    return f"{h.path}:{h.line} {h.name}"


def route_text(h: Handler) -> str:
    """``fastapi POST /items``."""
    return f"{h.framework} {h.route}".strip()


def code_spans(text: str) -> list[tuple[str, bool]]:
    """*text* split at Markdown-style backticks: ``[(segment, is_code)]``, no backtick left in any segment.

    ``"limited by `Field(max_...)`"`` -> ``[("limited by ", False), ("Field(max_...)", True)]``; an
    unmatched backtick is dropped and the text after it is plain.  Empty segments are left out.
    """
    parts = _TICKS.split(text)
    closed = len(parts) - (len(parts) % 2 == 0)  # parts after an unmatched tick are plain
    out = []
    for i, part in enumerate(parts):
        if part:
            out.append((part, i % 2 == 1 and i < closed))
    return out
