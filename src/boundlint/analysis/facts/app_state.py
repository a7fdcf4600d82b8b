"""An application's shared state, and parameters every caller fills with configured values, across modules.

- ``shared(text, ctx)``: an attribute chain through a web application's shared state
  (``request.app.state.MODELS``, ``app.state.MODELS``: Starlette / FastAPI ``app.state``) is set when
  the server starts or refreshed by the server itself, shared by every request, never taken from one:
  CONFIGURED, unless the project stores request input in that attribute (the ``state_input`` query).
- ``passed(ctx, ref, name, settings)``: why the parameter *name* of the project function *ref* is
  configured because every call of it in the project passes a configured value: an attribute chain
  naming configuration or application state, a local whose every binding is application state or a
  small literal (``index.local_binds``), or one of the caller's own parameters that is configured
  the same way (followed a few callers up).
"""
from __future__ import annotations

from boundlint.analysis.facts import configured

_UP = 3  # callers followed up through parameters handed on unchanged


def _attr(text: str) -> str | None:
    """The attribute of ``app.state`` the dotted *text* reads (``request.app.state.MODELS``: ``MODELS``)."""
    parts = text.split(".")
    for i in range(len(parts) - 2):
        if parts[i] == "app" and parts[i + 1] == "state":
            return parts[i + 2]
    return None


def shared(text: str, ctx) -> str:
    """``"application state `request.app.state.MODELS`, shared by every request"`` when the dotted
    *text* reads an attribute of an application's shared state that the project (asked through
    ``ctx.project``) never stores request input in; else ``""``."""
    attr = _attr(text)
    if attr is None or ctx.project.ask("state_input", attr):
        return ""
    return f"application state `{text}`, shared by every request"


def _value(text: str, ctx, settings, input_: bool = False) -> str:
    """Why the dotted *text* a caller passes is configured (configuration, or application state, which
    no request fills even when read through the request: *input_* says the chain's root carries input),
    else ``""``."""
    if "." not in text:
        return ""
    if configured.configured_chain(text, settings) and not input_:
        return f"`{text}` (configuration)"
    return shared(text, ctx)


def passed(ctx, ref: str | None, name: str, settings, depth: int = 0,
           seen: frozenset = frozenset()) -> tuple[str, str] | None:
    """``(why, "path:line")``: why the parameter *name* of the project function *ref* is configured,
    every call of it passing a configured value (see the module doc), named for the first call, and
    where that call is; None when a call passes anything else, carries request input, or nothing in
    the project calls *ref*."""
    if ref is None or depth > _UP or (ref, name) in seen:
        return None
    calls_of = ctx.project.ask("passed", ref, name)
    if not calls_of:
        return None
    seen = seen | {(ref, name)}
    whys = []
    for call in calls_of:
        text, binds = call["text"], call.get("binds")
        if binds:  # a local: every binding counts, not only the last
            why = "" if call["input"] else _bound(binds, ctx, settings)
        else:
            why = _value(text, ctx, settings, call["input"]) if text else ""
            if not why and call["input"]:
                return None
        if not why and not binds and text and "." not in text and call.get("caller"):
            up = passed(ctx, call["caller"], text, settings, depth + 1, seen)
            why = (f"`{text}`, which every call of `{call['caller'].rsplit('.', 1)[-1]}()` fills from {up[0]} "
                   f"({up[1]})") if up else ""
        if not why:
            return None
        whys.append((why, call["where"]))
    return whys[0]


def _bound(binds: list, ctx, settings) -> str:
    """Why a local bound to each of *binds* (``[kind, text]`` pairs, ``index.local_binds``) is configured
    or fixed: every binding is application state, configuration or a small literal; else ``""``."""
    found = []
    for kind, text in binds:
        if kind == "fixed":
            found.append(text)
        elif kind in ("state", "param") and _value(text, ctx, settings):
            found.append(_value(text, ctx, settings))
        else:
            return ""
    return "a local bound only to " + " or ".join(dict.fromkeys(found))
