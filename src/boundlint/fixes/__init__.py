"""Fixes beside the judgement: a finding names its fix kind (``Finding.fix``) and its span; one codemod
per kind turns that into LibCST edits over the module, formatting and comments kept.

The command line (``check --fix``, ``--diff``), the language server and SARIF all ask here; none
computes a fix of its own.

- ``fixes_for(text, findings, settings)``: each finding's ``Fix`` (applicability, title, edits);
- ``fix_text(text, findings, settings, unsafe)``: one pass of fixes applied to *text*;
- ``applicability(finding)``: ``safe``, ``unsafe``, ``display-only`` or None.
"""
from __future__ import annotations

from boundlint.fixes.model import APPLICABILITIES, DISPLAY_ONLY, SAFE, UNSAFE, Edit, Fix, Numbers

__all__ = ["APPLICABILITIES", "DISPLAY_ONLY", "SAFE", "UNSAFE", "Edit", "Fix", "Numbers", "applicability",
           "fix_text", "fixes_for"]


def __getattr__(name: str):
    if name in ("applicability", "fix_text", "fixes_for", "edits", "Outcome"):
        from boundlint.fixes import apply

        return getattr(apply, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
