"""BND103 thread-per-item: an OS thread or process started per item of an unbounded loop."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.context import Context
from boundlint.analysis.spawns import spawn_of
from boundlint.rules.base import Example, Rule
from boundlint.rules.prefilter import Words
from boundlint.rules.fanout.spawn_limits import _doc, lowered, limiter_chain, spawn_limit


class ThreadPerItem(Rule):
    __doc__ = _doc("""
    ## What it does
    Flags `threading.Thread(...).start()`, `threading.Timer(...).start()` and
    `multiprocessing.Process(...).start()` (or of a same-module subclass of
    these) once per item of an unbounded loop.

    ## Why is this bad?
    Every item costs an OS thread (with its stack) or a whole process.  A large
    input exhausts memory, thread limits or file descriptors, and the threads
    all hit the same dependency at once.
    """)
    code, name = "BND103", "thread-per-item"
    prefilter = Words("Thread", "Process", "Timer")
    message = "`{call}` starts a {unit} per item of `{source}` with no limit"
    hint = "use a ThreadPoolExecutor with a fixed max_workers, or a fixed number of worker threads reading a queue"
    invalid = (
        Example("thread_in_loop", """
            import threading

            def notify_all(users):
                for user in users:
                    threading.Thread(target=notify, args=(user,)).start()  # error: BND103 col 9
            """),
    )
    valid = (
        Example("fixed_pool", """
            from concurrent.futures import ThreadPoolExecutor

            def notify_all(users):
                with ThreadPoolExecutor(max_workers=8) as pool:
                    pool.map(notify, users)
            """),
    )

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        spawn = spawn_of(node, ctx)
        if spawn is None or spawn.kind != "thread" or isinstance(spawn.receiver, cst.Attribute):
            return  # a thread kept on an attribute was built once, not per item
        loops = list(ctx.frame.loops)
        if not loops:
            return
        found, limit = spawn_limit(spawn, loops, ctx)
        if found is not None and limit is None:
            unit = "process" if "Process" in spawn.api else "thread"
            self.report(node, limiter_chain(node, spawn.target, ctx), call=spawn.api + "()", source=found.source, unit=unit,
                        volume=found.loop.iter, work=(node,) if spawn.target is None else (node, spawn.target),
                        reached=f"one OS {unit} per item", severity=lowered(found.loop, node, found.loop.iter, ctx))
