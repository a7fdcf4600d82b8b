"""Blob store access."""
import requests


def get_blob(endpoint: str, key: str) -> bytes:
    with requests.Session() as session:  # expect: CONN-PER-ITEM
        session.headers["Accept"] = "application/octet-stream"
        resp = session.get(f"{endpoint}/blobs/{key}", timeout=30)
        resp.raise_for_status()
        return resp.content
