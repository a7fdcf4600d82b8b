"""Order queries."""
from sqlalchemy import text

from .database import engine


def changed_orders(since_id: int) -> list[dict]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT id, status, total FROM orders WHERE id > :since ORDER BY id"), {"since": since_id})
        return [dict(r._mapping) for r in rows]


def save_checkpoint(name: str, last_id: int) -> None:
    with engine.begin() as conn:
        conn.execute(text("UPDATE checkpoints SET last_id = :id WHERE name = :n"), {"id": last_id, "n": name})
