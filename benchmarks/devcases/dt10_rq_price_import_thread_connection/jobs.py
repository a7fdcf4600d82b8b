# Pattern: pudo/dataset #393 - a new connection per upsert ended in "too many clients already";
# the shape dataset's own Database uses is one connection per thread in a threading.local. Not a
# hazard: rows come from an uploaded CSV (storage.py), but db.with_connection (db.py) reuses the
# thread's connection for every upsert_price call (prices.py).
"""RQ jobs."""
from .db import close_thread_connection
from .prices import upsert_price
from .storage import read_csv


def import_price_list(upload_key: str, supplier_id: int) -> int:
    count = 0
    try:
        for row in read_csv(upload_key):
            upsert_price(supplier_id, row["sku"], row["price"], row.get("currency", "EUR"))
            count += 1
    finally:
        close_thread_connection()
    return count
