"""``Record``: a dataclass's repr and equality by value for a plain class that lists its fields.

The run's own mutable records (``engine.result.FileResult``, ``index.project.ModuleEntry`` and
``ProjectIndex``) are plain classes, not dataclasses: ``dataclasses`` imports inspect, ast and
tokenize, too much for a run served from the cache.
"""
from __future__ import annotations


class Record:
    """Fields named in ``_FIELDS``; the repr is a dataclass's (query answers are digested through it).

    Equal by value to a record of the same class only; mutable, so not hashable.
    """

    _FIELDS: tuple[str, ...] = ()
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self._FIELDS)})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return tuple(getattr(self, n) for n in self._FIELDS) == tuple(getattr(other, n) for n in self._FIELDS)
