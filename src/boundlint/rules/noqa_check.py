"""BND900: checks of the ``# noqa`` comments themselves.

These rules read comments, which the single traversal does not visit, so
they implement ``check_text(text, path)`` instead of ``visit_`` hooks; the
engine calls it after the traversal when the rule is selected.
"""
from __future__ import annotations

import io
import re
import tokenize
from typing import Iterator

from boundlint.noqa import malformed
from boundlint.rules.base import Example, Rule


class UnknownNoqaCode(Rule):
    """
    ## What it does
    Flags a `# noqa` comment that does not suppress what it names: a code
    that is neither a boundlint code nor a prefix of one, such as a letter
    typed for a digit (`BND1O1`, `BND10l`), a typo (`BND1001`), a code in
    lower case (`bnd101`), a code from a newer release or one that was
    never assigned; and a `#noqa` with no space, or several, after the `#`,
    which flake8 does not read as a suppression.  The message says which
    code was probably meant.  Codes of other linters (`E501`, `RUF100`)
    are left alone.

    ## Why is this bad?
    Such a comment suppresses nothing in `boundlint check`: the finding it
    was meant to silence still fires, or the comment outlives the code it
    once named and misleads the next reader.  flake8, which reads `# noqa`
    itself when boundlint runs as its plugin, may read it as more than was
    written: `# noqa: BND10l` as the prefix `BND10` (hiding BND101 to
    BND104 on that line) and `# noqa: BND-101` as a bare `# noqa` (hiding
    everything on it).  This check is on by default, in both entry points,
    so a malformed suppression is seen whichever tool runs.

    ## What counts as a limit
    Not applicable: this checks comments.  A code counts as known when it
    is exactly, in upper case, a boundlint code or a prefix of one (`BND`,
    `BND1`, `BND10`, `BND101`).
    """
    code, name = "BND900", "unknown-noqa-code"
    message = "`# noqa` names `{word}`, which is no boundlint code or prefix{suggestion}"
    near_miss_message = "`{word}` is no suppression: write `# noqa`, with one space"
    hint = "write the exact code (`boundlint rule --all`): a malformed one hides nothing here, and flake8 may misread it"
    invalid = (Example("letter_for_digit", """
        import asyncio
        results = asyncio.run(main())  # noqa: BND1O1  # error: BND900 col 40
        """),)
    valid = (Example("known_codes", """
        import asyncio
        results = asyncio.run(main())  # noqa: BND101, E501
        """),)
    prefilter = re.compile("noqa", re.IGNORECASE)

    @classmethod
    def check_text(cls, text: str, path: str) -> Iterator[tuple[int, int, str]]:
        """``(line, column, message)`` for each malformed suppression in a comment (1-based)."""
        if "noqa" not in text.lower() or not _may_be_malformed(text):
            return
        for line, column, comment in _comments(text):
            for bad in malformed(comment):
                if bad.near_miss:
                    message = cls.near_miss_message.format(word=bad.word)
                else:
                    hint = f"; did you mean `{bad.suggestion}`?" if bad.suggestion else ""
                    message = cls.message.format(word=bad.word, suggestion=hint)
                yield line, column + bad.column, message


def _may_be_malformed(text: str) -> bool:
    """False only when no ``#`` of any line starts a malformed suppression: then no comment can
    (a comment is a line's suffix from one of its ``#``), and tokenizing the file is skipped."""
    for line in text.splitlines():
        if "noqa" not in line.lower():
            continue
        at = line.find("#")
        while at != -1:
            if next(iter(malformed(line[at:])), None) is not None:
                return True
            at = line.find("#", at + 1)
    return False


def _comments(text: str) -> Iterator[tuple[int, int, str]]:
    """``(line, 1-based column, text)`` of each comment token; nothing when tokenizing fails."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT and "noqa" in tok.string.lower():
                yield tok.start[0], tok.start[1] + 1, tok.string
    except (tokenize.TokenError, SyntaxError):
        return
