"""The audit collector's facts, cached beside ``check``'s results in the same cache directory.

``check`` and ``audit`` share the result cache (``boundlint.cache.Cache``):
findings an audit computed serve the next ``check`` and the other way round.
The audit also needs each file's ``AuditCollector`` facts, which ``check``
never computes; ``FactsStore`` keeps them under
``<cache-dir>/<version>/audit-<settings fingerprint>-<code id>/<x>.marshal``
(16 shards by the first hex digit of the entry key), keyed exactly as the
results are (``cache.entry_key``: content, path as given, working directory).
A file is served from the cache only when both its result and its facts are
there; a store that cannot be read is empty, one that cannot be written is
left as it was (``stores``).
"""
from __future__ import annotations

import marshal
import os

from boundlint import __version__


class FactsStore:
    """Collector facts (``{collector name: facts}``) per file, for one settings fingerprint."""

    def __init__(self, root, fingerprint: str) -> None:
        from boundlint.cache import code_id

        self.root = root
        self._where = os.path.join(os.fspath(root), __version__, f"audit-{fingerprint}-{code_id()}")
        self._shards: dict[str, dict] = {}
        self._dirty: set[str] = set()
        self._family: dict[str, FactsStore] = {fingerprint: self}

    def variant(self, settings) -> "FactsStore":
        """The store of facts gathered with *settings* (same root; this store when the fingerprints match)."""
        fingerprint = settings.fingerprint()
        hit = self._family.get(fingerprint)
        if hit is None:
            hit = FactsStore(self.root, fingerprint)
            hit._family = self._family
            self._family[fingerprint] = hit
        return hit

    def _shard(self, name: str) -> dict:
        shard = self._shards.get(name)
        if shard is None:
            from boundlint import stores

            shard = stores.load(os.path.join(self._where, f"{name}.marshal"))
            self._shards[name] = shard
        return shard

    def get(self, key: str, path: str) -> dict | None:
        """The facts of *path* with content key *key*, or None on a miss (or a damaged entry)."""
        from boundlint.cache import entry_key

        key = entry_key(key, path)
        facts = self._shard(key[0]).get(key)
        return facts if isinstance(facts, dict) else None

    def put(self, key: str, path: str, facts: dict | None) -> None:
        """Record the collector *facts* of *path* with content key *key*."""
        from boundlint.cache import entry_key

        key = entry_key(key, path)
        self._shard(key[0])[key] = facts or {}
        self._dirty.add(key[0])

    def flush(self) -> None:
        """Write the shards that changed, of every variant; facts that cannot be marshalled are not kept."""
        from boundlint import stores

        for store in self._family.values():
            for name in sorted(store._dirty):
                stores.write(os.path.join(store._where, f"{name}.marshal"), store._shards[name], marshal.dumps)
            store._dirty.clear()
