"""BND402 sessionless-request-in-fan-out: a one-shot request helper in a fan-out's per-item worker."""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.clients import sessionless_name, sessionless_request
from boundlint.analysis.context import Context
from boundlint.analysis.storms import function_node
from boundlint.analysis.workers import worker_index
from boundlint.rules.base import Example, Rule, short
from boundlint.rules.prefilter import Words
from boundlint.rules.churn.client_per_item import _CONNECTION, _func_name, _worker_text


class SessionlessRequestInFanOut(Rule):
    __doc__ = """
    ## What it does
    Flags a module-level convenience request (`requests.get` / `post` / ...,
    `httpx.get` / `post` / ..., `urllib.request.urlopen`, `aiohttp.request`)
    inside a function that a fan-out runs once per item, in the same module
    or in another one (`pool.map(post_event, events)`,
    `gather(*(notify(e) for e in events))` over its input; the evidence
    names the fan-out), and such a helper handed to the fan-out directly
    (`executor.map(requests.get, urls)`).

    ## Why is this bad?
    Each of these calls builds a throw-away session: a new connection per
    call, closed right after.  Run concurrently, one per item, they open as
    many connections at once as there are items in flight, with a TCP and
    TLS handshake each, and leave the sockets in TIME_WAIT.

    ## What counts as a limit
    - a shared `requests.Session` / `httpx.Client` / `aiohttp.ClientSession`
      built once and passed to the workers (its pool reuses connections);
    - the fan-out runs over a bounded source or starts a fixed pool of
      workers; a bounded pool (`max_workers=8`) is not a limit: each item
      still opens its own connection;
    - a plain sequential loop of `requests.get` is not this rule: it holds
      one connection at a time.  A helper that makes such a request,
      called per item of a loop, is BND401's.
    """
    code, name = "BND402", "sessionless-request-in-fan-out"
    # the helpers resolve only through an import of one of these modules (the fan-out may be in another module)
    prefilter = Words("requests", "httpx", "urllib", "urllib2", "aiohttp")
    message = "`{call}` opens a new connection per call {where}"
    hint = "create one Session or Client for the fan-out and pass it to every worker, so its pool reuses connections"
    invalid = (
        Example("requests_get_in_pool", """
            from concurrent.futures import ThreadPoolExecutor

            import requests

            def fetch(url):
                return requests.get(url, timeout=10).json()  # error: BND402 col 12

            def fetch_all(urls):
                with ThreadPoolExecutor(max_workers=8) as pool:
                    return list(pool.map(fetch, urls))
            """),
    )
    valid = (
        Example("shared_session", """
            from concurrent.futures import ThreadPoolExecutor
            from functools import partial

            import requests

            def fetch(session, url):
                return session.get(url, timeout=10).json()

            def fetch_all(urls):
                with requests.Session() as session, ThreadPoolExecutor(max_workers=8) as pool:
                    return list(pool.map(partial(fetch, session), urls))
            """),
        Example("sequential_loop", """
            import requests

            def fetch_all(urls):
                return [requests.get(url, timeout=10).json() for url in urls]
            """),
    )

    def __init__(self, sink):
        super().__init__(sink)
        self._candidates: list[tuple[cst.Call, cst.CSTNode, str | None]] = []

    def visit_Call(self, node: cst.Call, ctx: Context) -> None:
        worker_index(ctx).note_call(node, ctx)
        if sessionless_request(node, ctx) is None:
            return
        func = function_node(ctx)
        if func is not None:
            self._candidates.append((node, func, ctx.function_qualname()))

    def leave_Module(self, node: cst.Module, ctx: Context) -> None:
        index = worker_index(ctx)
        for call, func, qual in self._candidates:
            site = index.site_of(func)
            if site is not None:
                self.report(call, call=short(call.func) + "(...)", where=_worker_text(func, site), volume=site.volume,
                            reached=_CONNECTION)
            elif qual is not None and ctx.project:
                chain = ctx.project.ask("per_item_callers", ctx.project.ref(None, qual), False, True)
                if chain:
                    where = f"in `{_func_name(func)}`, which another module runs per item"
                    self.report(call, chain, call=short(call.func) + "(...)", where=where, volume=("unknown", chain[0]),
                                reached=_CONNECTION)
        for target, site in index.direct:
            if sessionless_name(target, ctx):
                self.report(target, call=short(target), where=f"for every item of `{site.describe()}`", work=(target,),
                            volume=site.volume, reached=_CONNECTION)
        self._candidates.clear()
