"""BND4xx connection churn: a new client, pool or connection per item.

In the incident each of 20,000 per-item tasks dialed its own connection to
the cache: the idle pool overflowed, sockets piled up in TIME_WAIT and
ephemeral ports ran out, so even restarts could not rebuild the pool.  A
client built once and reused keeps a bounded pool of connections; one built
per item opens (and tears down) a connection per item.  Client recognition
lives in ``boundlint.analysis.clients``; per-item workers in
``boundlint.analysis.workers``.

``client_per_item`` (BND401) and ``sessionless`` (BND402): one module per rule.
"""
from boundlint.rules.churn.client_per_item import ClientPerItem, note_loop_call
from boundlint.rules.churn.sessionless import SessionlessRequestInFanOut

__all__ = ["ClientPerItem", "SessionlessRequestInFanOut", "note_loop_call"]
