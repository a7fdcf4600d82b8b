"""A finding's severity, derived from its evidence.

| severity | when |
| --- | --- |
| ``high`` | input-driven volume reaches per-item dependency calls on a request or worker path, with no limit |
| ``medium`` | per-item dependency calls are evident, but where the volume comes from is not |
| ``low`` | the shape is there, the evidence is not: no per-item dependency call is evident, the code runs once (import time, start-up, ``__main__``, a CLI command, a migration, a test), or the volume is configured or fixed by the code |

Runs report ``medium`` and above unless ``min-severity`` says otherwise;
the audit lists every severity.  Meta findings (BND0xx, BND9xx) are always
reported.
"""
from __future__ import annotations

from dataclasses import dataclass

HIGH, MEDIUM, LOW = "high", "medium", "low"
LEVELS = (LOW, MEDIUM, HIGH)
RANK = {LOW: 0, MEDIUM: 1, HIGH: 2}
DEFAULT_MIN = MEDIUM


@dataclass(frozen=True)
class Severity:
    """``level`` (HIGH, MEDIUM, LOW) and ``why``: the evidence that set it, one phrase."""

    level: str
    why: str = ""


def judge(volume: str, dependency: str, runs: str, volume_why: str = "", dependency_why: str = "",
          runs_why: str = "") -> Severity:
    """The severity of a per-item hazard from its three pieces of evidence.

    *volume*: ``analysis.facts.volume`` kind (input, configured, fixed, unknown);
    *dependency*: ``analysis.facts.dependency`` verdict (yes, no, unknown);
    *runs*: ``analysis.facts.placement`` role (once, test, request, worker, unknown), *runs_why* what showed it
    when the project did (``placement.where_runs_why``).
    """
    if runs == "once":
        return Severity(LOW, runs_why or "runs once (import time, start-up, a CLI command or a migration)")
    if runs == "test":
        return Severity(LOW, "test code")
    if dependency == "no":
        return Severity(LOW, "the per-item work calls no external dependency")
    if volume in ("configured", "fixed"):
        return Severity(LOW, f"the volume is {volume}: {volume_why}" if volume_why else f"the volume is {volume}")
    if dependency != "yes":
        return Severity(LOW, "no per-item dependency call is evident")
    if volume == "input":
        return Severity(HIGH, f"{volume_why}; per item: {dependency_why}" if volume_why else dependency_why)
    return Severity(MEDIUM, f"per item: {dependency_why}")


def reported(level: str, minimum: str) -> bool:
    """True when a finding of *level* is shown at the *minimum* severity."""
    return RANK.get(level, 1) >= RANK.get(minimum, 1)


def of_report(report, chain: list, ctx, path: str) -> Severity:
    """The severity of a rule's report: the rule's own, or judged from its volume, work and placement.

    *chain* holds the nodes enclosing the reported node (``analysis.facts.placement``);
    *ctx* is the traversal's Context.  Request-shape findings (BND2xx) are
    declarations: their volume is the request by definition, so they are
    ``medium`` unless they sit in test code.
    """
    from boundlint.analysis.facts import dependency, placement, volume

    if report.severity is not None:  # the rule's own: a level, or (level, why)
        return Severity(*report.severity) if isinstance(report.severity, tuple) else Severity(report.severity)
    code = report.rule.code
    if code[3] in "09":
        return Severity(HIGH if code[3] == "0" else MEDIUM)
    if code.startswith("BND2"):
        if placement.where_runs(path, chain) == placement.TEST:
            return Severity(LOW, "test code")
        found, why = dependency.reaches(report.work, chain, ctx) if report.work else (dependency.UNKNOWN, "")
        if found == dependency.YES:
            return Severity(HIGH, f"request input; per item: {why}")
        return Severity(MEDIUM, "request input")
    runs, runs_why = placement.where_runs_why(path, chain, ctx.project)
    if isinstance(report.volume, tuple):  # judged where the fan-out is (a worker's site)
        kind, volume_why = report.volume
    elif report.volume is not None:
        kind, volume_why = volume.volume(report.volume, chain, ctx, path, runs)
    else:
        kind, volume_why = volume.UNKNOWN, ""
    if report.reached:
        found, why = dependency.YES, report.reached
    else:
        if code.startswith("BND1"):
            pool = dependency.pooled(report.work, ctx, chain)
            if pool:
                return Severity(LOW, f"each item's work runs on a thread pool of fixed size (`{pool}`)")
        found, why = (dependency.reaches(report.work, chain, ctx, failures=code.startswith("BND3"),
                                         spawned=code in ("BND101", "BND102"))
                      if report.work else (dependency.UNKNOWN, ""))
    return judge(kind, found, runs, volume_why, why, runs_why)
