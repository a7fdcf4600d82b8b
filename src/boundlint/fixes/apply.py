"""Fixes turned into text: each finding's plan, checked alone, then every compatible one at once.

A plan is kept only when its text alone still compiles and leaves every line
with a boundlint ``# noqa`` (bare, or listing a BND code) as it was.  Plans
whose replaced nodes nest in each other are applied one per pass (the caller
checks again and fixes again), so two fixes never rewrite one node.
"""
from __future__ import annotations

import difflib
import importlib
from dataclasses import dataclass, field

import libcst as cst

from boundlint.fixes.imports import add_imports
from boundlint.fixes.model import DISPLAY_ONLY, SAFE, UNSAFE, Edit, Fix, Numbers, Plan
from boundlint.fixes.site import Module, Site

# fix kind (before ``:``) -> (codemod module, applicability); ``suggestion`` has no codemod.
KINDS: dict[str, tuple[str | None, str]] = {
    "request-field": ("boundlint.fixes.request_field", UNSAFE),
    "query-parameter": ("boundlint.fixes.query_parameter", UNSAFE),
    "servicer-loop": ("boundlint.fixes.servicer_loop", UNSAFE),
    "gather": ("boundlint.fixes.gather", UNSAFE),
    "suggestion": (None, DISPLAY_ONLY),
}


def applicability(finding, settings=None) -> str | None:
    """``safe``, ``unsafe`` or ``display-only`` for the finding's fix kind; None when it has none.

    *settings* may move a code's fixes: ``extend-safe-fixes`` makes unsafe ones safe,
    ``extend-unsafe-fixes`` safe ones unsafe (the longest matching prefix wins, as ruff's).
    """
    known = KINDS.get((finding.fix or "").partition(":")[0])
    if not known:
        return None
    applies = known[1]
    option = getattr(settings, "option", None)
    if option is None or applies == DISPLAY_ONLY:
        return applies
    code = finding.code
    safe = max((len(p) for p in option("extend-safe-fixes") or () if code.startswith(p)), default=-1)
    unsafe = max((len(p) for p in option("extend-unsafe-fixes") or () if code.startswith(p)), default=-1)
    if safe > unsafe:
        return SAFE
    if unsafe > safe:
        return UNSAFE
    return applies


class _Rewrite(cst.CSTTransformer):
    def __init__(self, replace: dict) -> None:
        super().__init__()
        self.replace = replace

    def on_leave(self, original_node, updated_node):
        fn = self.replace.get(id(original_node))
        return updated_node if fn is None else fn(updated_node)


def plan_of(module: Module, finding, numbers: Numbers) -> Plan | None:
    """The codemod's plan for *finding* in *module*; None when it has no edit (or the codemod fails)."""
    known = KINDS.get((finding.fix or "").partition(":")[0])
    if known is None or known[0] is None:
        return None
    site = Site(module, finding, numbers)
    if not site.nodes:
        return None
    try:
        return importlib.import_module(known[0]).plan(site)
    except Exception:  # a shape the codemod does not know: no fix rather than a broken run
        return None


def render(module: Module, plans: list[Plan]) -> str:
    """The text of *module* with every plan applied at once."""
    replace: dict = {}
    imports: list = []
    for plan in plans:
        replace.update(plan.replace)
        imports.extend(plan.imports)
    # only the top-level statements holding a replaced node are walked: a large module costs no more
    tops = module.tops(replace)
    body = []
    for stmt in module.node.body:
        if id(stmt) not in tops:
            body.append(stmt)
            continue
        new = stmt.visit(_Rewrite(replace))
        body.extend(new.nodes if isinstance(new, cst.FlattenSentinel) else [] if isinstance(new, cst.RemovalSentinel)
                    else [new])
    tree = module.node.with_changes(body=body)
    if imports:
        tree = add_imports(tree, imports)
    return tree.code


def edits(old: str, new: str) -> tuple[Edit, ...]:
    """Whole-line ``Edit``s turning *old* into *new*."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.append(Edit(i1 + 1, 1, i2 + 1, 1, "".join(b[j1:j2])))
    return tuple(out)


def protected_lines(text: str) -> set[int]:
    """1-based lines carrying a boundlint ``# noqa`` (bare, or listing a BND code): never edited."""
    if "noqa" not in text.lower():
        return set()
    from boundlint.noqa import NOQA, noqa_lines

    out = set()
    for number, line in enumerate(noqa_lines(text), 1):
        match = NOQA.search(line) if "noqa" in line.lower() else None
        if match is not None and (match.group("codes") is None or "BND" in match.group("codes").upper()):
            out.add(number)
    return out


def _valid(text: str, path: str) -> bool:
    try:
        compile(text, path or "<fixed>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _touches(found: tuple[Edit, ...], lines: set[int]) -> bool:
    return any(line in lines for e in found for line in range(e.line, max(e.end_line, e.line + 1)))


@dataclass
class Outcome:
    """What fixing a text gave: the new ``text``, the findings ``fixed``, and the ``fixes`` found
    (``Fix`` per finding with a fix kind, edits against the original text)."""

    text: str
    fixed: list = field(default_factory=list)
    fixes: list = field(default_factory=list)
    module: Module | None = None


@dataclass(frozen=True)
class _Planned(Fix):
    plan: Plan | None = None
    spans: tuple = ()  # the (start, end) of each node the plan replaces, as (line, column) pairs


def fixes_for(text: str, findings, settings=None, path: str = "") -> Outcome:
    """Every finding's ``Fix`` on *text* (display-only ones with no edit), each computed alone; a fix
    whose text would not compile or would edit a ``# noqa`` line has no edit (and is left out).
    Never raises for a text that does not parse (no fixes then)."""
    numbers = Numbers.from_settings(settings)
    out = Outcome(text)
    wanted = [f for f in findings if applicability(f, settings)]
    if not wanted:
        return out
    try:
        module = out.module = Module(text, [(f.line, f.end_line) for f in wanted])
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return out
    guarded = protected_lines(text)
    for finding in wanted:
        kind, applies = finding.fix, applicability(finding, settings)
        if applies == DISPLAY_ONLY:
            out.fixes.append(Fix(finding, kind, applies, finding.hint))
            continue
        plan = plan_of(module, finding, numbers)
        if plan is None:
            continue
        try:
            new = render(module, [plan])
        except (Exception, RecursionError):  # a replacement LibCST refuses: no fix
            continue
        found = edits(text, new)
        if not found or not _valid(new, path) or _touches(found, guarded):
            continue
        out.fixes.append(_Planned(finding, kind, applies, plan.title, found, plan, module.spans(plan.replace)))
    return out


def fix_text(text: str, findings, settings=None, unsafe: bool = False, path: str = "") -> Outcome:
    """*text* with the fixes of *findings* applied: safe ones, and unsafe ones with *unsafe*.

    One pass: a fix whose nodes overlap a chosen fix's is left for the next pass (the caller checks
    the new text and calls again).  ``fixed`` lists the findings whose fix went in.
    """
    found = fixes_for(text, findings, settings, path)
    allowed = (SAFE, UNSAFE) if unsafe else (SAFE,)
    chosen: list[_Planned] = []
    for fix in found.fixes:
        if not isinstance(fix, _Planned) or fix.applicability not in allowed:
            continue
        if any(_overlap(fix.spans, other.spans) for other in chosen):
            continue
        chosen.append(fix)
    if not chosen:
        return Outcome(text, [], found.fixes, found.module)
    try:
        new = render(found.module, [fix.plan for fix in chosen])
        broken = not _valid(new, path) or _touches(edits(text, new), protected_lines(text))
    except (Exception, RecursionError):
        broken = True
    if len(chosen) > 1 and broken:
        chosen = chosen[:1]  # together they break what alone they do not: one at a time (it rendered alone)
        new = render(found.module, [chosen[0].plan])
    elif broken:
        return Outcome(text, [], found.fixes, found.module)
    return Outcome(new, [fix.finding for fix in chosen], found.fixes, found.module)


def _overlap(a: tuple, b: tuple) -> bool:
    """Two plans replace nodes that overlap (one inside the other, or sharing text)."""
    return any(s1 < e2 and s2 < e1 for s1, e1 in a for s2, e2 in b)
