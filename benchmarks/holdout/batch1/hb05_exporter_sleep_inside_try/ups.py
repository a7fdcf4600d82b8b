"""Reads the UPS status from the apcupsd CGI/JSON bridge."""
from __future__ import annotations

import requests


class UpsReader:
    def __init__(self, session: requests.Session, url: str, timeout_s: float = 5.0) -> None:
        self._session = session
        self._url = url
        self._timeout_s = timeout_s

    def read_status(self) -> dict[str, str]:
        response = self._session.get(self._url, timeout=self._timeout_s)
        response.raise_for_status()
        return {key.upper(): str(value) for key, value in response.json().items()}
