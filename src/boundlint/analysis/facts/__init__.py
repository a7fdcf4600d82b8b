"""Facts: readers over the CST and the project index that every family's verdicts rest on.

- ``placement``: where a reported node sits (its enclosing functions and
  class) and so where the code runs: a request or worker path, or once
  (import time, start-up, ``__main__``, a CLI command, a migration, a test);
- ``dependency``: whether a piece of per-item work reaches an external
  dependency (network, database, cache, queue, object storage, subprocess),
  directly or through the project's own functions;
- ``volume``: where a collection's size comes from (input, configured,
  fixed by the code, unknown).
- ``literals``: the items of a literal collection and the part an index
  picks, for ``volume``.

Facts answer with plain values; ``analysis.severity`` turns them into a
finding's severity.
"""
