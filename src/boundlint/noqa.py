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
