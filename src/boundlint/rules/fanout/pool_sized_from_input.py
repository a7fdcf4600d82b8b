"""BND104 pool-sized-from-input: an executor or process pool whose size comes from the input."""
from __future__ import annotations

import re

import libcst as cst

from boundlint.analysis import limits
from boundlint.analysis.context import Context
from boundlint.analysis.spawns import executor_constructor, pool_size, spawn_of
from boundlint.rules.base import Example, Rule, short


def _pool_size(ctor: cst.Call, ctx: Context | None = None) -> cst.BaseExpression | None:
    return pool_size(ctor, ctx)


class PoolSizedFromInput(Rule):
    __doc__ = """
    ## What it does
    Flags a `ThreadPoolExecutor`, `ProcessPoolExecutor`, `multiprocessing.Pool`
    or `ThreadPool` whose `max_workers` / `processes` is computed from the
    input's size (`len(items)` or a name bound to it).  The finding is on the
    `submit` / `map` / `loop.run_in_executor(pool, ...)` that fans out over
    the pool, or on the constructor when the pool is used elsewhere.

    A pool may come from an executor factory: a same-module function that
    returns an executor constructor (or is annotated `-> Executor`), or a
    callable named like one (`executor_factory(...)`, `self.pool_cls(...)`,
    `make_executor(...)`); its size is the call's `max_workers=` /
    `processes=` or the argument for the factory parameter that sizes the
    pool (`make_pool(len(items)).map(...)`).

    ## Why is this bad?
    A pool exists to cap concurrency.  Sized from the input it caps nothing:
    10,000 items start 10,000 threads or processes, each with its own
    connection to the dependency.

    ## What counts as a limit
    - a constant or default `max_workers` (`ThreadPoolExecutor()`,
      `max_workers=8`, `max_workers=MAX_WORKERS`);
    - `min(len(items), N)` with a constant `N`;
    - a size parameter (`max_workers=threads`) whose callers pass constants:
      when a caller, in any module of the project, passes `len(...)` for it
      (`refresh_all(accounts, threads=len(accounts))`, also through
      `n = len(accounts)`, `max(1, len(accounts))`), the pool is sized from
      the input and the finding's evidence names that caller.
    """
    code, name = "BND104", "pool-sized-from-input"
    prefilter = re.compile(r"[Ee][Xx][Ee][Cc][Uu][Tt][Oo][Rr]|[Pp][Oo][Oo][Ll]")  # also executor_factory(...), make_pool(...)
    message = "`{call}` fans out over a pool sized from the input (`{size}`)"
    hint = "give the pool a constant max_workers, e.g. min(len(items), 16)"
    invalid = (
        Example("len_sized_pool", """
            import concurrent.futures

            def execute(items):
                with concurrent.futures.ThreadPoolExecutor(max_workers=len(items)) as executor:
                    futures = [executor.submit(run, item) for item in items]  # error: BND104 col 20
                return [f.result() for f in futures]
            """),
    )
    valid = (
        Example("capped_pool", """
            import concurrent.futures

            def execute(items):
                with concurrent.futures.ThreadPoolExecutor(max_workers=min(len(items), 16)) as executor:
                    return list(executor.map(run, items))
            """),
    )

    def __init__(self, sink):
        super().__init__(sink)
        self._pending: dict[int, tuple[cst.Call, cst.BaseExpression, tuple[str, ...]]] = {}
        self._used: set[int] = set()
        self._seen: set[int] = set()

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        spawn = spawn_of(node, ctx)
        if spawn is not None and spawn.kind == "pool" and spawn.receiver is not None:
            ctor = executor_constructor(spawn.receiver, ctx)
            if ctor is not None and ctor is spawn.receiver:
                self._consider(ctor, ctx)  # factory(...).map(...): the pool is built in this very call
            if ctor is not None and id(ctor) in self._pending:
                self._used.add(id(ctor))
                _, size, chain = self._pending[id(ctor)]
                self.report(node, chain, call=_spawn_text(node, spawn.receiver), size=short(size), volume=size,
                            work=(node,) if spawn.target is None else (node, spawn.target),
                            reached="one pool thread or process per item")
            return
        if executor_constructor(node, ctx) is node:
            self._consider(node, ctx)

    def _consider(self, ctor: cst.Call, ctx: Context) -> None:
        """Note *ctor* as pending when its size comes from the input (once per constructor)."""
        if id(ctor) in self._seen:
            return
        self._seen.add(id(ctor))
        size = _pool_size(ctor, ctx)
        if size is None:
            return
        if limits.size_from_input(size, ctx):
            self._pending[id(ctor)] = (ctor, size, limits.size_chain(size, ctx))

    def leave_FunctionDef(self, node: cst.FunctionDef, ctx: Context) -> None:
        for key, (ctor, size, chain) in list(self._pending.items()):
            if key not in self._used and _inside(ctor, node):
                self.report(ctor, chain, call=short(ctor.func) + "(...)", size=short(size), volume=size, reached="one pool thread or process per item")
                del self._pending[key]

    def leave_Module(self, node: cst.Module, ctx: Context) -> None:
        for key, (ctor, size, chain) in self._pending.items():
            if key not in self._used:
                self.report(ctor, chain, call=short(ctor.func) + "(...)", size=short(size), volume=size, reached="one pool thread or process per item")
        self._pending.clear()


def _spawn_text(node: cst.Call, receiver: cst.BaseExpression) -> str:
    """``pool.map(...)``, or ``executor_factory(...).map(...)`` for a pool built in the call itself."""
    if isinstance(receiver, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.value is receiver:
        return f"{short(receiver.func)}(...).{node.func.attr.value}(...)"
    return short(node.func) + "(...)"


def _inside(inner: cst.CSTNode, outer: cst.CSTNode) -> bool:
    return any(n is inner for n in limits.iter_nodes(outer))
