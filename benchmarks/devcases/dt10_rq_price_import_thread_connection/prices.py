"""Price table writes."""
from .db import with_connection

UPSERT_SQL = """
INSERT INTO prices (supplier_id, sku, price, currency) VALUES (%s, %s, %s, %s)
ON CONFLICT (supplier_id, sku) DO UPDATE SET price = EXCLUDED.price, currency = EXCLUDED.currency
"""


@with_connection
def upsert_price(conn, supplier_id: int, sku: str, price: str, currency: str) -> None:
    with conn.cursor() as cur:
        cur.execute(UPSERT_SQL, (supplier_id, sku, price, currency))
