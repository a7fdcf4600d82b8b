"""Fixes as other tools read them: SARIF ``fixes`` objects.

Edits are whole lines (``apply.edits``): SARIF gets each as a ``replacement`` whose
``deletedRegion`` runs from column 1 of its first line to column 1 of the line after it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from boundlint.fixes.apply import applicability, fixes_for
from boundlint.fixes.model import DISPLAY_ONLY


def _settings_for(path: str, settings):
    """The settings whose fix numbers apply to *path*: *settings* when the run had one, else the
    configuration nearest *path* (defaults when it cannot be read)."""
    if settings is not None and not isinstance(settings, (set, frozenset, list, tuple)):
        return settings
    if isinstance(settings, (set, frozenset, list, tuple)) and len(settings) == 1:
        return next(iter(settings))
    from boundlint.config import ConfigError, load_config

    try:
        return load_config([path]).settings
    except (ConfigError, OSError):
        return None


def sarif_fixes(findings: Sequence, sources: Mapping[str, Sequence[str]], artifact_for, settings=None) -> dict:
    """``{id(finding): [SARIF fix object]}`` for the findings with an edit, from the *sources* lines of
    their files (a file without lines gets none); *artifact_for(path)* gives the ``artifactLocation``."""
    by_path: dict[str, list] = {}
    for f in findings:
        if applicability(f) not in (None, DISPLAY_ONLY) and sources.get(f.path):
            by_path.setdefault(f.path, []).append(f)
    out: dict[int, list] = {}
    for path, found in by_path.items():
        lines = list(sources[path])
        text = "\n".join(lines) + "\n"
        for fix in fixes_for(text, found, _settings_for(path, settings), path).fixes:
            if not fix.edits:
                continue
            replacements = []
            for edit in fix.edits:
                region = {"startLine": edit.line, "startColumn": 1}
                if edit.end_line <= len(lines):
                    region.update(endLine=edit.end_line, endColumn=1)
                else:  # through the end of the last line and its line break
                    region.update(endLine=len(lines), endColumn=len(lines[-1]) + 2)
                replacement: dict[str, object] = {"deletedRegion": region}
                if edit.text:
                    replacement["insertedContent"] = {"text": edit.text}
                replacements.append(replacement)
            out[id(fix.finding)] = [{
                "description": {"text": fix.title},
                "artifactChanges": [{"artifactLocation": artifact_for(path), "replacements": replacements}],
                "properties": {"applicability": fix.applicability},
            }]
    return out
