"""Terminal colour for the text formats: when to use it, and the few ANSI styles used.

Plain ANSI codes rather than a library: this runs on every ``boundlint check``, whose
start-up time matters.
"""
from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from io import TextIOBase

# C0 controls other than tab, and DEL: a file could carry an escape sequence in a string literal
# that a message quotes; printed raw it would drive the terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def use_colour(stream: TextIOBase, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to colour what is written to *stream*.

    ``NO_COLOR`` (any non-empty value) turns colour off; otherwise ``FORCE_COLOR`` (any
    non-empty value) turns it on even when *stream* is not a terminal; otherwise colour
    is used on a terminal whose ``TERM`` is not ``dumb`` (on Windows, one that supports
    ANSI sequences).  A report written to a file (``--output-file``) is never coloured:
    the caller does not ask.
    """
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    if env.get("TERM") == "dumb":
        return False
    try:
        if not stream.isatty():
            return False
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
    if sys.platform == "win32":
        import nt  # type: ignore[import-not-found]

        supports = getattr(nt, "_supports_virtual_terminal", None)  # Python 3.13+
        return bool(supports and supports())
    return True


def printable(text: str) -> str:
    """*text* with control characters (not tabs) shown as ``\\xNN`` escapes."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text) if _CONTROL.search(text) else text


class Palette:
    """The styles of the text formats; with *enabled* False every method returns its text unchanged.

    Like ruff: the path bold, the code bold red, the caret line bold red, ``help:`` bold cyan.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _style(self, sgr: str, text: str) -> str:
        return f"\x1b[{sgr}m{text}\x1b[0m" if self.enabled and text else text

    def path(self, text: str) -> str:
        """A file path."""
        return self._style("1", text)

    def code(self, text: str) -> str:
        """A rule code."""
        return self._style("1;31", text)

    def caret(self, text: str) -> str:
        """The ``^^^`` line under the source."""
        return self._style("1;31", text)

    def label(self, text: str) -> str:
        """A label such as ``help:``."""
        return self._style("1;36", text)

    def severity(self, text: str, level: str) -> str:
        """A severity tag: ``high`` red, ``medium`` yellow, ``low`` green (as the audit colours risk)."""
        return self._style(_SEVERITY_SGR.get(level, "0"), text)


_SEVERITY_SGR = {"high": "1;31", "medium": "33", "low": "32"}


PLAIN = Palette(False)
