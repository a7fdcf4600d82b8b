"""One-line descriptions of map entries, shared by the terminal, Markdown and HTML renderers."""
from __future__ import annotations

import re

from boundlint.audit.chains import Step
from boundlint.audit.model import FanOut, Handler, RequestField, Site

_TICKS = re.compile(r"`+")


def where(path: str, line: int, home: str | None) -> str:
    """``L33`` for a line of the handler's own file *home* (or when *home* is None), else ``core/fanout.py:8``."""
    if not path or home is None or path == home:
        return f"L{line}"
    return f"{path}:{line}"


def chain_text(chain: list[Step]) -> str:
    """The whole evidence chain, one step after another: ``what (path:line) -> what (path:line)``."""
    return " -> ".join(f"{s.what} ({s.path}:{s.line})" if s.path else s.what for s in chain)


def chain_places(chain: list[Step], handler: Handler, path: str, line: int) -> str:
    """The compact chain: the ``path:line`` of each step, without the handler's own def line (its title says it)
    and without the entry's own place (*path*, *line*); "" when no step is left.

    ``lookup_service/api/routes.py:12 -> lookup_service/core/service.py:12``.
    """
    places = []
    for s in chain:
        if not s.path or (s.path == handler.path and s.line == handler.line) or (s.path == path and s.line == line):
            continue
        place = f"{s.path}:{s.line}"
        if place not in places:
            places.append(place)
    return " -> ".join(places)


def shown_chain(entry, handler: Handler) -> list[Step]:
    """*entry*'s evidence chain when it passes through a place its row and the handler's title do not name
    (``chain_places``), else ``[]``: a ``via:`` that only repeats the row is left out."""
    if entry.chain and chain_places(entry.chain, handler, entry.path or handler.path, entry.line):
        return entry.chain
    return []


def fanout_text(f: FanOut, home: str | None = None) -> str:
    """``L33 asyncio.gather over request.uris -> hydrate: UNBOUNDED (request field request.uris) [BND101]``.

    A site outside the handler's file *home* starts with its ``path:line`` instead of ``L33``.
    """
    parts = [f"{where(f.path, f.line, home)} {f.api}"]
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


def field_text(f: RequestField, home: str | None = None) -> str:
    """``request.uris (repeated): no limit [BND203]`` or ``ids (list[str]): limited by ...``.

    A field declared outside the handler's file *home* starts with its ``path:line``.
    """
    kind = f" ({f.type})" if f.type else ""
    if f.path and home is not None and f.path != home:
        kind += f" ({f.path}:{f.line})"
    if f.limit is not None:
        return f"{f.name}{kind}: limited by {f.limit}"
    return f"{f.name}{kind}: no size limit" + (f" [{f.code}]" if f.code else "")


def site_text(s: Site, home: str | None = None) -> str:
    """``L31 BND301 ... (in hydrate)``; a site outside the handler's file *home* starts with its ``path:line``."""
    via = f" (in {s.via})" if s.via else ""
    return f"{where(s.path, s.line, home)} {s.code}{via}: {s.message}"


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
