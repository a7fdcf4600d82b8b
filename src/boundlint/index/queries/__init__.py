"""The linked facts a rule may ask of the project: each a pure function of the index.

Every query takes the ``ProjectIndex`` and JSON-ready arguments (refs are
absolute dotted names) and returns a JSON-ready answer, so that the result
cache can re-ask it on a later run and compare (see ``view.ProjectView``).
Answers that carry evidence are chains: lists of ``"what (path:line)"``
steps, outermost first.

By question: ``limits`` (limiters, length checks, client factories, pauses,
batches), ``config`` (settings, returns, constructions), ``requests`` (which
classes endpoints take and which fields they read or check), ``rejects``
(functions that reject an oversized argument), ``callers`` (what callers pass,
fan-outs over calls), ``reach`` (whether a function runs per item: a fixpoint over the call graph), ``dependency`` (dependency calls, failures, pools), ``overrides`` (what subclasses put in a placeholder method), ``installed`` (rows only operators add);
``index.once`` answers whether only once-contexts call a function, ``index.service`` whether one runs until
cancelled.
"""
from __future__ import annotations

from typing import Callable

from boundlint.index.once import once_callers
from boundlint.index.service import runs_forever
from boundlint.index.queries.callers import (
    callee_at, given, iterates, passed, per_item_callers, size_checked, sized_by_callers, spawn_sources, spawned_dependency,
)
from boundlint.index.queries.config import calls_of, configured, constructed, returns, signal
from boundlint.index.queries.dependency import defined, dependency, failing_dependency, instance_of, pooled
from boundlint.index.queries.installed import operator_rows
from boundlint.index.queries.limits import (
    batches, builds_limiter, client_factory, entered, fails_fast, len_checked, limiter, paces_failure, pauses,
)
from boundlint.index.queries.named import named_elsewhere
from boundlint.index.queries.reach import per_item_through, per_item_wrapped, per_run_through
from boundlint.index.queries.overrides import overrides
from boundlint.index.queries.state import state_input
from boundlint.index.queries.wrapped import wrapped_limiter
from boundlint.index.queries.requests import class_uses, input_field_reads, input_len_checks, is_enum, taken_as_input

QUERIES: dict[str, Callable] = {
    "instance_of": instance_of,
    "limiter": limiter, "len_checked": len_checked, "client_factory": client_factory, "pauses": pauses,
    "fails_fast": fails_fast, "callee_at": callee_at, "iterates": iterates, "paces_failure": paces_failure,
    "batches": batches, "configured": configured, "class_uses": class_uses, "spawn_sources": spawn_sources,
    "per_item_callers": per_item_callers, "sized_by_callers": sized_by_callers, "dependency": dependency,
    "spawned_dependency": spawned_dependency, "failing_dependency": failing_dependency, "pooled": pooled,
    "size_checked": size_checked, "input_len_checks": input_len_checks, "input_field_reads": input_field_reads,
    "is_enum": is_enum, "taken_as_input": taken_as_input, "returns": returns, "constructed": constructed,
    "passed": passed, "signal": signal, "calls_of": calls_of, "defined": defined,
    "once_callers": once_callers, "operator_rows": operator_rows, "named_elsewhere": named_elsewhere,
    "overrides": overrides, "state_input": state_input, "per_item_through": per_item_through,
    "per_item_wrapped": per_item_wrapped, "per_run_through": per_run_through,
    "wrapped_limiter": wrapped_limiter, "runs_forever": runs_forever, "given": given,
    "entered": entered, "builds_limiter": builds_limiter,
}
