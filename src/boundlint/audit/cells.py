"""One-line descriptions of map entries, shared by the terminal, Markdown and HTML renderers."""
from __future__ import annotations

from boundlint.audit.model import FanOut, Handler, RequestField, Site


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
