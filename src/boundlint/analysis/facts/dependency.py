"""Whether a piece of per-item work reaches an external dependency.

``reaches(nodes, chain, ctx)`` reads every call in *nodes* (the body of a
``try``, the coroutine spawned per item, the client built per item) and
answers ``(YES, why)`` when one reaches a network, database, cache, queue,
object-storage or subprocess call, directly or through the project's own
functions (this module's, or another module's through the project index);
``(NO, "")`` when every call is shown to be local work (parsing,
arithmetic, in-process bookkeeping); ``(UNKNOWN, "")`` otherwise.
Work handed to a thread pool (``asyncio.to_thread(f)``,
``run_in_executor(None, partial(f, x))``) is judged by what it runs.
A method is read where the code shows its class: called through the class
(``Job._reset(row)``), or on an object whose class ``receivers.shown`` finds
(``REGISTRY = Registry()``, ``path: Path``); the project's own code read
whole and of unknown effect is no coroutine out of sight, so awaiting it
is not taken for I/O, and its name is not guessed from.

``pooled(nodes, ctx, chain)`` answers whether each item's work runs on a
thread pool of fixed size, in the fan-out or in the project coroutines it
awaits.
"""
from __future__ import annotations

from typing import Iterable

import libcst as cst

from boundlint.analysis.names import dotted, partial_target
from boundlint.kinds import calls
from boundlint.analysis.facts import flag_args, given_args, receivers
from boundlint.analysis.facts.overrides import overridden
from boundlint.analysis.facts.spawned import spawned_elsewhere
from boundlint.analysis.facts.walk import leaf_types
from boundlint.index.flags import NOT_NONE

YES, NO, UNKNOWN = "yes", "no", "unknown"
_DEPTH = 3
# the *why* of an UNKNOWN verdict on code in sight: the project's own function was read, so an
# awaited call of it is not a coroutine out of sight (which waits on I/O)
_READ = "read"
_DEEP = "deep"  # the *why* of an UNKNOWN verdict cut off by depth: out of sight after all
_SCOPES = leaf_types(cst.FunctionDef, cst.ClassDef, cst.Lambda)
_DEFS = leaf_types(cst.FunctionDef, cst.ClassDef)


def _broad(handler: cst.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = [e.value for e in handler.type.elements] if type(handler.type) is cst.Tuple else [handler.type]
    return any((dotted(t) or "") in ("Exception", "BaseException") for t in types)


def _absorbs(node: cst.Try) -> bool:
    """A ``try`` that catches every exception and whose handlers never raise: a failure in its body stops there."""
    return any(_broad(h) for h in node.handlers) and not any(
        type(n) is cst.Raise for h in node.handlers for n, _ in _walk(h.body))


def _walk(node: cst.CSTNode):
    """``(node, awaited)`` for every node under *node*, nested defs and lambdas skipped."""
    awaited: set[int] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is cst.Await:
            awaited.add(id(n.expression))
        yield n, id(n) in awaited
        if type(n) in _SCOPES and n is not node:
            continue
        stack.extend(reversed(kids(n)))


def _calls(node: cst.CSTNode, failures: bool = False, skip: frozenset[int] | set[int] = frozenset()
           ) -> list[tuple[cst.Call, bool]]:
    """The calls under *node* with whether each is awaited, in one walk (nested defs skipped); with
    *failures*, only those whose failure can propagate out of *node*: the body of an inner ``try``
    that catches everything and does not raise (``_absorbs``) is skipped, and so is a coroutine
    handed to a task of its own that *node* never waits on (``spawned_elsewhere``).  The nodes whose
    ids are in *skip* (branches the call's arguments rule out, ``flag_args``) are not read."""
    out: list[tuple[cst.Call, bool]] = []
    awaited: set[int] = set()
    elsewhere = spawned_elsewhere(node) if failures else set()
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in skip:
            continue
        if type(n) is cst.Await and type(n.expression) is cst.Call:
            awaited.add(id(n.expression))
        if type(n) is cst.With and n.asynchronous is not None:  # `async with lock():` awaits its entry
            awaited.update(id(i.item) for i in n.items if type(i.item) is cst.Call)
        if type(n) is cst.For and n.asynchronous is not None and type(n.iter) is cst.Call:
            awaited.add(id(n.iter))  # `async for x in stream():` awaits each step
        if type(n) is cst.Call and id(n) not in elsewhere:
            out.append((n, id(n) in awaited))
        if type(n) in _DEFS and n is not node:
            continue  # a nested def runs when called, not here
        if failures and type(n) is cst.Try and _absorbs(n):
            stack.extend(reversed([c for c in kids(n) if c is not n.body]))
            continue
        stack.extend(reversed(kids(n)))
    return out


def _targets(stmt: cst.Assign | cst.AnnAssign) -> list[str]:
    targets = [t.target for t in stmt.targets] if type(stmt) is cst.Assign else [stmt.target]
    return [t.value for t in targets if type(t) is cst.Name]


_HANDOFFS = frozenset({"asyncio.to_thread", "anyio.to_thread.run_sync", "trio.to_thread.run_sync"})
# calls that start, or wait on, other awaitables: work that is not the coroutine's own awaits
_STARTS = frozenset({"gather", "wait", "as_completed", "wait_for", "shield", "create_task", "ensure_future",
                     "start_soon", "run_coroutine_threadsafe", "submit", "map"})


def _handoff(call: cst.Call, ctx) -> str:
    """``"asyncio.to_thread"`` or ``"run_in_executor"`` when *call* hands a callable to a thread pool
    of fixed size (the default executor, anyio's and trio's capacity limiters); else ``""``."""
    qual = ctx.qualname(call.func) or ""
    if qual in _HANDOFFS:
        return qual
    return "run_in_executor" if type(call.func) is cst.Attribute and call.func.attr.value == "run_in_executor" else ""


class _Reader:
    def __init__(self, chain: list[cst.CSTNode], ctx, failures: bool = False, spawned: bool = False) -> None:
        self.ctx = ctx
        self.failures = failures
        self.spawned = spawned
        self.chain = chain
        self.owner = next((n.name.value for n in reversed(chain) if type(n) is cst.ClassDef), None)
        # (id(def), parameter states) -> verdict; UNKNOWN while being read (recursion)
        self.memo: dict[tuple, tuple[str, str]] = {}
        self.scopes: list[cst.FunctionDef] = []  # the defs being read, innermost last
        self.states: list[dict[str, str]] = []  # what each of them was passed for certain (``flag_args``)

    def local_def(self, name: str) -> cst.FunctionDef | None:
        for func in reversed([n for n in self.chain if type(n) is cst.FunctionDef]):
            for stmt in func.body.body if type(func.body) is cst.IndentedBlock else ():
                if type(stmt) is cst.FunctionDef and stmt.name.value == name:
                    return stmt
        found = self.ctx.index.functions.get(name)
        return found if type(found) is cst.FunctionDef else None

    def method(self, name: str) -> cst.FunctionDef | None:
        if self.owner is None:
            return None
        found = self.ctx.index.methods.get(self.owner, {}).get(name)
        return found if type(found) is cst.FunctionDef else None

    def project(self, qualname: str | None, local: str | None, call: cst.Call | None = None) -> str | None:
        project = self.ctx.project
        if not project:
            return None
        ref = project.ref(qualname, local)
        if ref is None:
            return None
        # constants, and this def's parameters passed on, rule out the callee's flag branches
        passed = flag_args.passed(call, self.states[-1] if self.states else None) if call is not None else []
        answer = project.ask("failing_dependency" if self.failures else "dependency", ref, *([passed] if passed else []))
        if answer:
            return answer
        if answer == "":
            return ""
        found = project.ask("defined", ref)
        return None if not found else _READ if found[1] else _DEEP

    def answer(self, qualname: str | None, local: str | None, call: cst.Call | None = None) -> tuple[str, str] | None:
        """``project``'s answer as a verdict: the project's code whose effect is unknown is
        ``(UNKNOWN, _READ)``, or ``(UNKNOWN, _DEEP)`` when it was too deep to read whole; with the
        *call* that runs it, the constants it passes rule out the branches they decide (``index.flags``)."""
        found = self.project(qualname, local, call)
        if found is None:
            return None
        return (UNKNOWN, found) if found in (_READ, _DEEP) else (YES, found) if found else (NO, "")

    def read(self, func: cst.FunctionDef, depth: int, call: cst.Call | None = None, offset: int = 0) -> tuple[str, str]:
        """``body``'s verdict on a def in sight, marked as read when its effect is unknown; with the
        *call* that runs it, without the branches its arguments rule out (``given_args``, ``flag_args``)."""
        states = {}
        if call is not None:  # shown not None (`given_args`), unless a flag state says more
            states = {p: NOT_NONE for p in given_args.given(call, func, offset)}
            states.update(flag_args.states(call, func, offset, self.states[-1] if self.states else None))
        verdict, why = self.body(func, depth + 1, states)
        return (UNKNOWN, _READ) if verdict == UNKNOWN and why != _DEEP else (verdict, why)

    def enclosing(self) -> list[cst.FunctionDef]:
        """The functions around the work being read, outermost first (the defs read last)."""
        return [n for n in self.chain if type(n) is cst.FunctionDef] + self.scopes

    def of_class(self, cls: cst.BaseExpression, method: str, depth: int, text: str = "",
                 call: cst.Call | None = None) -> tuple[str, str] | None:
        """The verdict for calling *method* on (an instance of) the class *cls*: this module's class's
        method read, a standard-library class's local, a dependency package's a dependency call,
        another module's through the project index (inherited methods too, without the branches
        the constants *call* passes rule out); None when out of sight."""
        name = dotted(cls) or ""
        if name in self.ctx.index.classes:
            found = self.ctx.index.methods.get(name, {}).get(method)
            if type(found) is cst.FunctionDef:
                return None if receivers.abstract(found) else self.read(found, depth, call, 1)
            return self.answer(None, f"{name}.{method}", call)
        if receivers.stdlib_class(cls, self.ctx):
            return NO, ""
        qual = self.ctx.qualname(cls)
        if qual is None:
            return None
        if calls.server_context(qual, self.ctx.settings):
            return NO, ""  # `context.abort()`: the served call's own context answers the caller
        if calls.classify(qual, None, None, self.ctx.settings, verbs=False) == calls.DEPENDENCY:
            return YES, f"`{text or f'{name}.{method}'}()`"
        return self.answer(f"{qual}.{method}", None, call)

    def shown(self, receiver: str | None, method: str, depth: int, call: cst.Call | None = None) -> tuple[str, str] | None:
        """The verdict for a method called on a receiver whose class the code shows (``receivers``):
        a class called by name (``Job._reset(row)``), an annotated or constructed local, parameter or
        module instance, an attribute of ``self`` built in its class; None when nothing shows it."""
        if receiver is None or receiver in ("self", "cls"):
            return None
        funcs = self.enclosing()
        if receiver in self.ctx.index.classes and receivers.shown(receiver, funcs, self.ctx, None) is None \
                and not any(receivers.binds(f, receiver) for f in funcs):
            return self.of_class(cst.Name(receiver), method, depth, f"{receiver}.{method}")  # self passed or not
        found = receivers.shown(receiver, funcs, self.ctx, self.owner)
        if found is None:
            return None
        if found[0] == receivers.STDLIB:
            return NO, ""
        return self.of_class(found[1], method, depth, f"{receiver}.{method}", call)

    def callee(self, func: cst.BaseExpression) -> tuple[cst.FunctionDef, int] | None:
        """The def in sight that a call of *func* runs, with how many leading parameters the call
        does not fill (``self``), else None."""
        if type(func) is cst.Name:
            found = self.local_def(func.value)
            return (found, 0) if found is not None else None
        if type(func) is cst.Attribute and dotted(func.value) in ("self", "cls"):
            found = self.method(func.attr.value)
            return (found, 1) if found is not None else None
        return None

    def handed(self, call: cst.Call, depth: int) -> tuple[str, str] | None:
        """A callable passed as an argument (``to_thread(urlopen, u)``, ``partial(fetch, s)``): run it too,
        unless the callee is a def in sight whose parameter for it is never called there."""
        callee = self.callee(call.func)
        for position, arg in enumerate(call.args):
            if callee is not None and not receivers.calls_param(callee[0], position + callee[1]):
                continue  # `self._decrypt(row.token)`: the def reads the value, it runs nothing
            if arg.keyword is None and isinstance(arg.value, (cst.Name, cst.Attribute)):
                target = arg.value
                if type(target) is cst.Name and calls.builtin_name(target.value):
                    continue
                if self.ctx.qualname(target) is not None or type(target) is cst.Attribute or self.local_def(target.value):
                    verdict = self.call(cst.Call(func=target), depth, self.spawned and depth == 0)
                    if verdict[0] == YES:
                        return verdict
        return None

    def call(self, call: cst.Call, depth: int, awaited: bool = False) -> tuple[str, str]:
        """The verdict for one call; an *awaited* one returns a coroutine, so a method name shared with
        ``str``/``dict`` (``get``) says nothing about it."""
        if call.args:
            handed = self.handed(call, depth)
            if handed is not None:
                return handed
        func = call.func
        qual = self.ctx.qualname(func)
        text = dotted(func) or ""
        if type(func) is cst.Name:
            if qual is None and calls.builtin_name(func.value) and self.local_def(func.value) is None:
                return NO, ""
            found = self.local_def(func.value) if qual is None else None
            if found is not None:
                return self.read(found, depth, call)
            if qual is not None:
                kind = calls.classify_call(qual, None, None, self.ctx.settings, verbs=False)
                if kind == calls.LOCAL:
                    return NO, ""
                if kind == calls.DEPENDENCY:
                    return YES, f"`{text}()`"
            answer = self.answer(qual, None if qual else func.value, call)
            if answer is not None and answer[1] != _DEEP:  # the project's own function: read, not guessed
                return answer
            if calls.classify_call(qual, None, None, self.ctx.settings, name=func.value) == calls.DEPENDENCY:
                return YES, f"`{text}()`"
            return UNKNOWN, ""
        if type(func) is cst.Attribute:
            receiver = dotted(func.value)
            shown = self.shown(receiver, func.attr.value, depth, call) if qual is None else None
            if shown is not None and shown[1] != _DEEP:  # what the code shows beats what a name suggests
                return shown
            kind = calls.classify_call(qual, receiver, func.attr.value, self.ctx.settings, verbs=False)
            if kind == calls.DEPENDENCY:
                return YES, f"`{text or func.attr.value}()`"
            if receiver in ("self", "cls"):
                found = self.method(func.attr.value)
                if found is not None and self.failures and receivers.abstract(found):
                    return overridden(self.owner, func.attr.value, self.ctx)  # a subclass's override runs
                if found is not None:
                    return self.read(found, depth, call, 1)
            firm = qual is not None and calls.classify(qual, None, None, self.ctx.settings, verbs=False) == calls.LOCAL
            if kind == calls.LOCAL and (not awaited or firm):
                return NO, ""  # a stdlib call is local either way; a `get` that is awaited is no dict's
            if qual is not None:
                answer = self.answer(qual, None, call)
                if answer is not None and answer[1] != _DEEP:
                    return answer
            if calls.classify_call(qual, receiver, func.attr.value, self.ctx.settings) == calls.DEPENDENCY:
                return YES, f"`{text or func.attr.value}()`"
        return UNKNOWN, ""

    def pool_work(self, call: cst.Call) -> cst.BaseExpression | None:
        """What a thread-pool handoff runs (``to_thread(fetch, u)``, ``run_in_executor(None, job)`` where
        ``job = partial(self.put, k)``), when it is in sight: a def, a method, a lambda; else None."""
        position = 1 if type(call.func) is cst.Attribute and call.func.attr.value == "run_in_executor" else 0
        args = [a.value for a in call.args if a.keyword is None and not a.star]
        target = args[position] if len(args) > position else None
        for _ in range(4):
            if partial_target(target) is not None:
                target = partial_target(target)
            elif type(target) is cst.Name and self.local_def(target.value) is None:
                target = self.bound(target.value)
            else:
                break
        if type(target) is cst.Lambda:
            return target
        if type(target) is cst.Name and self.local_def(target.value) is not None:
            return target
        if type(target) is cst.Attribute and dotted(target.value) in ("self", "cls") and self.method(target.attr.value):
            return target
        return None

    def bound(self, name: str) -> cst.BaseExpression | None:
        """The value of the one assignment to *name* in the innermost enclosing function, else None."""
        func = self.scopes[-1] if self.scopes else next((n for n in reversed(self.chain) if type(n) is cst.FunctionDef), None)
        values = [stmt.value for stmt, _ in _walk(func.body) if isinstance(stmt, (cst.Assign, cst.AnnAssign))
                  and stmt.value is not None and name in _targets(stmt)] if func is not None else []
        return values[0] if len(values) == 1 else None

    def runs(self, target: cst.BaseExpression, depth: int) -> tuple[str, str]:
        """The verdict for the work a thread pool runs: a lambda's calls, or the def *target* names."""
        if type(target) is not cst.Lambda:
            return self.call(cst.Call(func=target), depth)
        answer = NO
        for call, _ in _calls(target.body, self.failures):
            verdict, why = self.call(call, depth + 1)
            if verdict == YES:
                return YES, why
            answer = UNKNOWN if verdict == UNKNOWN else answer
        return answer, ""

    def pooled(self, func: cst.BaseExpression, depth: int) -> str:
        """``"`asyncio.to_thread()` in `f()`"`` when *func* names a project coroutine whose awaited work is
        all handed to a thread pool (itself or through a coroutine it awaits, *depth* counting the
        calls down) or local; a call that reaches a dependency besides, an awaited call of unknown
        effect, ``async with`` / ``async for`` or a call that starts other awaitables make it ``""``."""
        if depth > 1:
            return ""
        target = self.local_def(func.value) if type(func) is cst.Name else (
            self.method(func.attr.value) if type(func) is cst.Attribute and dotted(func.value) in ("self", "cls") else None)
        if target is None:
            ref = self.ctx.project.ref(self.ctx.qualname(func), None if self.ctx.qualname(func) else dotted(func)) \
                if self.ctx.project and isinstance(func, (cst.Name, cst.Attribute)) else None
            return (self.ctx.project.ask("pooled", ref, depth) or "") if ref else ""
        if target.asynchronous is None:
            return ""
        found, skip = "", set()
        for node, awaited in _walk(target.body):
            if isinstance(node, (cst.With, cst.For, cst.CompFor)) and node.asynchronous is not None:
                return ""
            if type(node) is cst.Await and type(node.expression) is not cst.Call:
                return ""
            if type(node) is not cst.Call or id(node) in skip:
                continue
            if _handoff(node, self.ctx):
                found = found or f"`{dotted(node.func) or 'run_in_executor'}()` in `{target.name.value}()`"
                skip.update(id(n) for n, _ in _walk(node) if n is not node)  # its arguments run on the pool
                continue
            last = (self.ctx.qualname(node.func) or dotted(node.func) or "").rsplit(".", 1)[-1]
            if last == "partial":
                skip.update(id(n) for n, _ in _walk(node) if n is not node)  # builds a callable, runs nothing
                continue
            if last in _STARTS:
                return ""
            inner = self.pooled(node.func, depth + 1) if awaited and isinstance(node.func, (cst.Name, cst.Attribute)) else ""
            if inner:
                found = found or inner
                continue
            verdict, _ = self.call(node, depth + 1, awaited)
            if verdict == YES or (verdict == UNKNOWN and awaited):
                return ""
        return found

    def body(self, func: cst.FunctionDef, depth: int, states: dict[str, str] | None = None) -> tuple[str, str]:
        """The verdict on the body of the def in sight *func*, given the *states* of its parameters
        (``flag_args``; ``NOT_NONE`` for one shown not None, ``given_args``): the branches those rule
        out are not read."""
        states = states or {}
        key = (id(func), tuple(sorted(states.items())))
        if key in self.memo:
            return self.memo[key]
        if depth > _DEPTH:
            return UNKNOWN, _DEEP
        self.memo[key] = (UNKNOWN, "")
        self.scopes.append(func)
        self.states.append(states)
        skip = flag_args.not_taken(func.body, states)
        verdict, why = self.nodes([func.body], depth, skip)
        self.states.pop()
        self.scopes.pop()
        self.memo[key] = verdict, (f"{why} in `{func.name.value}()`" if verdict == YES and " in `" not in why else why)
        return self.memo[key]

    def nodes(self, nodes: Iterable[cst.CSTNode], depth: int, skip: set[int] = frozenset()) -> tuple[str, str]:
        answer, deep = NO, False
        for node in nodes:
            if isinstance(node, (cst.Name, cst.Attribute)):  # a callable handed over to run per item
                node = cst.Call(func=node)
            for call, awaited in _calls(node, self.failures, skip):
                is_awaited = awaited or (self.spawned and depth == 0)
                runs = self.pool_work(call) if _handoff(call, self.ctx) else None
                verdict, why = self.runs(runs, depth) if runs is not None else self.call(call, depth, is_awaited)
                if verdict == UNKNOWN and is_awaited and runs is None and why != _READ:
                    # a coroutine out of sight, awaited here or spawned per item, waits on I/O
                    verdict, why = YES, f"awaits `{dotted(call.func) or 'a call'}()`"
                if verdict == YES:
                    return YES, why
                if verdict == UNKNOWN:
                    deep = deep or why == _DEEP
                    answer = UNKNOWN
        return answer, (_DEEP if deep and answer == UNKNOWN else "")


def pooled(nodes: Iterable[cst.CSTNode], ctx, chain: list[cst.CSTNode] | None = None) -> str:
    """``"asyncio.to_thread"`` when each item's work is handed to a thread pool of fixed size
    (``asyncio.to_thread(f, x)``, ``loop.run_in_executor(pool, f, x)``): the pool bounds how many run.
    Also when each item's coroutine is the project's own (this module's, or another's through the
    index) and awaits only such handoffs and local work, itself or one call further down:
    ``"`asyncio.to_thread()` in `fetch()`"``.  *chain* holds the nodes enclosing the work."""
    reader = _Reader(list(chain or ()), ctx)
    for node in nodes:
        elt = node.elt if isinstance(node, (cst.GeneratorExp, cst.ListComp, cst.SetComp)) else node
        if type(elt) is cst.Call:
            pool = _handoff(elt, ctx)
            if pool:
                return pool
            elt = elt.func
        if isinstance(elt, (cst.Name, cst.Attribute)):
            pool = reader.pooled(elt, 0)
            if pool:
                return pool.replace("`", "")
    return ""


def reaches(nodes: Iterable[cst.CSTNode], chain: list[cst.CSTNode], ctx, failures: bool = False,
            spawned: bool = False) -> tuple[str, str]:
    """``(YES, why)``, ``(NO, "")`` or ``(UNKNOWN, "")``: does the work in *nodes* reach a dependency?

    *chain* holds the nodes enclosing the work (``placement.ancestors_of``),
    used to find nested and sibling functions and the enclosing class; *ctx*
    is the traversal's Context (imports, module index, project view).
    With *failures* (the body of a ``try`` whose handler logs), calls inside an
    inner ``try`` that catches everything do not count: their failures never
    reach the handler, and a call of a placeholder method on ``self`` (abstract, or only ``...`` /
    ``raise NotImplementedError``) is judged by the project's overrides of it
    (``overrides.overridden``).  With *spawned* (coroutines or tasks started per item),
    a call out of sight in *nodes* themselves counts as awaited.
    """
    verdict, why = _Reader(chain, ctx, failures, spawned).nodes(nodes, 0)
    return verdict, why if verdict == YES else ""


# what a handler catches is judged with ``reaches`` (it imports this module): kept in its own module
from boundlint.analysis.facts.caught import caught, reraised  # noqa: E402
from boundlint.analysis.facts.walk import kids

__all__ = ["YES", "NO", "UNKNOWN", "reaches", "pooled", "caught", "reraised"]
