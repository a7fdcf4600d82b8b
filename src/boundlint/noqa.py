"""``# noqa`` comments: a bare one silences a line, ``# noqa: BND101,BND102`` the named codes."""
from __future__ import annotations

import re

# Same grammar flake8 accepts: codes separated by commas and/or spaces.
NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def suppressed(line_text: str, code: str) -> bool:
    """True when *line_text* carries a noqa comment that covers *code*.

    A bare ``# noqa`` covers every code; a list covers its codes and their
    prefixes (``# noqa: BND1`` covers BND101).
    """
    if "noqa" not in line_text.lower():
        return False
    for match in NOQA.finditer(line_text):
        codes = match.group("codes")
        if codes is None:
            return True
        if any(code.startswith(c.upper()) for c in re.split(r"[,\s]+", codes) if c):
            return True
    return False


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
    for match in NOQA.finditer(line_text):
        if match.group("codes") is not None:
            end = match.end("codes")
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
