"""Rule, Example and the registry.

A rule is one class: its docstring is its doc page (sections *What it does*,
*Why is this bad?*, *What counts as a limit*, *Example*, *Use instead*), its
``invalid`` / ``valid`` examples are tested code, and its ``visit_<Node>`` /
``leave_<Node>`` hooks run inside the engine's single traversal.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import libcst as cst

if TYPE_CHECKING:
    from boundlint.analysis.context import Context

MARKER = re.compile(r"\s*#\s*(?:error|low|bounded|ok|clean)\b.*$")
# The last text prefiltered and what each part found in it: rules share parts (BND301 and BND302 both
# need a failure and a log line), so each is searched once per file.  Replaced whole, never mutated
# across texts, so a thread that prefilters another text at the same time cannot mix the two.
_SEEN: tuple[str | None, dict] = (None, {})


def _found(part, text: str) -> bool:
    """Whether prefilter *part* (a substring, or anything with ``search``) occurs in *text*."""
    global _SEEN
    seen = _SEEN
    if seen[0] is not text:
        seen = _SEEN = (text, {})
    hits = seen[1]
    hit = hits.get(id(part))
    if hit is None:
        hit = hits[id(part)] = (part in text) if isinstance(part, str) else part.search(text) is not None
    return hit


@dataclass(frozen=True)
class Example:
    """A code sample in a rule's docs; ``# error: CODE col N`` marks expected findings."""

    name: str
    code: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", textwrap.dedent(self.code).strip("\n") + "\n")

    def clean(self) -> str:
        """The code with its test markers stripped, as shown in docs."""
        return "\n".join(MARKER.sub("", line) for line in self.code.splitlines()) + "\n"


@dataclass(frozen=True)
class Report:
    """A hazard a rule found, before positions are computed."""

    rule: "Rule"
    node: cst.CSTNode
    message: str
    # The chain that makes it a hazard, outermost first: ``"request field `Lookup.ids` (app/schemas.py:5)"``.
    evidence: tuple[str, ...] = ()
    hint: str = ""  # this finding's remedy when the rule knows more than its class-wide ``hint``
    # The evidence its severity is judged on (analysis.severity): the collection whose size drives the
    # work, and the per-item work (the spawned call, the body of the ``try``, the client built).
    volume: cst.CSTNode | None = None
    work: tuple[cst.CSTNode, ...] = ()
    severity: str | None = None  # set by the rule when it knows better than the shared judgement
    reached: str = ""  # the per-item dependency, when the rule's own shape shows it (a failed result of one)
    fix: str = ""  # the fix kind of the site (boundlint.fixes), "" when none


REGISTRY: dict[str, type["Rule"]] = {}


class Rule:
    """Base class of every rule.

    Subclasses set ``code`` (``BND`` + family digit + two digits), ``name``
    (the hazard's slug), ``message`` (a ``str.format`` template naming the
    construct), ``hint`` (the remedy, at most 120 characters), optionally
    ``hints`` (remedies by framework or model kind, passed to ``report``) and
    ``invalid`` / ``valid`` examples.
    Defining two rules with one code raises ``ValueError`` at import.
    """

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    message: ClassVar[str] = ""
    hint: ClassVar[str] = ""
    hints: ClassVar[dict[str, str]] = {}
    fix: ClassVar[str] = ""  # the fix kind of every finding of the rule (boundlint.fixes), unless report() names one
    invalid: ClassVar[tuple[Example, ...]] = ()
    valid: ClassVar[tuple[Example, ...]] = ()
    # A necessary condition on the source text: when it does not match, the rule
    # cannot report on the file (None: always run).  Must never lose a finding;
    # tests/test_prefilter.py proves it on real code.
    # A pattern, or a tuple whose every item (a substring or a pattern) must be found.
    prefilter: ClassVar["re.Pattern[str] | tuple[str | re.Pattern[str], ...] | None"] = None

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.code:
            return
        if cls.code in REGISTRY:
            raise ValueError(f"duplicate rule code {cls.code}: {REGISTRY[cls.code].__name__} and {cls.__name__}")
        REGISTRY[cls.code] = cls

    def __init__(self, sink: list[Report]) -> None:
        self._sink = sink

    def report(self, node: cst.CSTNode, evidence: tuple[str, ...] | list[str] = (), hint: str = "",
               volume: cst.CSTNode | None = None, work: "tuple[cst.CSTNode, ...] | list[cst.CSTNode]" = (),
               severity: str | None = None, reached: str = "", fix: str = "", **fields: object) -> None:
        """Record a finding on *node*, the message filled from *fields*, with the *evidence* chain
        (outermost first); *hint* (one of ``hints``) replaces the class-wide ``hint`` for this finding.

        *volume* (the collection whose size drives the work) and *work* (the
        per-item work) are the evidence its severity is judged on
        (``analysis.severity``); *reached* names the dependency when the shape
        itself shows one (a failed result of a dependency call); *severity* sets it outright.
        *fix* names the fix kind of the site (``boundlint.fixes``: ``request-field:pydantic`` ...); the
        class-wide ``fix`` applies when it is empty.

        Raises ValueError for a *hint* not in ``hints``: every help line a rule can print is
        class data, so tests/test_hints.py can hold each to 120 characters.
        """
        if hint and hint not in self.hints.values():
            raise ValueError(f"{self.code}: hint {hint[:40]!r}... is not one of the rule's `hints`")
        self._sink.append(Report(self, node, self.message.format(**fields), tuple(evidence), hint, volume,
                                 tuple(work), severity, reached, fix or self.fix))

    # Options that widen what the rule recognises: when one is set the text prefilter
    # cannot know the configured names, so the rule always runs.
    widening_options: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def may_apply(cls, text: str, settings: object = None) -> bool:
        """False only when the rule cannot report anything on *text* (its prefilter does not match)."""
        if cls.prefilter is None:
            return True
        if settings is not None and (settings.option("tables") or any(settings.option(o) for o in cls.widening_options)):
            return True  # configured tables can name what no text prefilter knows
        prefilter = cls.prefilter
        if isinstance(prefilter, tuple):
            return all(_found(p, text) for p in prefilter)
        return _found(prefilter, text)

    @classmethod
    def family(cls) -> str:
        """The family prefix, e.g. ``BND1``."""
        return cls.code[:4]

    @classmethod
    def doc(cls) -> str:
        """The rule's doc page in Markdown: what it flags, the example and the fix first; then why it is
        bad and the details; the "What counts as ..." lists (what is a limit) last."""
        body = textwrap.dedent(cls.__doc__ or "").strip()
        sections = _sections(body)
        what = sections.pop("What it does", "")
        opener, _, more = what.partition("\n\n")
        parts = [f"# {cls.code} {cls.name}", "", "## What it flags", "", opener.strip()] if opener else \
            [f"# {cls.code} {cls.name}"]
        if cls.invalid:
            parts += ["", "## Example", "", "```python", cls.invalid[0].clean().rstrip(), "```"]
        if cls.valid:
            parts += ["", "## Use instead", "", "```python", cls.valid[0].clean().rstrip(), "```"]
        parts += ["", "## Fix", "", cls.hint[0].upper() + cls.hint[1:] + "."]
        if cls.hints:
            parts += ["", *(f"- {kind}: {hint}" for kind, hint in cls.hints.items())]
        if more.strip():
            parts += ["", "## More on what it flags", "", more.strip()]
        lists = [title for title in sections if title.startswith("What counts as")]
        for title in [t for t in sections if t not in lists] + lists:
            parts += ["", f"## {title}", "", sections[title]] if title else ["", sections[title]]
        return "\n".join(parts) + "\n"


def _sections(body: str) -> dict[str, str]:
    """*body* (a rule's docstring) as ``{"## title": text}`` in order; text before the first title under ``""``."""
    out: dict[str, str] = {}
    title, lines = "", []
    for line in body.splitlines():
        if line.startswith("## "):
            if title or "".join(lines).strip():
                out[title] = "\n".join(lines).strip()
            title, lines = line[3:].strip(), []
        else:
            lines.append(line)
    if title or "".join(lines).strip():
        out[title] = "\n".join(lines).strip()
    return out


def short(node: cst.CSTNode, limit: int = 40) -> str:
    """Source text of *node* on one line, shortened to *limit* characters."""
    code = " ".join(cst.Module(body=[]).code_for_node(node).split())
    return code if len(code) <= limit else code[: limit - 3] + "..."


def all_rules() -> dict[str, type[Rule]]:
    """Every registered rule by code, importing the family modules on first use."""
    for module in ("meta", "fanout", "request_shape", "amplification", "churn", "noqa_check"):
        try:
            __import__(f"boundlint.rules.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"boundlint.rules.{module}":
                raise
    return dict(sorted(REGISTRY.items()))


_CHAIN_LOOP = re.compile(r"per item of `([^`]+)`|on every pass of a `(while)` loop")


def chain_loop(chain: "list[str] | tuple[str, ...]", fallback: str) -> str:
    """The loop that the first step of a project chain (``index.queries.callers``) runs per item over, as
    the query words it (``rows``, ``while``); *fallback* when the step names none."""
    found = _CHAIN_LOOP.search(chain[0]) if chain else None
    return (found.group(1) or found.group(2)) if found else fallback
