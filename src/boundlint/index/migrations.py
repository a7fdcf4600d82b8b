"""Code under a setting that turns migrations on is a migration step: it runs once per deployment.

``if ENABLE_DB_MIGRATIONS:`` / ``if settings.RUN_MIGRATIONS:`` around a call in a constructor or a
start-up function says the call migrates stored data, which a deployment does once, not per request.
A flag is such a setting when a word of its last name part (split on ``_``, lower-cased) is in the
``migration-flags`` table.  ``migration_flag(name)`` answers for a dotted name (shared with
``analysis.facts.placement``, which reads LibCST); ``migration_spans(func)`` gives the index the line spans of
such branches (``index.once`` treats them like once-flag spans).  Pure ``ast``.
"""
from __future__ import annotations

import ast

from boundlint import tables
from boundlint.index.closures import _own_statements
from boundlint.index.shapes import dotted

MIGRATIONS = "migrations"  # the kind a span carries (4th element), for the step's wording


def migration_flag(name: str | None) -> bool:
    """True when the dotted *name* (``ENABLE_DB_MIGRATIONS``, ``settings.auto_migrate``) names a setting
    that turns migrations on."""
    if not name:
        return False
    words = name.rsplit(".", 1)[-1].lower().split("_")
    return not tables.table("migration-flags").isdisjoint(words)


def migration_spans(func: ast.FunctionDef | ast.AsyncFunctionDef, statements: list | None = None) -> list[list]:
    """``[[first line, last line, flag, "migrations"], ...]``: the bodies of ``if FLAG:`` in *func*
    (nested functions and classes aside) whose plain name or attribute test is a migrations flag; not
    their ``else`` (*statements*: ``closures._own_statements`` of its body, when the caller has them)."""
    spans = []
    for node in _own_statements(func.body) if statements is None else statements:
        if isinstance(node, ast.If) and isinstance(node.test, (ast.Name, ast.Attribute)):
            flag = dotted(node.test)
            if migration_flag(flag):
                spans.append([node.body[0].lineno, node.body[-1].end_lineno, flag, MIGRATIONS])
    return spans
