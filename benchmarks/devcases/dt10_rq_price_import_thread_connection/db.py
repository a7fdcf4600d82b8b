"""Database access helpers: one connection per thread, reused by every call on that thread."""
import functools
import os
import threading

import psycopg2

DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://localhost/prices")

_local = threading.local()


def _thread_connection():
    conn = getattr(_local, "conn", None)
    if conn is None or conn.closed:
        conn = psycopg2.connect(DATABASE_URL)
        _local.conn = conn
    return conn


def with_connection(fn):
    """Runs ``fn(conn, *args)`` in its own transaction on this thread's connection."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        conn = _thread_connection()
        with conn:  # commits or rolls back; a psycopg2 connection stays open after the block
            return fn(conn, *args, **kwargs)

    return wrapper


def close_thread_connection() -> None:
    conn = getattr(_local, "conn", None)
    if conn is not None and not conn.closed:
        conn.close()
    _local.conn = None
