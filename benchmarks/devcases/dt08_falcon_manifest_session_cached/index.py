"""Manifest index: one shared session, created with the index."""
import requests


class ManifestIndex:
    def __init__(self, base_url: str, session: requests.Session) -> None:
        self._base = base_url
        self._session = session

    def load(self, manifest_id: str) -> dict:
        resp = self._session.get(f"{self._base}/manifests/{manifest_id}", timeout=10)
        resp.raise_for_status()
        return resp.json()
