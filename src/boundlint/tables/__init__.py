"""Every API and name list the analysis relies on, as declared data a user can see and change.

A ``Table`` is a named set of strings (qualified names, short names or
glob patterns) with a description and where each entry came from.
``boundlint tables [NAME]`` prints them; ``[tool.boundlint.tables]`` in
``pyproject.toml`` replaces a table (``NAME = [...]``) or extends it
(``extend-NAME = [...]``).  The analysis asks ``table(name, settings)`` and
never keeps a private copy of a list that is declared here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from boundlint.tables.defaults import DEFAULTS
from boundlint.tables.evidence import EVIDENCE


@dataclass(frozen=True)
class Table:
    """One table: ``name``, what it is for, and its default entries (sorted)."""

    name: str
    description: str
    entries: tuple[str, ...]
    # The family option (kebab-case, in its [tool.boundlint.<family>] table) that adds entries, if any.
    option: str | None = None


TABLES: dict[str, Table] = {
    name: Table(name, description, tuple(sorted(set(entries))), option)
    for name, (description, entries, option) in {**DEFAULTS, **EVIDENCE}.items()
}


def names() -> list[str]:
    """Every table name, sorted."""
    return sorted(TABLES)


def _configured(settings: object) -> dict:
    option = getattr(settings, "option", None)
    return dict(option("tables", ()) or ()) if option is not None else {}


def entries_with_origin(name: str, settings: object = None) -> list[tuple[str, str]]:
    """``(entry, origin)`` pairs of table *name* in effect under *settings*, sorted by entry.

    *origin* is ``default``, ``tables.NAME`` (a replacement),
    ``tables.extend-NAME`` or the family option that adds entries.
    Raises KeyError for an unknown table.
    """
    table = TABLES[name]
    configured = _configured(settings)
    out: dict[str, str] = {}
    if name in configured:
        out.update((e, f"tables.{name}") for e in configured[name])
    else:
        out.update((e, "default") for e in table.entries)
    for e in configured.get(f"extend-{name}", ()):
        out.setdefault(e, f"tables.extend-{name}")
    if table.option and settings is not None:
        extra = settings.option(table.option, ()) or ()
        if isinstance(extra, str):
            extra = [v.strip() for v in extra.split(",") if v.strip()]
        for e in extra:
            out.setdefault(e, table.option)
    return sorted(out.items())


_MEMO: dict[tuple[str, object], frozenset[str]] = {}


def table(name: str, settings: object = None) -> frozenset[str]:
    """The entries of table *name* in effect under *settings* (memoised per settings object)."""
    key = (name, _memo_key(settings))
    found = _MEMO.get(key)
    if found is None:
        found = _MEMO[key] = frozenset(e for e, _ in entries_with_origin(name, settings))
    return found


def _memo_key(settings: object) -> object:
    if settings is None:
        return None
    extra = getattr(settings, "extra", None)
    return extra if extra is not None else id(settings)


def short_names(qualified: Iterable[str]) -> frozenset[str]:
    """The last dotted part of each entry (``asyncio.Semaphore`` -> ``Semaphore``)."""
    return frozenset(q.rsplit(".", 1)[-1] for q in qualified)


def render(which: Iterable[str], settings: object = None, fmt: str = "text") -> str:
    """The tables *which* in effect under *settings*, as text (one block per table) or JSON.

    Text: ``name: description`` then one ``  entry  (origin)`` line per entry;
    JSON: ``{name: {"description", "entries": [{"entry", "origin"}]}}``.
    """
    if fmt == "json":
        import json

        data = {name: {"description": TABLES[name].description,
                       "entries": [{"entry": e, "origin": o} for e, o in entries_with_origin(name, settings)]}
                for name in which}
        return json.dumps(data, indent=2) + "\n"
    out = []
    for name in which:
        rows = entries_with_origin(name, settings)
        out.append(f"{name}: {TABLES[name].description} ({len(rows)} {'entry' if len(rows) == 1 else 'entries'})")
        width = max((len(e) for e, _ in rows), default=0)
        out += [f"  {e.ljust(width)}  ({o})" for e, o in rows]
        if not rows:
            out.append("  (empty)")
        out.append("")
    return "\n".join(out)
