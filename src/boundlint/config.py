"""Effective settings: rule selection and the analysis options of each family.

``Settings`` is frozen and hashable (its ``fingerprint`` keys caches).
Selection follows ruff/flake8: ``select`` / ``ignore`` take codes or
prefixes (``BND1``, ``BND101``, ``BND``); the longest matching prefix wins,
and on a tie ``ignore`` wins.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field

DEFAULT_SELECT = ("BND",)


@dataclass(frozen=True)
class Settings:
    """Everything that changes what a run reports.

    ``select`` / ``ignore`` / ``extend_select`` / ``extend_ignore``: code
    prefixes.  ``per_file_ignores``: ``(glob, codes)`` pairs.  ``exclude``
    / ``extend_exclude``: gitignore-style patterns of paths not to check.
    ``timeout``: seconds one file may take before it is reported and skipped.
    The family fields hold each rule family's analysis options.
    """

    select: tuple[str, ...] = DEFAULT_SELECT
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    extend_ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    timeout: float = 60.0
    extra: tuple[tuple[str, object], ...] = field(default=())

    def enabled(self, code: str) -> bool:
        """True when *code* is selected and not ignored (longest prefix decides)."""
        select = self.select + self.extend_select
        ignore = self.ignore + self.extend_ignore
        sel = max((len(p) for p in select if code.startswith(p)), default=-1)
        ign = max((len(p) for p in ignore if code.startswith(p)), default=-1)
        return sel >= 0 and sel > ign

    def option(self, name: str, default: object = None) -> object:
        """A family analysis option by name (``request-model-patterns`` ...)."""
        for key, value in self.extra:
            if key == name:
                return value
        return default

    def fingerprint(self) -> str:
        """A stable hash of every setting that changes findings."""
        data = json.dumps(asdict(self), sort_keys=True, default=str)
        return hashlib.sha256(data.encode()).hexdigest()[:16]
