"""The language server's fix actions: a quick fix per diagnostic that has a fix (beside its ``noqa``
action), a disabled one showing a display-only suggestion, and ``source.fixAll.boundlint`` applying
the safe fixes of the whole document.

The fixes come from ``boundlint.fixes`` on the document's text, as for ``check --fix``; the
server computes none.  Findings are those of ``lint(text, path)`` (the server's one call into the
engine), remembered for the last text of each document so that a code action costs no second check.
"""
from __future__ import annotations

from lsprotocol import types

from boundlint.fixes.apply import fixes_for
from boundlint.fixes.model import DISPLAY_ONLY, SAFE

FIX_ALL = "source.fixAll.boundlint"
KINDS = [types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll, FIX_ALL]
_LAST: dict[str, tuple[str, list]] = {}  # path -> (text, its findings)


def findings_of(text: str, path: str, lint) -> list:
    """``lint(text, path)``, remembered for the last *text* of *path*."""
    last = _LAST.get(path)
    if last is not None and last[0] == text:
        return last[1]
    found = lint(text, path)
    _LAST[path] = (text, found)
    return found


def _wanted(params: types.CodeActionParams, kind: str) -> bool:
    """The request asks for *kind*: no ``only``, or an ``only`` kind that is *kind* or a parent of it."""
    only = [getattr(k, "value", k) for k in params.context.only or ()]
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def _settings(path: str):
    from boundlint.config import ConfigError, load_config

    try:
        config = load_config([path])
    except ConfigError:
        return None
    return config


def _text_edits(edits) -> list[types.TextEdit]:
    """Whole-line ``fixes.Edit``s as LSP edits (line starts are the same in every position encoding)."""
    return [types.TextEdit(range=types.Range(start=types.Position(line=e.line - 1, character=0),
                                             end=types.Position(line=e.end_line - 1, character=0)), new_text=e.text)
            for e in edits]


def fix_actions(ls, params: types.CodeActionParams, lint) -> list[types.CodeAction]:
    """The fix actions for a code action request (see the module doc); [] when none is asked for."""
    quick, fix_all = _wanted(params, types.CodeActionKind.QuickFix.value), _wanted(params, FIX_ALL)
    if not (quick or fix_all):
        return []
    uri = params.text_document.uri
    doc = ls.workspace.get_text_document(uri)
    text, path = doc.source, doc.path
    config = _settings(path)
    if config is None:
        return []
    findings = [f for f in findings_of(text, path, lint) if f.fix]
    if not findings:
        return []
    actions: list[types.CodeAction] = []
    if quick:
        asked = {(d.range.start.line, d.code): d for d in params.context.diagnostics if d.source == "boundlint"}
        chosen = [f for f in findings if (f.line - 1, f.code) in asked]
        for fix in fixes_for(text, chosen, config.settings, path).fixes if chosen else ():
            diagnostic = asked[(fix.finding.line - 1, fix.finding.code)]
            if fix.applicability == DISPLAY_ONLY:
                actions.append(types.CodeAction(
                    title=f"Suggestion ({fix.finding.code}): {fix.title}", kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic], disabled=types.CodeActionDisabled(
                        reason="a display-only suggestion: boundlint has no automatic fix for it")))
                continue
            label = "" if fix.applicability == SAFE else " (unsafe: changes behaviour)"
            actions.append(types.CodeAction(
                title=f"Fix {fix.finding.code}: {fix.title}{label}", kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic], is_preferred=fix.applicability == SAFE,
                edit=types.WorkspaceEdit(changes={uri: _text_edits(fix.edits)})))
    if fix_all:
        from boundlint.fixes.apply import edits
        from boundlint.fixes.command import fix_source

        done = fix_source(text, path, findings_of(text, path, lint), config.settings, config.root, unsafe=False)
        if done.count:
            actions.append(types.CodeAction(
                title="boundlint: fix all safe fixes", kind=FIX_ALL,
                edit=types.WorkspaceEdit(changes={uri: _text_edits(edits(text, done.fixed))})))
    return actions
