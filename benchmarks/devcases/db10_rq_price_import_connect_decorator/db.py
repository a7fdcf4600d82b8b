"""Database access helpers."""
import functools
import os

import psycopg2

DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://localhost/prices")


def with_connection(fn):
    """Runs ``fn(conn, *args)`` in its own transaction."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        conn = psycopg2.connect(DATABASE_URL)  # expect: CONN-PER-ITEM
        try:
            with conn:
                return fn(conn, *args, **kwargs)
        finally:
            conn.close()

    return wrapper
