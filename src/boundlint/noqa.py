"""``# noqa`` comments, read as flake8 reads them, except that a malformed BND code never suppresses.

flake8 owns ``# noqa`` when boundlint runs as its plugin, so ``boundlint
check`` reads the same grammar: the first ``# noqa`` on the line (one
space, any case), optionally ``:`` and codes separated by commas and/or
spaces; a listed code suppresses itself and every code it is a prefix of,
compared case-sensitively.  ``#noqa`` (no space) is no suppression.  A
multi-line string or backslash continuation shares one ``# noqa`` (``noqa_lines``).

Two readings of flake8's hide more than the user wrote, and boundlint does
not follow them: a code cut short by a letter (``# noqa: BND10l`` is
``BND10`` to flake8, hiding BND101-BND104) and a list flake8 cannot parse
(``# noqa: BND-101`` is a bare ``# noqa`` to flake8).  Such a code, and any
other BND word that is no boundlint code or prefix (``BND1O1``,
``BND9999``, ``bnd101``), suppresses nothing here; BND900 reports it in
both entry points.
"""
from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from typing import Iterator

# flake8's grammar: codes may follow each other with no separator at all.
NOQA = re.compile(r"# noqa(?::\s?(?P<codes>(?:[A-Z]+[0-9]+[,\s]*)+))?", re.IGNORECASE)
# A noqa that flake8 does not see: no space, or several, between ``#`` and ``noqa``.
NEAR_MISS = re.compile(r"#(?! noqa)[ \t]*noqa\b", re.IGNORECASE)
# A noqa right after one of these is quoted in the comment's prose, not written as a directive.
_QUOTES = "\"'`"
# A word of a code list: a code, or what was meant as one (``BND1O1``, ``BND-101``).
_WORD = re.compile(r"#|[\w-]+")
# Letters typed for digits in a code: BND1O1, BND10l, BNDl01.
_CONFUSABLE = str.maketrans({"O": "0", "I": "1", "L": "1"})


@dataclass(frozen=True)
class Malformed:
    """A suppression that does not say what it seems to: ``column`` is 0-based in the searched text.

    ``word``: the code as written, or the comment's start for a near-miss
    ``#noqa``; ``suggestion``: the code probably meant, or None.
    """

    column: int
    word: str
    suggestion: str | None
    near_miss: bool = False


def suppressed(line_text: str, code: str) -> bool:
    """True when *line_text* carries a ``# noqa`` that covers *code* (a full code such as ``BND101``).

    A bare ``# noqa`` covers every code; a list covers its codes and the
    codes they are prefixes of (``# noqa: BND1`` covers BND101).  A code cut
    short by a following letter, ``_`` or ``-`` covers nothing, and a
    code list with a malformed BND code is never read as a bare ``# noqa``.
    """
    if "noqa" not in line_text.lower():
        return False
    match = NOQA.search(line_text)
    if match is None:
        return False
    codes = match.group("codes")
    if codes is None:
        # flake8 reads "# noqa: BND-101" as bare; here it is a list with one malformed code.
        return not (line_text[match.end():match.end() + 1] == ":" and _malformed_words(line_text, match))
    listed = [c for c in re.split(r"[,\s]+", codes) if c]
    if re.match(r"[\w-]", line_text[match.end():match.end() + 1]) and not codes[-1:].isspace() \
            and not codes.endswith(","):
        listed.pop()  # "BND10l": flake8 stops at the letter and reads BND10
    return any(code.startswith(c) for c in listed)


def noqa_lines(text: str) -> list[str]:
    """The text searched for the ``# noqa`` of each line of *text*: item 0 is line 1's.

    As in flake8, a line inside a multi-line token (a triple-quoted string)
    or a backslash continuation reads the whole span of lines, so a
    ``# noqa`` at its end covers its first line; lines inside brackets stay
    separate.  When *text* cannot be tokenized, each line reads itself.
    """
    import io
    import tokenize

    lines = text.splitlines(keepends=True)
    out = [line.rstrip("\r\n") for line in lines]
    first = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.ENDMARKER, tokenize.DEDENT):
                continue
            if first is None:
                first = tok.start[0]
            if tok.type in (tokenize.NL, tokenize.NEWLINE):
                last = tok.end[0]
                if last > first:
                    span = "".join(lines[first - 1:last])
                    out[first - 1:last] = [span] * (last - first + 1)
                first = None
    except (tokenize.TokenError, SyntaxError):
        return [line.rstrip("\r\n") for line in lines]
    return out


def malformed(comment: str) -> Iterator[Malformed]:
    """The malformed parts of the suppression in *comment* (one comment's text, from its ``#``).

    Yields a near-miss ``#noqa`` that flake8 does not read, and each word of
    a ``# noqa:`` list that starts with ``BND`` in any case but is not
    exactly a boundlint code or prefix.  Codes of other tools are left alone.
    """
    low = comment.lower()
    if "noqa" not in low:
        return
    match = NOQA.search(comment)
    near = NEAR_MISS.search(comment)
    first = min((m.start() for m in (match, near) if m is not None), default=-1)
    if first > 0 and comment[first - 1] in _QUOTES:
        return  # a comment that quotes a noqa (`"# noqa: BND-101"`) to talk about it suppresses nothing
    if near is not None and (match is None or near.start() < match.start()):
        rest = comment[near.end():]
        words = _words(rest[1:], 0) if rest.startswith(":") else []
        if not rest.startswith(":") or any(w.upper().startswith("BND") for _, w in words):
            yield Malformed(near.start(), near.group(), None, near_miss=True)
        return
    if match is not None:
        for column, word in _malformed_words(comment, match):
            yield Malformed(column, word, suggest(word))


def suggest(word: str) -> str | None:
    """The boundlint code *word* was probably meant to be (``BND1O1`` -> ``BND101``), or None."""
    from boundlint.codes import known_prefixes

    known = known_prefixes()
    value = word.upper().replace("-", "").replace("_", "")
    fixed = value[:3] + value[3:].translate(_CONFUSABLE)
    if fixed in known:
        return fixed
    full = [p for p in known if len(p) == 6]
    # Only a code sharing the family and the next digit: BND1001 suggests BND101; BND9999 nothing.
    shared = max((len(os.path.commonprefix([fixed, p])) for p in full), default=0)
    if shared < 5:
        return None
    near = [p for p in full if len(os.path.commonprefix([fixed, p])) == shared]
    best = difflib.get_close_matches(fixed, near, n=1, cutoff=0.0)
    return best[0] if best else None


def _malformed_words(text: str, match: re.Match) -> list[tuple[int, str]]:
    """``(column, word)`` of each malformed BND word in the list after *match* (a ``# noqa``)."""
    from boundlint.codes import known_prefixes

    start = match.start("codes") if match.group("codes") is not None else match.end()
    if text[start:start + 1] == ":":
        start += 1
    known = set(known_prefixes())
    return [(column, word) for column, word in _words(text[start:], start)
            if word.upper().startswith("BND") and word not in known]


def _words(text: str, offset: int) -> list[tuple[int, str]]:
    """The code-like words at the start of *text*: up to a ``#`` or the first word with no digit."""
    out = []
    for m in _WORD.finditer(text):
        word = m.group()
        if word == "#" or not any(ch.isdigit() for ch in word):
            break
        out.append((offset + m.start(), word))
    return out


def noqa_edit(line_text: str, code: str) -> tuple[int, int, str] | None:
    """The edit that makes *line_text* (one line, no line break) suppress *code*.

    Returns ``(start, end, replacement)``: 0-based code-point columns, *end*
    exclusive.  *code* joins an existing ``# noqa: X`` list (``# noqa: X,
    BND101``); else ``  # noqa: BND101`` replaces trailing whitespace.  None
    when the line already suppresses *code*, or ends in a backslash
    continuation (a comment there is a syntax error).
    """
    if suppressed(line_text, code):
        return None
    body = line_text.rstrip()
    if body.endswith("\\"):
        return None
    match = NOQA.search(line_text)
    if match is not None and match.group("codes") is not None:
        end = match.start("codes") + len(match.group("codes").rstrip(", \t"))
        return end, end, f", {code}"
    return len(body), len(line_text), f"  # noqa: {code}"


def string_continued_lines(text: str) -> set[int]:
    """1-based lines of *text* that end inside a string (or other token) spanning lines.

    A comment added at the end of such a line would land in the string.
    Tokenizing stops at the first error; lines after it count as free.
    """
    import io
    import tokenize

    blocked: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.start[0] < tok.end[0] and tok.type not in (tokenize.NEWLINE, tokenize.NL):
                blocked.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError):
        pass
    return blocked
