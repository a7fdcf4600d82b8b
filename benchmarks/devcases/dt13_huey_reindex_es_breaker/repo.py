"""Reads changed acquisitions from the database."""
from django.db import connection


def changed_since(checkpoint: str) -> list[dict]:
    with connection.cursor() as cur:
        cur.execute("SELECT id, label, modified, payload FROM acquisitions WHERE modified > %s ORDER BY modified", [checkpoint])
        return [{"_id": r[0], "label": r[1], "modified": r[2], "payload": r[3]} for r in cur.fetchall()]


def load_checkpoint() -> str:
    with connection.cursor() as cur:
        cur.execute("SELECT value FROM checkpoints WHERE name = 'reindex'")
        row = cur.fetchone()
        return row[0] if row else "1970-01-01"


def store_checkpoint(value: str) -> None:
    with connection.cursor() as cur:
        cur.execute("UPDATE checkpoints SET value = %s WHERE name = 'reindex'", [value])
