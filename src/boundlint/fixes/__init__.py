"""Fixes beside the judgement: a finding names its fix kind (``Finding.fix``) and its span; one codemod
per kind turns that into LibCST edits over the module, formatting and comments kept.

The command line (``check --fix``, ``--diff``), the language server and SARIF all ask here; none
computes a fix of its own.

- ``fixes_for(text, findings, settings)``: each finding's ``Fix`` (applicability, title, edits);
- ``fix_text(text, findings, settings, unsafe)``: one pass of fixes applied to *text*;
- ``applicability(finding, settings)``: ``safe``, ``unsafe``, ``display-only`` or None.

The names are loaded on first use: a run served from the cache imports none of it (nor dataclasses).
"""
from __future__ import annotations

import importlib

_WHERE = {"APPLICABILITIES": "model", "DISPLAY_ONLY": "model", "SAFE": "model", "UNSAFE": "model", "Edit": "model",
          "Fix": "model", "Numbers": "model", "applicability": "apply", "fix_text": "apply", "fixes_for": "apply",
          "edits": "apply", "Outcome": "apply"}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{where}"), name)
