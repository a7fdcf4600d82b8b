"""The single traversal: every enabled rule's hooks run during one walk of the CST.

LibCST's own ``CSTVisitor`` rebuilds each node's children as it goes, which
costs about as much as the parse.  This walker reads the dataclass fields
directly (whitespace and punctuation skipped), keeps the ``Context`` current
(scopes, bindings, loops, ``with`` items, ``except`` handlers, length
guards), and calls each rule's ``visit_<Node>`` / ``leave_<Node>`` hooks.

A rule hook that raises is switched off for the rest of the file and
reported through ``on_rule_error``; the other rules go on.

``walker`` holds the traversal, ``guards`` the length guards it records.
"""
from boundlint.analysis.walk.guards import (
    helper_guards, len_argument_key, length_bound, length_guard, length_guards, predicate_guards, terminates,
)
from boundlint.analysis.walk.walker import Walker, children

__all__ = [
    "Walker", "children", "helper_guards", "len_argument_key", "length_bound", "length_guard", "length_guards",
    "predicate_guards", "terminates",
]
