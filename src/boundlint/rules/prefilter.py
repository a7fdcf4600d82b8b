"""Text prefilters that search fast: whole words found with ``str.find``, not a regex scan.

A rule's ``prefilter`` says from the text alone that the rule cannot report.
It runs on every file, so its cost is paid even where nothing is found.
CPython's ``re`` finds a pattern that starts with a literal by a fast scan for
that literal, but a leading ``\\b`` or an alternation of words turns this off,
and the pattern is then tried at every position of the file: ``\\bThread\\b``
costs about 150 times ``Thread\\b`` on real code.  ``Words`` keeps the meaning
of ``\\b(?:w1|w2)\\b`` and searches each word with ``str.find``; ``AnyOf`` is the
alternation of such parts.  Each part keeps, in ``pattern``, the regex it
equals, and tests/test_prefilter.py holds every part to it on real code.
"""
from __future__ import annotations

import re
from typing import Protocol

_WORD = re.compile(r"\w")


class Searcher(Protocol):
    pattern: str

    def search(self, text: str) -> object | None: ...


class Words:
    """True (``search`` returns the word) where one of *words* occurs with a word boundary before it.

    After it comes ``\\b`` by default, or what the regex *after* matches there
    (``after=r"\\s*\\("``: a call).  Equal to ``\\b(?:w1|w2|...)`` + *after*.
    Each word must start with a word character.
    """

    def __init__(self, *words: str, after: str = r"\b") -> None:
        if not words or any(not w or not _WORD.match(w[0]) for w in words):
            raise ValueError(f"Words needs words that start with a word character, got {words!r}")
        self.words = words
        self.after = re.compile(after)
        self.pattern = r"\b(?:" + "|".join(map(re.escape, words)) + ")" + after

    def search(self, text: str) -> str | None:
        after = self.after.match
        for word in self.words:
            at = text.find(word)
            while at != -1:
                if (at == 0 or not _WORD.match(text, at - 1)) and after(text, at + len(word)):
                    return word
                at = text.find(word, at + 1)
        return None


class AnyOf:
    """True where any of *parts* (``Words``, or compiled patterns that start with a literal) is found."""

    def __init__(self, *parts: Searcher | re.Pattern[str]) -> None:
        self.parts = parts
        self.pattern = "|".join(p.pattern for p in parts)

    def search(self, text: str) -> object | None:
        for part in self.parts:
            found = part.search(text)
            if found is not None:
                return found
        return None


class Literals:
    """True where one of *strings* occurs anywhere (``str.__contains__``); equal to ``s1|s2|...``."""

    def __init__(self, *strings: str) -> None:
        if not strings or not all(strings):
            raise ValueError(f"Literals needs non-empty strings, got {strings!r}")
        self.strings = strings
        self.pattern = "|".join(map(re.escape, strings))

    def search(self, text: str) -> str | None:
        return next((s for s in self.strings if s in text), None)
