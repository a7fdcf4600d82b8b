"""Fitting styled text into terminal columns without splitting names mid-word.

A ``Styled`` string carries one style name (or None) per character, so the
terminal renderer can wrap and shorten text first and colour it after.
Wrapping breaks at spaces only; a single word wider than the line is broken
after ``/`` or ``.``, and a piece still too wide is broken at the width:
the report wraps and never cuts (``shorten`` and ``fit`` remain for callers
that must fit a fixed number of lines).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

ELLIPSIS = "…"
_CODE_SUFFIX = re.compile(r" \[BND\d{3}\]$")


@dataclass(frozen=True)
class Styled:
    """Text with one style per character: ``styles[i]`` is the style name of ``text[i]`` (None: plain)."""

    text: str
    styles: tuple[str | None, ...]

    @classmethod
    def of(cls, text: str, style: str | None = None) -> Styled:
        """*text* in one *style*."""
        return cls(text, (style,) * len(text))

    def __len__(self) -> int:
        return len(self.text)

    def __add__(self, other: Styled) -> Styled:
        return Styled(self.text + other.text, self.styles + other.styles)

    def __getitem__(self, key: slice) -> Styled:
        return Styled(self.text[key], self.styles[key])

    def runs(self) -> list[tuple[str, str | None]]:
        """``[(text, style)]``: maximal runs of one style, in order."""
        out: list[tuple[str, str | None]] = []
        for ch, st in zip(self.text, self.styles):
            if out and out[-1][1] == st:
                out[-1] = (out[-1][0] + ch, st)
            else:
                out.append((ch, st))
        return out


def join(parts: list[Styled], sep: str = " ") -> Styled:
    """*parts* joined by the plain *sep*."""
    out = Styled("", ())
    for i, part in enumerate(parts):
        if i:
            out = out + Styled.of(sep)
        out = out + part
    return out


def shorten(s: Styled, width: int) -> Styled:
    """*s* cut to at most *width* characters (>= 1) by an ellipsis in the middle.

    Each side of the cut moves to a ``/``, ``.`` or ``_`` boundary when one is within a
    third of its length, the other side taking the characters that frees:
    ``customer_ac…s/views.py`` rather than ``customer_acc…/views.py``.
    """
    if len(s) <= width:
        return s
    if width <= 1:
        return Styled.of(ELLIPSIS)[:width]
    budget = width - 1
    head_len = (budget + 1) // 2
    tail_len = budget - head_len
    head_cut = _boundary_before(s.text, head_len)
    tail_cut = _boundary_after(s.text, len(s) - tail_len)
    # Give what one side leaves unused to the other, so the result keeps its width.
    if head_cut < head_len:
        tail_cut = max(len(s) - (budget - head_cut), head_cut + 1)
    elif tail_cut > len(s) - tail_len:
        head_cut = min(budget - (len(s) - tail_cut), len(s) - 1)
    style = s.styles[head_cut - 1] if head_cut else None
    return s[:head_cut] + Styled(ELLIPSIS, (style,)) + s[tail_cut:]


def _boundary_before(text: str, at: int) -> int:
    """A cut at or before *at* just after a separator, if one is in its last third; else *at*."""
    for i in range(at, max(at - at // 3, 1) - 1, -1):
        if text[i - 1] in "/._":
            return i
    return at


def _boundary_after(text: str, at: int) -> int:
    """A cut at or after *at* just before a separator, if one is near; else *at*."""
    limit = min(len(text), at + (len(text) - at) // 3)
    for i in range(at, limit + 1):
        if i < len(text) and text[i] in "/._":
            return i
    return at


def _pieces(word: Styled, width: int) -> list[Styled]:
    """A word wider than *width* as pieces broken after ``/`` or ``.``; a piece still wider is broken
    every *width* characters (wrapped, never cut: every character stays on the page)."""
    parts, start = [], 0
    for i, ch in enumerate(word.text):
        if ch in "/." and i + 1 < len(word):
            parts.append(word[start:i + 1])
            start = i + 1
    parts.append(word[start:])
    out: list[Styled] = []
    for part in parts:
        if out and len(out[-1]) + len(part) <= width:
            out[-1] = out[-1] + part
        else:
            out.extend(part[i:i + width] for i in range(0, len(part), max(width, 1)))
    return out


def wrap(s: Styled, width: int) -> list[Styled]:
    """*s* as lines of at most *width* characters, broken at spaces (see the module docstring).

    Runs of spaces inside a line are kept (``name  route``); a line starts with no space.
    """
    lines: list[Styled] = []
    current: Styled | None = None
    pos, gap = 0, 0
    for word_text in s.text.split(" "):
        word = s[pos:pos + len(word_text)]
        pos += len(word_text) + 1
        if not word_text:
            gap += 1
            continue
        sep, gap = Styled.of(" " * (gap + 1)), 0
        if len(word) > width:
            if current is not None:
                lines.append(current)
            *full, current = _pieces(word, width)
            lines.extend(full)
        elif current is None:
            current = word
        elif len(current) + len(sep) + len(word) <= width:
            current = current + sep + word
        else:
            lines.append(current)
            current = word
    if current is not None:
        lines.append(current)
    return lines or [Styled("", ())]


def squeeze(s: Styled, longest: int) -> Styled:
    """*s* with every word longer than *longest* shortened in the middle to *longest* characters."""
    out, pos = [], 0
    for word_text in s.text.split(" "):
        out.append(shorten(s[pos:pos + len(word_text)], longest) if word_text else Styled("", ()))
        pos += len(word_text) + 1
    return join(out)


def fit(s: Styled, width: int, max_lines: int) -> list[Styled]:
    """*s* wrapped to *width* in at most *max_lines* lines.

    When it does not fit, words longer than 24, then 20 characters are shortened in the
    middle first; if it still does not fit, the text is cut at a space and ends in `` …``,
    keeping a trailing rule code (`` [BND101]``).
    """
    lines = wrap(s, width)
    for longest in (24, 20):
        if len(lines) <= max_lines:
            return lines
        s = squeeze(s, longest)
        lines = wrap(s, width)
    if len(lines) <= max_lines:
        return lines
    suffix = Styled.of(" " + ELLIPSIS)
    match = _CODE_SUFFIX.search(s.text)
    if match:
        suffix = suffix + s[match.start():]
    kept = lines[:max_lines]
    last = kept[-1]
    while len(last) + len(suffix) > width and " " in last.text:
        last = last[:last.text.rindex(" ")]
    if len(last) + len(suffix) > width:
        last = shorten(last, max(width - len(suffix), 1))
    kept[-1] = last + suffix
    return kept
