"""Blob store access."""
from .sessions import session_for


def get_blob(endpoint: str, key: str) -> bytes:
    session = session_for(endpoint)
    resp = session.get(f"{endpoint}/blobs/{key}", timeout=30)
    resp.raise_for_status()
    return resp.content
