# Incident: pudo/dataset #393 - upserts over a large data set opened connections until Postgres
# answered "FATAL: sorry, too many clients already" (a new db connection per call).
# Hazard: rows come from an uploaded CSV in object storage (storage.py); upsert_price (prices.py)
# is wrapped by db.with_connection, which calls psycopg2.connect() on every call (db.py).
"""RQ jobs."""
from .prices import upsert_price
from .storage import read_csv


def import_price_list(upload_key: str, supplier_id: int) -> int:
    count = 0
    for row in read_csv(upload_key):
        upsert_price(supplier_id, row["sku"], row["price"], row.get("currency", "EUR"))
        count += 1
    return count
