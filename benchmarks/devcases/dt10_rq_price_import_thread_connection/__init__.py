# Bounded: see jobs.py; upsert_price (prices.py) is wrapped by db.with_connection, which takes
# its connection from db._thread_connection (db.py): one psycopg2 connection per worker thread,
# kept in a threading.local and reopened only once it is closed, so one per job, not per row.
"""Supplier price-list import as an RQ job, on a reused connection (trap dt10)."""
