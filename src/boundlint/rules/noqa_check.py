"""BND9xx: checks of boundlint's own suppression comments.  Opt-in: ``--extend-select BND9``.

These rules read comments, which the single traversal does not visit, so
they implement ``check_text(text, path)`` instead of ``visit_`` hooks; the
engine calls it after the traversal when the rule is selected.
"""
from __future__ import annotations

import io
import re
import tokenize
from typing import Iterator

from boundlint.noqa import NOQA
from boundlint.rules.base import Example, Rule

_CODE = re.compile(r"[A-Za-z]+[0-9]+")


class UnknownNoqaCode(Rule):
    """
    ## What it does
    Flags a `# noqa: BND...` comment that names a code no boundlint rule
    has, such as a typo (`BND1001`), a code from a newer release, or one
    that was never assigned.  Codes of other linters (`E501`, `RUF100`)
    are left alone.

    ## Why is this bad?
    A suppression that names a wrong code suppresses nothing: the finding
    it was meant to silence still fires, or the comment outlives the code
    it once named and misleads the next reader.  Ruff keeps `# noqa: BND...`
    comments only with `lint.external = ["BND"]`; this check keeps them
    honest.  It is opt-in: select it with `--extend-select BND900` or
    `extend-select = ["BND9"]`.

    ## What counts as a limit
    Not applicable: this checks comments.  A code counts as known when it
    is a boundlint code or a prefix of one (`BND`, `BND1`, `BND10`).
    """
    code, name = "BND900", "unknown-noqa-code"
    message = "`# noqa` names `{code}`, which is not a boundlint rule"
    hint = "correct the code (`boundlint rule --all` lists them) or remove it from the comment"
    invalid = (Example("typo", """
        import asyncio
        results = asyncio.run(main())  # noqa: BND1001  # error: BND900 col 40
        """),)
    valid = (Example("known_codes", """
        import asyncio
        results = asyncio.run(main())  # noqa: BND101, E501
        """),)

    @classmethod
    def check_text(cls, text: str, path: str) -> Iterator[tuple[int, int, str]]:
        """``(line, column, message)`` for each unknown BND code in a noqa comment (1-based)."""
        if "noqa" not in text.lower():
            return
        from boundlint.config import known_prefixes

        known = set(known_prefixes())
        for line, column, comment in _comments(text):
            for match in NOQA.finditer(comment):
                codes = match.group("codes")
                if codes is None:
                    continue
                start = match.start("codes")
                for code in _CODE.finditer(codes):
                    word = code.group().upper()
                    if word.startswith("BND") and word not in known:
                        yield line, column + start + code.start(), cls.message.format(code=code.group())


def _comments(text: str) -> Iterator[tuple[int, int, str]]:
    """``(line, 1-based column, text)`` of each comment token; nothing when tokenizing fails."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT and "noqa" in tok.string.lower():
                yield tok.start[0], tok.start[1] + 1, tok.string
    except (tokenize.TokenError, SyntaxError):
        return
