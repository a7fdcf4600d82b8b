"""Answers that follow from a few bytes alone, remembered across runs in the cache directory.

Before a run can serve a file from the result cache it must know which files
to check and which config judges them.  Two of those questions cost far more
than looking up a remembered answer: whether a ``.gitignore`` pattern matches
a path needs pathspec (and its imports), and whether a ``pyproject.toml``
holds ``[tool.boundlint]`` needs a TOML parser.  Each answer is a pure
function of bytes the run has at hand (the patterns, the file's content key)
and of the code that computes it, so ``Memo`` keeps it in
``<cache-dir>/<version>/answers.marshal`` under a key that names all of
them.  A key that is not there is computed as before; a failure (a broken
pattern, invalid TOML) is never remembered, so it is reported on every run.
"""
from __future__ import annotations

import os

from boundlint import __version__, stores

MAX_ANSWERS = 200_000
_CURRENT: Memo | None = None


class Memo:
    """Remembered answers by key (a string), stored in *store* (a file path).

    ``get`` returns None for an unknown key; ``flush`` writes the answers if
    any were added (atomically, last writer wins; a store that cannot be read
    or written is ignored).
    """

    def __init__(self, store: str, cache_dir: str) -> None:
        self.store = store
        self.cache_dir = cache_dir  # where ``filekeys`` keeps the content keys these answers are keyed by
        self._answers: dict[str, object] | None = None
        self._used: set[str] = set()
        self._dirty = False

    def _all(self) -> dict[str, object]:
        if self._answers is None:
            self._answers = stores.load(self.store)
        return self._answers

    def get(self, key: str) -> object | None:
        """The answer remembered for *key*, or None."""
        found = self._all().get(key)
        if found is not None:
            self._used.add(key)
        return found

    def put(self, key: str, answer: object) -> None:
        """Remember *answer* (a bool, str or number) for *key*."""
        answers = self._all()
        if answers.get(key) != answer:
            answers[key] = answer
            self._dirty = True
        self._used.add(key)

    def flush(self) -> None:
        """Write the answers if any changed; past ``MAX_ANSWERS``, keep only those this process used."""
        if not self._dirty or self._answers is None:
            return
        stores.save(self.store, self._answers, keep=self._used, limit=MAX_ANSWERS)
        self._dirty = False


def use(cache_dir: str | None) -> None:
    """Remember answers under *cache_dir* for the rest of this process (None: remember nothing)."""
    global _CURRENT
    if cache_dir is None:
        _CURRENT = None
        return
    full = os.path.abspath(cache_dir)
    if _CURRENT is None or _CURRENT.cache_dir != full:
        _CURRENT = Memo(os.path.join(full, __version__, "answers.marshal"), full)


def current() -> Memo | None:
    """The process's memo (``use``), or None when answers are not remembered."""
    return _CURRENT


def flush() -> None:
    """Write the process's memo if it changed."""
    if _CURRENT is not None:
        _CURRENT.flush()
