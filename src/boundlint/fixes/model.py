"""What a fix is: its applicability, its edits, and the numbers a fix writes.

A finding names its fix kind (``Finding.fix``: ``request-field:pydantic``,
``query-parameter``, ``servicer-loop``, ``gather``, ``suggestion``); the
codemod of that kind (``boundlint.fixes.kinds``) turns the finding's span
into a ``Plan`` of LibCST replacements, and ``boundlint.fixes.apply`` into
text.  Applicability follows ruff: ``safe`` keeps behaviour, ``unsafe``
changes it (a cap makes the server reject a larger request), ``display-only``
is a suggestion with no edit.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

SAFE, UNSAFE, DISPLAY_ONLY = "safe", "unsafe", "display-only"
APPLICABILITIES = (SAFE, UNSAFE, DISPLAY_ONLY)

DEFAULT_MAX_ITEMS = 1000
DEFAULT_CONCURRENCY = 16
# Written on a line whose number the user did not configure (fix-max-items / fix-concurrency unset).
CHOOSE_NOTE = "# boundlint: default limit, choose yours"


@dataclass(frozen=True)
class Numbers:
    """The numbers fixes write: ``max_items`` (a collection's cap, items) and ``concurrency`` (tasks at
    once); ``chosen``: the user configured them (else the defaults, and the fix notes the choice)."""

    max_items: int = DEFAULT_MAX_ITEMS
    concurrency: int = DEFAULT_CONCURRENCY
    max_items_chosen: bool = False
    concurrency_chosen: bool = False

    @classmethod
    def from_settings(cls, settings: object) -> "Numbers":
        """The numbers of *settings* (``Settings.option("fix-max-items")`` ...; None: the defaults)."""
        option = getattr(settings, "option", None)
        items = option("fix-max-items") if option else None
        concurrency = option("fix-concurrency") if option else None
        return cls(int(items or DEFAULT_MAX_ITEMS), int(concurrency or DEFAULT_CONCURRENCY),
                   items is not None, concurrency is not None)


@dataclass
class Plan:
    """What one fix does to the module: ``replace`` maps ``id(original node)`` to a function of the
    updated node that returns its replacement (a node, or ``cst.FlattenSentinel`` of statements);
    ``imports``: ``(module, name)`` pairs the new code needs (``name`` None for ``import module``);
    ``title``: what the fix does, one line; ``note_line``: a statement (by id) whose line should carry
    ``CHOOSE_NOTE`` (the number is a default)."""

    title: str
    replace: dict[int, Callable] = field(default_factory=dict)
    imports: list[tuple[str, str | None]] = field(default_factory=list)
    note_line: int | None = None


@dataclass(frozen=True)
class Edit:
    """A text replacement: 1-based ``line``/``column`` to ``end_line``/``end_column`` (column exclusive,
    code points), replaced by ``text``."""

    line: int
    column: int
    end_line: int
    end_column: int
    text: str


@dataclass(frozen=True)
class Fix:
    """One finding's fix: ``kind``, ``applicability`` (safe, unsafe, display-only), ``title`` (what it
    does, or the suggestion) and ``edits`` against the text it was computed on (none when display-only)."""

    finding: object
    kind: str
    applicability: str
    title: str
    edits: tuple[Edit, ...] = ()
